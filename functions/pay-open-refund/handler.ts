import { publicReadHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { payRefundBody as body } from '#shared/http/validators.generated';
import { openRefundPage } from '#shared/services/refunds/page';

/** POST /v1/pay/refund (public): what a refund link shows (its secret in the body, never in a URL a log keeps). */
export const handler = publicReadHandler({ body }, async ({ body }) => json(200, await openRefundPage(body.secret)));
