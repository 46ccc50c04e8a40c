import { currency, requiredConfirmations } from '#shared/domain/currencies';
import { InvalidParameterError, InvoiceNotExistError, SandboxOnlyError, UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { decimalFromNumber, decimalPlaces, parseDecimal } from '#shared/domain/money';
import { completeRefund, recordPayment } from '#shared/services/lifecycle';
import type { Found } from '#shared/services/order-changes';
import { findOrderWithInvoice } from '#shared/store/orders';

function assertSandbox(merchant: MerchantProfile): void {
  if (!merchant.sandbox) throw new SandboxOnlyError();
}

/**
 * What a chain watcher would report for a sandbox merchant's invoice: by default the full
 * amount with enough confirmations. Goes through the same entry point as real payments.
 */
export async function simulatePayment(
  merchant: MerchantProfile,
  orderId: unknown,
  input: { amount?: number; confirmations?: number; txid: string },
  now: Date,
): Promise<Found> {
  assertSandbox(merchant);
  if (!isId(orderId)) throw new UnknownOrderError();
  const found = await findOrderWithInvoice(orderId);
  if (!found || found.order.user_id !== merchant.user_id) throw new UnknownOrderError();
  if (!found.invoice) throw new InvoiceNotExistError();
  const payCurrency = found.invoice.pay_currency;
  const amount = input.amount === undefined ? parseDecimal(found.invoice.pay_amount) : decimalFromNumber(input.amount);
  if (decimalPlaces(amount) > currency(payCurrency).precision) {
    throw new InvalidParameterError(`amount has more decimals than ${payCurrency} has`);
  }
  return recordPayment({
    orderId,
    owner: merchant,
    amount,
    confirmations: input.confirmations ?? requiredConfirmations(payCurrency),
    txid: input.txid,
    now,
  });
}

export function simulateRefundSent(merchant: MerchantProfile, orderId: unknown, txid: string, now: Date): Promise<Found> {
  assertSandbox(merchant);
  if (!isId(orderId)) throw new UnknownOrderError();
  return completeRefund({ orderId, txid, owner: merchant, now });
}
