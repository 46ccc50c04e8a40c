import { randomUUID } from 'node:crypto';
import { SandboxOnlyError, UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { Found } from '#shared/domain/order';
import { decimalFromNumber } from '#shared/domain/money';
import { completeRefund, recordPayment } from '#shared/services/lifecycle';

function assertSandbox(merchant: MerchantProfile): void {
  if (!merchant.sandbox) throw new SandboxOnlyError();
}

/**
 * What a chain watcher would report for a sandbox merchant's invoice: by default the full
 * amount with enough confirmations, under a fresh transaction id. Goes through the same entry
 * point as real payments (one read of the order, in it).
 */
export function simulatePayment(
  merchant: MerchantProfile,
  orderId: unknown,
  input: { amount?: number; confirmations?: number; txid?: string },
  now: Date,
): Promise<Found> {
  assertSandbox(merchant);
  if (!isId(orderId)) throw new UnknownOrderError();
  return recordPayment({
    orderId,
    owner: merchant,
    amount: input.amount === undefined ? undefined : decimalFromNumber(input.amount),
    confirmations: input.confirmations,
    txid: input.txid ?? `sandbox-${randomUUID()}`,
    now,
  });
}

export function simulateRefundSent(merchant: MerchantProfile, orderId: unknown, txid: string, now: Date): Promise<Found> {
  assertSandbox(merchant);
  if (!isId(orderId)) throw new UnknownOrderError();
  return completeRefund({ orderId, txid, owner: merchant, now });
}
