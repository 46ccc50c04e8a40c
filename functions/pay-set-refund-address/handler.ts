import { publicHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { payRefundAddressBody as body } from '#shared/http/validators.generated';
import { addressRefundPage } from '#shared/services/refunds/page';

/** POST /v1/pay/refund/address (public): the buyer's refund address, checked for the refund's network; the link then stops working. */
export const handler = publicHandler({ body }, async ({ body, clientIp, now }) => json(200, await addressRefundPage(body, clientIp, now)));
