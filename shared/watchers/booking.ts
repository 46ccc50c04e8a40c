/**
 * Booking what a watcher found on invoices, the half of a watcher that is not about its chain:
 * look every transfer's address up in the address index (one BatchGetItem per 100), group the
 * payments by the invoice they pay, and record each invoice's together through the one entry
 * point of services/payment-reports.ts (recordPayments, idempotent by each payment's own key).
 * The block watcher (block-watcher.ts) and the indexed one (indexed-watcher.ts) book here.
 */
import { InvalidParameterError, InvoiceNotExistError, UnknownOrderError } from '#shared/domain/errors';
import { type PaymentReport, recordPayments } from '#shared/services/payment-reports';
import { findInvoicesByAddresses, paidAddressId } from '#shared/store/address-index';
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

/** Transfers matched to invoices, grouped per invoice, and those that found none. */
export interface Matches {
  invoices: InvoiceTransfers<Transfer>[];
  unmatched: Transfer[];
  /** Address-index lookups made (unique addresses). */
  lookups: number;
}

/** Looks the transfers' addresses up in the address index and groups them by the invoice they pay. */
export async function matchInvoices(transfers: readonly Transfer[]): Promise<Matches> {
  const found = await findInvoicesByAddresses(transfers);
  const unmatched: Transfer[] = [];
  const byInvoice = new Map<string, InvoiceTransfers<Transfer>>();
  for (const transfer of transfers) {
    const target = found.get(paidAddressId(transfer));
    if (!target) {
      unmatched.push(transfer);
      continue;
    }
    groupInto(byInvoice, target, transfer);
  }
  return { invoices: [...byInvoice.values()], unmatched, lookups: new Set(transfers.map(paidAddressId)).size };
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
    if (error instanceof InvalidParameterError) return 'NOT_BOOKABLE';
    throw error;
  }
}
