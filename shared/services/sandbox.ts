import { randomUUID } from 'node:crypto';
import { InvalidParameterError, SandboxOnlyError, UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { Found } from '#shared/domain/order';
import { type Decimal, isPositive, parseDecimal } from '#shared/domain/money';
import { recordPayment } from '#shared/services/payment-reports';
import { completeSandboxRefunds } from '#shared/services/refunds/sandbox';
import type { SandboxPayBody } from '#shared/schemas/orders';

/** The simulated amount, exact as sent (a decimal string, see shared/http/json-body.ts). */
/** The amount sent: a decimal string (the body reader gives a JSON number as its own text). */
function paidAmount(sent: string | number | undefined): Decimal | undefined {
  if (sent === undefined) return undefined;
  const amount = parseDecimal(String(sent));
  if (!isPositive(amount)) throw new InvalidParameterError('amount must be above 0');
  return amount;
}

function assertSandbox(merchant: MerchantProfile): void {
  if (!merchant.sandbox) throw new SandboxOnlyError();
}

/**
 * What a chain watcher would report for a sandbox merchant's invoice: by default the full
 * amount with enough confirmations, under a fresh transaction id. Goes through the same entry
 * point as real payments (one read of the order, in it).
 */
export function simulatePayment(merchant: MerchantProfile, orderId: unknown, input: Pick<SandboxPayBody, 'amount' | 'confirmations' | 'txid'>, now: Date): Promise<Found> {
  assertSandbox(merchant);
  if (!isId(orderId)) throw new UnknownOrderError();
  return recordPayment({
    orderId,
    owner: merchant,
    amount: paidAmount(input.amount),
    confirmations: input.confirmations,
    txid: input.txid ?? `sandbox-${randomUUID()}`,
    simulated: true,
    now,
  });
}

/** The sandbox's refund is sent: every refund of the order not sent yet is SENT, and the order REFUNDED. */
export function simulateRefundSent(merchant: MerchantProfile, orderId: unknown, txid: string, now: Date): Promise<Found> {
  assertSandbox(merchant);
  if (!isId(orderId)) throw new UnknownOrderError();
  return completeSandboxRefunds(merchant, orderId, txid, now);
}
