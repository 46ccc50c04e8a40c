import { json, portalHandler } from '#shared/http/portal-handler';
import { refundTxidBody as body } from '#shared/http/validators.generated';
import { portalReportRefundTxid } from '#shared/services/portal/refunds';
import { type RefundTxCheck, unavailableRefundCheck } from '#shared/services/refunds';

/** How a live merchant's reported transaction is checked on its chain (the sandbox's own check serves sandbox merchants). */
const check: RefundTxCheck = unavailableRefundCheck;

/** POST /v1/portal/orders/{order_id}/refund-txid: the transaction that paid a refund, checked on chain; answers the order's page. */
export const handler = portalHandler({ body }, async ({ body, path, context, clientIp, now }) =>
  json(200, { status: 200, ...(await portalReportRefundTxid(context, path.order_id, body.refund_id, body.txid, check, clientIp, now)) }),
);
