/**
 * Refunds (docs/merchant-guide.md, "Refunds"): the service holds no keys, so the merchant pays a refund from
 * their own wallet and the service does everything around it. A refund is asked for an amount
 * in the paid invoice's currency; the buyer sets its address through a one-time link; it is
 * SENT when a final transfer of its amount to that address is seen (or a reported transaction
 * checks out on chain). Pure: amounts, limits and steps take values and return values.
 */
import { currency } from '#shared/domain/currencies';
import { add, compare, type Decimal, decimalPlaces, formatDecimal, isPositive, parseDecimal, subtract, ZERO } from '#shared/domain/money';
import { type Change, countingPayments, type Invoice, type Order, type RefundSummary } from '#shared/domain/order';

export type RefundStatus = 'AWAITING_ADDRESS' | 'AWAITING_PAYMENT' | 'SENT';

export const REFUND_STATUSES: readonly RefundStatus[] = ['AWAITING_ADDRESS', 'AWAITING_PAYMENT', 'SENT'];

/**
 * How the amount was chosen, as BTCPay offers it: `crypto` the crypto amount paid (what is left
 * of it), `overpaid` what an UNRESOLVED order was paid beyond its invoice, `fiat` a fiat value
 * (the order's price by default) at today's rate, `custom` an amount in the paid currency.
 */
export type RefundBasis = 'crypto' | 'overpaid' | 'fiat' | 'custom';

export const REFUND_BASES: readonly RefundBasis[] = ['crypto', 'overpaid', 'fiat', 'custom'];

/** The rate a `fiat` refund was converted at, locked when it was asked. */
export interface RefundRate {
  /** The fiat value refunded, exact decimal in `fiat_currency`. */
  fiat_amount: string;
  fiat_currency: string;
  /** 1 unit of the refund's currency is worth numerator / denominator of `fiat_currency`. */
  numerator: string;
  denominator: string;
  source: string;
  as_of: string;
}

/** A final transfer to the refund's address of less than its amount: shown, never completes it. */
export interface ShortRefundPayment {
  key: string;
  txid: string;
  amount: string;
  seen_at: string;
}

export interface Refund {
  refund_id: string;
  order_id: string;
  user_id: number;
  status: RefundStatus;
  /** The paid invoice's pay currency code: what is refunded, and on which network. */
  currency: string;
  /** Exact decimal string in `currency` (never a float). */
  amount: string;
  /** Set by the buyer through the one-time refund link (EOS: account + memo; LBTC: the BOLT11 invoice). */
  address?: string;
  memo?: string;
  /** Set when SENT. */
  txid?: string;
  /** The chain's key of the transfer that made it SENT (idempotency of its report). */
  sent_key?: string;
  created_at: string;
  address_set_at?: string;
  sent_at?: string;
  /** The invoice whose payment is refunded. */
  invoice_id: string;
  basis: RefundBasis;
  rate?: RefundRate;
  /** The merchant's note (shown to the buyer on the refund page). */
  reason?: string;
  sandbox: boolean;
  /**
   * Which refund link is valid: bumped when the merchant issues a new one. The link's secret is
   * derived from it (shared/services/refund-links.ts); the table holds only the secret's hash,
   * and only while the link may be used (no address set yet).
   */
  link_version: number;
  link_hash?: string;
  short_payments?: ShortRefundPayment[];
}

/**
 * A refund as the merchant is told of it (Get Order, the callback): never its link's hash; the
 * link itself only while the buyer may still use it.
 */
export interface RefundNotice {
  refund_id: string;
  status: RefundStatus;
  amount: string;
  currency: string;
  address: string | null;
  memo: string | null;
  txid: string | null;
  /** The one-time link for the buyer (until an address is set). */
  refund_url: string | null;
  created_at: string;
  sent_at: string | null;
}

/** What a refund tells the merchant (the link given when it is still usable). */
export function refundNotice(refund: Refund, refundUrl: string | undefined): RefundNotice {
  return {
    refund_id: refund.refund_id,
    status: refund.status,
    amount: refund.amount,
    currency: refund.currency,
    address: refund.address ?? null,
    memo: refund.memo ?? null,
    txid: refund.txid ?? null,
    refund_url: refund.status === 'AWAITING_ADDRESS' ? (refundUrl ?? null) : null,
    created_at: refund.created_at,
    sent_at: refund.sent_at ?? null,
  };
}

/** A change of an order that writes refunds too (shared/services/order-changes.ts commits them together). */
export interface RefundingChange extends Change {
  /** Refunds of the order written in the same transaction (asked, addressed, sent). */
  refunds?: Refund[];
  /** Every refund of the order after the change, for its callback (when it makes one). */
  callbackRefunds?: readonly RefundNotice[];
}

/** Refunds one order may have (each is an item in its partition; a bound keeps the order's reads bounded). */
export const MAX_REFUNDS_PER_ORDER = 20;

/** Longest reason a merchant may give. */
export const MAX_REFUND_REASON_CHARS = 200;

/** Why a refund cannot be asked (the message of a 400). */
export class RefundRefusal extends Error {}

/** What was paid to an invoice (payments taken back by a reorganisation do not count). */
export function paidTo(invoice: Invoice): Decimal {
  return countingPayments(invoice.payments).reduce((total, payment) => add(total, parseDecimal(payment.amount)), ZERO);
}

/** Statuses a refund may be asked in (REFUND_PENDING: a further partial refund, while the others wait). */
export const REFUNDABLE_STATUSES = ['PAID', 'UNRESOLVED', 'REFUND_PENDING'] as const;

/**
 * The most that may still be refunded on an order: what was paid to its current invoice less
 * what its refunds already add up to. `overpaid` is an UNRESOLVED order's payment beyond its
 * invoice's amount (zero when it was not overpaid).
 */
export function refundable(order: Order, invoice: Invoice): { left: Decimal; overpaid: Decimal; paid: Decimal } {
  const paid = paidTo(invoice);
  const asked = order.refunds ? parseDecimal(order.refunds.amount) : ZERO;
  const beyond = subtract(paid, parseDecimal(invoice.pay_amount));
  const left = subtract(paid, asked);
  const overpaid = order.status === 'UNRESOLVED' && isPositive(beyond) ? beyond : ZERO;
  return { left: isPositive(left) ? left : ZERO, overpaid: compare(overpaid, left) > 0 ? left : overpaid, paid };
}

/**
 * Checks an amount against what is left and the currency's precision; throws
 * {@link RefundRefusal} with the reason a merchant can act on.
 */
export function checkRefundAmount(amount: Decimal, left: Decimal, code: string): void {
  if (!isPositive(amount)) throw new RefundRefusal('amount must be above 0');
  const precision = currency(code).precision;
  if (decimalPlaces(amount) > precision) throw new RefundRefusal(`amount has more decimals than ${code} has (${precision})`);
  if (!isPositive(left)) throw new RefundRefusal('the order has nothing left to refund: its refunds add up to what was paid');
  if (compare(amount, left) > 0) {
    throw new RefundRefusal(`amount ${formatDecimal(amount)} ${code} is more than what is left to refund (${formatDecimal(left)} ${code})`);
  }
}

/** The order's refund summary with one more refund of `amount`. */
export function withRefund(summary: RefundSummary | undefined, amount: Decimal, code: string): RefundSummary {
  return {
    count: (summary?.count ?? 0) + 1,
    open: (summary?.open ?? 0) + 1,
    amount: formatDecimal(add(summary ? parseDecimal(summary.amount) : ZERO, amount)),
    currency: code,
  };
}

/** Whether a transfer of `paid` settles the refund (its amount or more). */
export const settles = (refund: Refund, paid: Decimal): boolean => compare(paid, parseDecimal(refund.amount)) >= 0;

/** The refund paid by `payment`: SENT, its address no longer changeable. */
export function sentRefund(refund: Refund, payment: { key: string; txid: string }, now: Date): Refund {
  return { ...refund, status: 'SENT', txid: payment.txid, sent_key: payment.key, sent_at: now.toISOString() };
}

/** A short payment recorded on the refund (idempotent by its key). */
export function withShortPayment(refund: Refund, payment: ShortRefundPayment): Refund {
  const others = (refund.short_payments ?? []).filter((seen) => seen.key !== payment.key);
  return { ...refund, short_payments: [...others, payment] };
}
