/**
 * Booking what a watcher found on invoices, the half of a watcher that is not about its chain:
 * look every transfer's address up in the address index (one BatchGetItem per 100), group the
 * payments by the invoice they pay, and record each invoice's together through the one entry
 * point of services/payment-reports.ts (recordPayments, idempotent by each payment's own key).
 * The block watcher (block-watcher.ts) and the indexed one (indexed-watcher.ts) book here.
 *
 * The index dispatches by its item's kind: a transfer to a buyer's refund address (store/
 * refund-watches.ts) is booked on the refund it pays through services/refunds.ts
 * (recordRefundPayment, idempotent by the payment's key) instead: {@link bookRefundPayment}.
 */
import { InvoiceNotExistError, PaymentNotBookableError, RefundNotFoundError, UnknownOrderError } from '#shared/domain/errors';
import { compare, formatDecimal, parseDecimal } from '#shared/domain/money';
import { type PaymentReport, recordPayments } from '#shared/services/payment-reports';
import { recordRefundPayment } from '#shared/services/refunds';
import { findTargetsByAddresses, paidAddressId, type RefundTarget } from '#shared/store/address-index';
import { claimRefundPayment, stopWatchingRefund } from '#shared/store/refund-watches';
import type { Transfer } from '#shared/watchers/sources/port';

/** The invoice an address-index entry points at. */
export interface InvoiceRef {
  orderId: string;
  invoiceId: string;
}

/** One invoice and the transfers that pay it, in the order they were found. */
export interface InvoiceTransfers<T> {
  target: InvoiceRef;
  payments: T[];
}

/** Transfers to one refund address and the refunds waiting on it (oldest first; none once all are sent). */
export interface RefundTransfers {
  refunds: RefundTarget[];
  payments: Transfer[];
}

/** Transfers matched to invoices, grouped per invoice, those to refund addresses, and those that found none. */
export interface Matches {
  invoices: InvoiceTransfers<Transfer>[];
  refunds: RefundTransfers[];
  unmatched: Transfer[];
  /** Address-index lookups made (unique addresses). */
  lookups: number;
}

/** Looks the transfers' addresses up in the address index and groups them by the invoice (or refund address) they pay. */
export async function matchInvoices(transfers: readonly Transfer[]): Promise<Matches> {
  const found = await findTargetsByAddresses(transfers);
  const unmatched: Transfer[] = [];
  const byInvoice = new Map<string, InvoiceTransfers<Transfer>>();
  const byRefundAddress = new Map<string, RefundTransfers>();
  for (const transfer of transfers) {
    const id = paidAddressId(transfer);
    const target = found.get(id);
    if (!target) {
      unmatched.push(transfer);
      continue;
    }
    if (target.kind === 'invoice') {
      groupInto(byInvoice, { orderId: target.orderId, invoiceId: target.invoiceId }, transfer);
      continue;
    }
    const group = byRefundAddress.get(id) ?? { refunds: target.refunds, payments: [] };
    group.payments.push(transfer);
    byRefundAddress.set(id, group);
  }
  return { invoices: [...byInvoice.values()], refunds: [...byRefundAddress.values()], unmatched, lookups: new Set(transfers.map(paidAddressId)).size };
}

/** Adds `payment` to its invoice's group (created on first use). */
export function groupInto<T>(groups: Map<string, InvoiceTransfers<T>>, target: InvoiceRef, payment: T): InvoiceTransfers<T> {
  const id = `${target.orderId}/${target.invoiceId}`;
  const group = groups.get(id) ?? { target, payments: [] };
  group.payments.push(payment);
  groups.set(id, group);
  return group;
}

/** What a payment report says beyond its invoice and transfer. */
export interface ReportFacts {
  confirmations: number;
  now: Date;
  /**
   * Name the transfer's currency and when it was paid (sources that report only final
   * payments, LND and Hyperion, know both): an invoice in another currency is not paid by it,
   * and the late rule judges the source's time.
   */
  final?: boolean;
}

/** The payment report (services/payment-reports.ts) of one transfer to `target`. */
export function paymentReport(target: InvoiceRef, transfer: Transfer, { confirmations, now, final = false }: ReportFacts): PaymentReport {
  const base = { orderId: target.orderId, invoiceId: target.invoiceId, amount: transfer.amount, confirmations, txid: transfer.txid, key: transfer.key };
  if (!final) return { ...base, block: transfer.block, now };
  return {
    ...base,
    currency: transfer.currency,
    ...(transfer.block ? { block: transfer.block } : {}),
    ...(transfer.at ? { seenAt: transfer.at } : {}),
    now,
  };
}

/**
 * Why an invoice's payments can never be booked: the index points at an order or invoice that
 * is gone, or an amount is finer than the invoice's currency (another currency's transfer to
 * the same address).
 */
export type Unbookable = 'ORDER_GONE' | 'NOT_BOOKABLE';

/** Records one invoice's payments together; undefined when booked, else why they never will be (other errors throw). */
export async function bookInvoice(reports: readonly PaymentReport[]): Promise<Unbookable | undefined> {
  try {
    await recordPayments(reports);
    return undefined;
  } catch (error) {
    if (error instanceof UnknownOrderError || error instanceof InvoiceNotExistError) return 'ORDER_GONE';
    if (error instanceof PaymentNotBookableError) return 'NOT_BOOKABLE';
    throw error;
  }
}

/** A transfer more than this before a refund's address was set cannot pay it (clocks differ). */
const REFUND_SINCE_MARGIN_MS = 60_000;

/**
 * The refund a transfer to a refund address pays, of those waiting on it (oldest first): the
 * oldest of exactly its amount, else the oldest it pays in full, else the oldest (a short
 * payment, shown on it). A transfer whose time is known and before a refund's address was set
 * does not pay that one. Undefined: none can, or the refunds it could pay are of more than one
 * merchant (a buyer gave two shops one address): a transfer does not say who sent it, so the
 * watcher books it on none rather than complete one merchant's refund with another's money;
 * each merchant then reports its own transaction (checked on chain and claimed once).
 */
export function refundPaidBy(refunds: readonly RefundTarget[], transfer: Pick<Transfer, 'amount' | 'at'>): RefundTarget | undefined {
  const candidates = transfer.at ? refunds.filter((refund) => transfer.at!.getTime() >= Date.parse(refund.since) - REFUND_SINCE_MARGIN_MS) : refunds;
  if (new Set(candidates.map((refund) => refund.userId)).size > 1) return undefined;
  return (
    candidates.find((refund) => compare(parseDecimal(refund.amount), transfer.amount) === 0) ??
    candidates.find((refund) => compare(parseDecimal(refund.amount), transfer.amount) < 0) ??
    candidates[0]
  );
}

/**
 * Books one transfer on the refund it pays (services/refunds.ts recordRefundPayment). Final: the
 * refund is claimed for the transfer's key first (store/refund-watches.ts: a transfer seen again
 * pays the refund it paid the first time, never a second one), and once the refund is SENT its
 * address no longer names it. Not final: reported as seen on the refund it would pay. Undefined
 * when no refund waits on the address (all sent): nothing to book.
 */
export async function bookRefundPayment(
  refunds: readonly RefundTarget[],
  transfer: Transfer,
  { final, now }: { final: boolean; now: Date },
  chosen: RefundTarget | undefined = refundPaidBy(refunds, transfer),
): Promise<'SENT' | 'SHORT' | 'IGNORED' | undefined> {
  if (!chosen) return undefined;
  const refund = final ? await claimRefundPayment(transfer.currency, transfer.key, chosen) : chosen;
  const outcome = await recordRefundPayment({
    userId: refund.userId,
    orderId: refund.orderId,
    refundId: refund.refundId,
    key: transfer.key,
    txid: transfer.txid,
    amount: formatDecimal(transfer.amount),
    final,
    now,
  }).catch((error: unknown) => {
    // Its order is gone: nothing to book it on.
    if (error instanceof RefundNotFoundError) return 'IGNORED' as const;
    throw error;
  });
  if (outcome === 'SENT') await stopWatchingRefund({ currency: transfer.currency, address: transfer.address, ...(transfer.memo ? { memo: transfer.memo } : {}), refundId: refund.refundId });
  return outcome;
}
