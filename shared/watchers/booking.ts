/**
 * Booking what a watcher found, the half of a watcher that is not about its chain, and the
 * one place every watcher books (the block watcher, block-watcher.ts, and the indexed one,
 * indexed-watcher.ts, follow their chains and hand what they found to a {@link Booking}):
 * look every transfer's address up in the address index (one BatchGetItem per 100), group the
 * payments by the invoice they pay, and record each invoice's together through the one entry
 * point of services/payment-reports.ts (recordPayments, idempotent by each payment's own key);
 * take back a payment whose block left the chain (retractPayment).
 *
 * The index dispatches by its item's kind: a transfer to a buyer's refund address (store/
 * refund-watches.ts) is booked on the refund it pays through services/refunds/payments.ts
 * (recordRefundPayment, idempotent by the payment's key) instead: {@link bookRefundPayment}.
 *
 * A payment that can never be booked (its order or invoice is gone, or its invoice refuses it:
 * PaymentNotBookableError) is kept as an unmatched payment in the watcher's chain partition
 * (store/unmatched-payments.ts), with its reason, for an operator; so is, from an indexed
 * source, one that names no invoice at all (and under the merchants whose own wallet it paid).
 */
import { InvoiceNotExistError, PaymentNotBookableError, RefundNotFoundError, UnknownOrderError } from '#shared/domain/errors';
import { compare, formatDecimal, parseDecimal } from '#shared/domain/money';
import { confirmationsRequired } from '#shared/chains/confirmations';
import { type PaymentReport, recordPayments, retractPayment, type Retraction } from '#shared/services/payment-reports';
import { recordRefundPayment } from '#shared/services/refunds/payments';
import { findTargetsByAddresses, paidAddressId, type RefundTarget } from '#shared/store/address-index';
import { claimRefundPayment, stopWatchingRefund } from '#shared/store/refund-watches';
import { saveUnmatchedPayment } from '#shared/store/unmatched-payments';
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

/** Records one invoice's payments together; undefined when booked, else why they never will be (other errors throw). {@link Booking.invoice} keeps those as unmatched. */
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
    candidates.find((refund) => compare(parseDecimal(refund.amount), transfer.amount) === 0) ?? candidates.find((refund) => compare(parseDecimal(refund.amount), transfer.amount) < 0) ?? candidates[0]
  );
}

/**
 * Books one transfer on the refund it pays (services/refunds/payments.ts recordRefundPayment). Final: the
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

/** A payment no invoice took, and why (see the module's comment). */
export interface UnmatchedTransfer {
  transfer: Transfer;
  reason: 'NO_INVOICE' | Unbookable;
  /** False when an earlier run already kept it (it is kept once; always true where nothing is kept). */
  first: boolean;
  /** It paid a merchant's own wallet (TON, Stellar): kept for that merchant too, whose portal shows it; not the operator's to return. */
  owned: boolean;
}

/** Where and what a watcher's {@link Booking} keeps of the payments it cannot book. */
export interface BookingOptions {
  /** The partition unmatched payments are kept in: the chain's (the watcher's cursor name; tests use their own). */
  chain: string;
  /**
   * Keep unmatched payments in the table (default true). False: only reported (LND: its node
   * may serve other applications, whose settled invoices are not ours).
   */
  keepUnmatched?: boolean;
  /**
   * A transfer the address index names nothing for is unmatched too (default false). An indexed
   * source's transfers are all to our accounts; a block chain's are anyone's, not ours to keep.
   */
  unmatchedWithoutInvoice?: boolean;
  /** The merchants whose own wallet `address` is (TON, Stellar), under whom its unmatched payments are kept too. */
  ownersOf?: (address: string, now: Date) => number[];
}

/** An invoice's payment, or a refund's, a block short of its confirmations. */
export type ShortOf = { invoice: InvoiceRef } | { refund: RefundTarget };

/** How the transfers a watcher found stand on its chain as they are booked. */
export interface Standing {
  now: Date;
  /** A transfer's confirmations now. */
  confirmations: (transfer: Transfer) => number;
  /**
   * Reported final (LND's settled invoices, irreversible blocks): each counts as confirmed
   * whether or not it names a block, and its report names its currency and time ({@link paymentReport}).
   */
  final?: boolean;
  /**
   * Called for a transfer in a block short of its currency's confirmations before it is
   * reported as seen (the block watcher keeps it as maturing, to book it final later); false:
   * report it not now (an invoice has it already). Default: reported.
   */
  short?: (transfer: Transfer, of: ShortOf) => Promise<boolean>;
}

/** What one {@link Booking.book} (or {@link Booking.invoice}) did. */
export interface Booked {
  /** Address-index lookups made (unique addresses). */
  lookups: number;
  /** The transfers booked on invoices. */
  invoices: Transfer[];
  /** Payments booked final on refunds. */
  refunds: number;
  unmatched: UnmatchedTransfer[];
}

/** One watcher's booking: what it found, matched to invoices and refunds and booked; what cannot be, kept as unmatched. */
export class Booking {
  private readonly keepUnmatched: boolean;
  private readonly withoutInvoice: boolean;
  private readonly ownersOf: (address: string, now: Date) => number[];

  constructor(private readonly options: BookingOptions) {
    this.keepUnmatched = options.keepUnmatched ?? true;
    this.withoutInvoice = options.unmatchedWithoutInvoice ?? false;
    this.ownersOf = options.ownersOf ?? (() => []);
  }

  /**
   * Books the transfers a watcher found: those to refund addresses on their refunds, each
   * invoice's together; one that names no invoice is unmatched where the options say so (but an
   * outgoing one, the account's own business), and one its invoice cannot take is kept unmatched.
   */
  async book(transfers: readonly Transfer[], standing: Standing): Promise<Booked> {
    const booked: Booked = { lookups: 0, invoices: [], refunds: 0, unmatched: [] };
    if (transfers.length === 0) return booked;
    const { invoices, refunds, unmatched, lookups } = await matchInvoices(transfers);
    booked.lookups = lookups;
    if (this.withoutInvoice) {
      for (const transfer of unmatched) if (!transfer.outgoing) booked.unmatched.push(await this.unmatched(transfer, 'NO_INVOICE', standing.now));
    }
    for (const group of refunds) booked.refunds += await this.refunds(group, standing);
    for (const { target, payments } of invoices) {
      const paid: Paid[] = [];
      for (const transfer of payments) {
        const confirmations = standing.confirmations(transfer);
        if (this.isShort(transfer, confirmations, standing) && !(await (standing.short?.(transfer, { invoice: target }) ?? true))) continue;
        paid.push({ transfer, confirmations });
      }
      const done = await this.invoice(target, paid, standing);
      booked.invoices.push(...done.invoices);
      booked.unmatched.push(...done.unmatched);
    }
    return booked;
  }

  /**
   * Books one invoice's payments together (their confirmations as given: payments maturing
   * together are booked here too); if the invoice can never take them, each is kept unmatched
   * with the reason.
   */
  async invoice(target: InvoiceRef, paid: readonly Paid[], { now, final = false }: Pick<Standing, 'now' | 'final'>): Promise<Booked> {
    const booked: Booked = { lookups: 0, invoices: [], refunds: 0, unmatched: [] };
    if (paid.length === 0) return booked;
    const reason = await bookInvoice(paid.map(({ transfer, confirmations }) => paymentReport(target, transfer, { confirmations, now, final })));
    if (reason === undefined) booked.invoices.push(...paid.map(({ transfer }) => transfer));
    else for (const { transfer } of paid) booked.unmatched.push(await this.unmatched(transfer, reason, now));
    return booked;
  }

  /** Books a refund's payment that reached its confirmations, on the refund it was found paying ({@link bookRefundPayment}). */
  async matured(refund: RefundTarget, transfer: Transfer, now: Date): Promise<void> {
    await bookRefundPayment([refund], transfer, { final: true, now }, refund);
  }

  /** Takes back a payment whose block left the chain (payment-reports.ts retractPayment); `absent` when its order is gone. */
  retract(payment: { orderId: string; invoiceId: string; key: string; now: Date }): Promise<Retraction> {
    return retractPayment(payment).catch((error: unknown) => {
      if (error instanceof UnknownOrderError) return 'absent' as const;
      throw error;
    });
  }

  /** Final payments booked on the refunds they pay; one short of its confirmations is reported as seen on the one it would pay. */
  private async refunds({ refunds, payments }: RefundTransfers, standing: Standing): Promise<number> {
    let final = 0;
    for (const transfer of payments) {
      const refund = refundPaidBy(refunds, transfer);
      if (!refund) continue;
      const confirmations = standing.confirmations(transfer);
      const short = this.isShort(transfer, confirmations, standing);
      if (short) await standing.short?.(transfer, { refund });
      const isFinal = standing.final === true || (transfer.block !== undefined && !short);
      const outcome = await bookRefundPayment(refunds, transfer, { final: isFinal, now: standing.now }, refund);
      if (isFinal && outcome !== undefined) final += 1;
    }
    return final;
  }

  /** In a block, short of its currency's confirmations (never, for a source that reports final payments). */
  private isShort(transfer: Transfer, confirmations: number, standing: Standing): boolean {
    return standing.final !== true && transfer.block !== undefined && confirmations < confirmationsRequired(transfer.currency);
  }

  /** Keeps a payment no invoice takes (store/unmatched-payments.ts), under the merchants whose wallet it paid too. */
  private async unmatched(transfer: Transfer, reason: UnmatchedTransfer['reason'], now: Date): Promise<UnmatchedTransfer> {
    if (!this.keepUnmatched) return { transfer, reason, first: true, owned: false };
    const payment = {
      chain: this.options.chain,
      key: transfer.key,
      txid: transfer.txid,
      currency: transfer.currency,
      amount: formatDecimal(transfer.amount),
      address: transfer.address,
      ...(transfer.memo !== undefined ? { memo: transfer.memo } : {}),
      reason,
      seen_at: (transfer.at ?? now).toISOString(),
    };
    const owners = transfer.outgoing ? [] : this.ownersOf(transfer.address, now);
    const first = await saveUnmatchedPayment(payment, owners);
    return { transfer, reason, first, owned: owners.length > 0 };
  }
}

/** A transfer to an invoice and its confirmations now. */
export interface Paid {
  transfer: Transfer;
  confirmations: number;
}
