import { OrderNotNewError, SandboxOnlyError } from '#shared/domain/errors';
import { cancelOrder } from '#shared/services/order-actions';
import { getPayPage, withMerchant, type PayPage } from '#shared/services/pay-page';
import { simulatePayment } from '#shared/services/sandbox';

/**
 * What the buyer does on the hosted page besides checkout (cancel, sandbox payment), apart
 * from shared/services/pay-page.ts so the page's polling read loads no more than it needs.
 */

/** The buyer cancels a NEW order. */
export async function cancelPayPage(orderId: unknown, now: Date): Promise<PayPage> {
  return withMerchant(await cancelOrder(undefined, orderId, now));
}

/**
 * Sandbox orders only: pays the current invoice in full with enough confirmations, as the
 * merchant's sandbox endpoint does. The transaction id is the invoice's, so a double click
 * (or a retry) is one payment, never an overpayment.
 */
export async function simulatePayPagePayment(orderId: unknown, now: Date): Promise<PayPage> {
  const page = await getPayPage(orderId);
  if (!page.order.sandbox || !page.merchant.sandbox) throw new SandboxOnlyError();
  const txid = `sandbox-page-${page.invoice?.invoice_id ?? 'none'}`;
  const repeated = page.invoice?.payments?.some((payment) => payment.txid === txid) ?? false;
  // Only a NEW order is paid; repeating the page's own payment is answered as it stands.
  if (page.order.status !== 'NEW' && !repeated) throw new OrderNotNewError();
  return withMerchant(await simulatePayment(page.merchant, orderId, { txid }, now));
}
