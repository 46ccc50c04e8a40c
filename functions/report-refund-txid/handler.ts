import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { refundTxidBody as body } from '#shared/http/validators.generated';
import { apiActor, refundView, reportRefundTransaction, type RefundTxCheck, unavailableRefundCheck } from '#shared/services/refunds';

/** How a live merchant's reported transaction is checked on its chain (the sandbox's own check serves sandbox merchants). */
const check: RefundTxCheck = unavailableRefundCheck;

/** POST /v1/orders/:order_id/refund-txid: the merchant reports the transaction that paid a refund; checked on chain first. */
export const handler = apiHandler({ body }, async ({ body, path, merchant, now, clientIp }) => {
  const refund = await reportRefundTransaction(merchant, path.order_id, body.refund_id, body.txid, check, apiActor(clientIp), now);
  return json(200, { status: 200, refund: await refundView(refund) });
});
