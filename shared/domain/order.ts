import type { CallbackStatuses } from '#shared/domain/merchant';
import { type Decimal, formatDecimal, parseDecimal } from '#shared/domain/money';
import type { OrderStatus } from '#shared/domain/statuses';
import type { AuditEntry } from '#shared/domain/audit';
import { assertTransition, type UnresolvedReason } from '#shared/domain/status-machine';

/**
 * An order as stored. Field names follow the contract; amounts are exact decimal strings
 * (JSON numbers are made only in the views below). Optional strings are '' when not given,
 * as MugglePay answers them, so a typed client always sees a string.
 */
export interface Order {
  order_id: string;
  user_id: number;
  merchant_order_id: string;
  title: string;
  description: string;
  callback_url: string;
  cancel_url: string;
  success_url: string;
  /** The merchant's callback validation token (never the API token). */
  token: string;
  /** The buyer's e-mail address, when the merchant gave one. */
  email?: string;
  price_amount: string;
  price_currency: string;
  pay_amount: string;
  pay_currency: string;
  /** '' until the order is paid; then the merchant's settlement currency. */
  receive_currency: string;
  /** The current invoice's settlement amount (kept on the order so callbacks need no join). */
  receive_amount?: string;
  status: OrderStatus;
  created_at: string;
  updated_at: string;
  deleted: 0;
  /** Bumped by every write; each state change is conditional on it. */
  version: number;
  mobile: boolean;
  fast: boolean;
  sandbox: boolean;
  invoice_id?: string;
  /**
   * The latest invoice that was current in each currency (currency -> invoice_id): a
   * checkout back to that currency shows it again while it is valid.
   */
  shown_invoices?: Record<string, string>;
  /**
   * While NEW: when the order expires (its invoice's expired_at, or the unpaid-order window).
   * While PENDING: when the sweep looks at it again (UNCONFIRMED_TIMEOUT_SECONDS after the
   * invoice's expiry): a payment still in no block then expires it.
   */
  due_at?: string;
  /** The merchant's payment tolerance (percent) when the order was made. */
  tolerance_percent?: string;
  /** The merchant's callback setting when the order was made (absent: 'paid'). */
  callback_statuses?: CallbackStatuses;
  /** Set when the order is (or was) UNRESOLVED. */
  unresolved_reason?: UnresolvedReason;
  /** Its refunds, summed (absent until one is asked; each refund is its own item). */
  refunds?: RefundSummary;
  /** Its status changes, oldest first (the portal's history; the last {@link MAX_HISTORY}). */
  history?: StatusChange[];
  /**
   * The Idempotency-Key of the Create Order that made it, hashed with its merchant: a retry of
   * that request whose first try wrote the order and then failed finds its own order here.
   */
  request_key?: string;
  /**
   * A subscription's period order (shared/domain/subscription.ts): its subscription, and the
   * constant the table stream's filter matches to tell the subscription of its status changes.
   * Neither is in any view of the order: MugglePay clients see an ordinary order.
   */
  subscription_id?: string;
  billed_by?: 'SUBSCRIPTION';
}

/** The refunds of an order, summed on the order itself so asking one is one conditional write on it. */
export interface RefundSummary {
  /** Refunds asked. */
  count: number;
  /** Refunds not SENT yet. */
  open: number;
  /** What they add up to, exact decimal in `currency`. */
  amount: string;
  currency: string;
}

/** One status change of an order: when, from what, and why (the UNRESOLVED reason). */
export interface StatusChange {
  from: OrderStatus;
  to: OrderStatus;
  at: string;
  reason?: UnresolvedReason;
}

/** Status changes kept on an order (an order makes few; this bounds its item anyway). */
export const MAX_HISTORY = 20;

/** What a merchant may choose for a new order (Create Order's body, validated). */
export interface OrderChoices {
  title?: string;
  description?: string;
  callback_url?: string;
  cancel_url?: string;
  success_url?: string;
  token?: string;
  email?: string;
  mobile?: boolean;
  fast?: boolean;
  pay_currency?: string;
}

/**
 * A NEW order: the merchant's choices with the contract's defaults ('' for a string not
 * given), priced in `price` of `priceCurrency` until it is checked out, due `ttlSeconds`
 * after `now` unless it is checked out first.
 */
export function newOrder(
  identity: {
    orderId: string;
    userId: number;
    reference: string;
    sandbox: boolean;
    tolerancePercent: string;
    callbackStatuses?: CallbackStatuses;
  },
  price: { amount: Decimal; currency: string },
  choices: OrderChoices,
  ttlSeconds: number,
  now: Date,
): Order {
  const createdAt = now.toISOString();
  return {
    order_id: identity.orderId,
    user_id: identity.userId,
    merchant_order_id: identity.reference,
    title: choices.title ?? '',
    description: choices.description ?? '',
    callback_url: choices.callback_url ?? '',
    cancel_url: choices.cancel_url ?? '',
    success_url: choices.success_url ?? '',
    token: choices.token ?? '',
    ...(choices.email !== undefined ? { email: choices.email } : {}),
    price_amount: formatDecimal(price.amount),
    price_currency: price.currency,
    pay_amount: formatDecimal(price.amount),
    pay_currency: price.currency,
    receive_currency: '',
    status: 'NEW',
    created_at: createdAt,
    updated_at: createdAt,
    deleted: 0,
    version: 1,
    mobile: choices.mobile ?? false,
    // `fast` means the gateway's own link: only ALIPAY and ALIGLOBAL have one.
    fast: (choices.fast ?? false) && (choices.pay_currency === 'ALIPAY' || choices.pay_currency === 'ALIGLOBAL'),
    sandbox: identity.sandbox,
    tolerance_percent: identity.tolerancePercent,
    ...(identity.callbackStatuses === 'all' ? { callback_statuses: 'all' as const } : {}),
    due_at: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
  };
}

/** The order's price as the exact decimal it was stored as. */
export const orderPrice = (order: Order): Decimal => parseDecimal(order.price_amount);

/** The order checked out with `invoice`: priced in its currency, due when it expires. */
export function checkedOutWith(order: Order, invoice: Invoice): Order {
  return {
    ...order,
    pay_amount: invoice.pay_amount,
    pay_currency: invoice.pay_currency,
    receive_amount: invoice.receive_amount,
    invoice_id: invoice.invoice_id,
    shown_invoices: { ...order.shown_invoices, [invoice.pay_currency]: invoice.invoice_id },
    due_at: invoice.expired_at,
  };
}

/**
 * Whether the order's change to its current status is called back: PAID always, any other
 * status only for merchants that opted in to every change.
 */
export function callsBackNow(order: Pick<Order, 'status' | 'callback_statuses'>): boolean {
  return order.status === 'PAID' || order.callback_statuses === 'all';
}

/** One on-chain (or gateway) payment seen for an invoice. */
export interface Payment {
  txid: string;
  /**
   * The chain's own key of this payment (`txid:vout`, `txhash:logIndex`): one transaction may
   * pay several outputs. Absent: the txid is the key (sandbox payments, gateways).
   */
  key?: string;
  /** Exact decimal in the invoice's pay currency. */
  amount: string;
  confirmations: number;
  seen_at: string;
  /** The block it was seen in; absent while unconfirmed. */
  block_height?: number;
  block_hash?: string;
  /**
   * Set when its block left the chain (a reorganisation) before the order was decided: the
   * payment no longer counts. Seen again (in a block of the new branch or the mempool), it
   * counts again with its first `seen_at`.
   */
  left_chain_at?: string;
}

/** The key a payment is idempotent by. */
export const paymentKey = (payment: Payment): string => payment.key ?? payment.txid;

/** Payments that count toward the invoice (not taken back by a reorganisation). */
export const countingPayments = (payments: readonly Payment[] | undefined): Payment[] => (payments ?? []).filter((payment) => payment.left_chain_at === undefined);

/** The payment attempt in one currency. */
export interface Invoice {
  invoice_id: string;
  order_id: string;
  user_id: number;
  merchant_order_id: string;
  pay_amount: string;
  pay_currency: string;
  receive_amount: string;
  receive_currency: string;
  status: OrderStatus;
  created_at: string;
  expired_at: string;
  /** Where the buyer pays. */
  payment_address: string;
  /** A URI a wallet opens (BIP21, EIP-681, lightning:...), also the QR code's content. */
  payment_uri: string;
  /** EOS, TON, Stellar: the memo that ties a transfer to this invoice (Solana: its reference). */
  memo?: string;
  /**
   * Where payments arrive when it is not `payment_address` (USDC_XLM: the plain account of the
   * muxed payment address): what the address index and the watcher's list name.
   */
  watched_address?: string;
  /** A gateway's own payment link (used as `payment_url` when `fast` is set). */
  gateway_url?: string;
  /** HD currencies: the child index the address was derived at under its key (operators sweep by it). */
  address_index?: number;
  rate: { numerator: string; denominator: string; source: string; as_of: string };
  /** Payments seen for this invoice (idempotent by txid). */
  payments?: Payment[];
  /** Set on a refund: the transaction that returned the funds. */
  refund_txid?: string;
}

/** An order as read, with its current invoice (none until it is checked out). */
export interface Found {
  order: Order;
  invoice: Invoice | undefined;
}

/** The next state of an order (and of its invoice, when it changes) that a use case decided. */
export interface Change {
  order: Order;
  invoice?: Invoice;
  /** Another (replaced) invoice of the order, written in the same transaction: a payment to it. */
  otherInvoice?: Invoice;
  /** The audit entry the change is recorded with, in the same transaction. */
  audit?: AuditEntry;
}

/** The next version of an order, with no status change (e.g. a payment's confirmations). */
export function touch(order: Order, now: Date): Order {
  return { ...order, version: order.version + 1, updated_at: now.toISOString() };
}

/**
 * Moves an order (and its invoice, in step) along one edge of the status machine. PAID fixes
 * the settlement currency on the order; UNRESOLVED records why.
 */
export function moveTo(found: Found, to: OrderStatus, now: Date, details: { reason?: UnresolvedReason; invoice?: Invoice } = {}): Change {
  assertTransition(found.order.status, to);
  const invoice = details.invoice ?? found.invoice;
  const order: Order = {
    ...touch(found.order, now),
    status: to,
    // Back to NEW (its payment left the chain): due when its invoice expires, as before.
    ...(to === 'NEW' && invoice ? { due_at: invoice.expired_at } : {}),
    ...(to === 'PAID' && invoice ? { receive_currency: invoice.receive_currency } : {}),
    ...(details.reason ? { unresolved_reason: details.reason } : {}),
    history: [...(found.order.history ?? []), { from: found.order.status, to, at: now.toISOString(), ...(details.reason ? { reason: details.reason } : {}) }].slice(-MAX_HISTORY),
  };
  return { order, invoice: invoice && { ...invoice, status: to } };
}
