import { apiHandler } from '#shared/http/api-handler';
import { checkRefundTransaction } from '#shared/watchers/refund-check';
import { json } from '#shared/http/responses';
import { refundTxidBody as body } from '#shared/http/validators.generated';
import { apiActor } from '#shared/services/refunds/audit';
import { refundView } from '#shared/services/refunds/views';
import { reportRefundTransaction } from '#shared/services/refunds/reported';

/** POST /v1/orders/:order_id/refund-txid: the merchant reports the transaction that paid a refund; checked on chain first. */
export const handler = apiHandler({ body }, async ({ body, path, merchant, now, clientIp }) => {
  const refund = await reportRefundTransaction(merchant, path.order_id, body.refund_id, body.txid, checkRefundTransaction, apiActor(clientIp), now);
  return json(200, { status: 200, refund: await refundView(refund) });
});
