import { json, portalHandler } from '#shared/http/portal-handler';
import { checkRefundTransaction } from '#shared/watchers/refund-check';
import { refundTxidBody as body } from '#shared/http/validators.generated';
import { portalReportRefundTxid } from '#shared/services/portal/refunds';

/** POST /v1/portal/orders/{order_id}/refund-txid: the transaction that paid a refund, checked on chain; answers the order's page. */
export const handler = portalHandler({ body }, async ({ body, path, context, clientIp, now }) =>
  json(200, { status: 200, ...(await portalReportRefundTxid(context, path.order_id, body.refund_id, body.txid, checkRefundTransaction, clientIp, now)) }),
);
