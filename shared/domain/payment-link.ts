import { currency } from '#shared/domain/currencies';
import { InvalidParameterError, LinkDisabledError, LinkExpiredError, LinkSoldOutError, ParametersMissingError } from '#shared/domain/errors';
import { compare, type Decimal, formatDecimal } from '#shared/domain/money';
import { parsePrice } from '#shared/domain/price';
import type { OrderStatus } from '#shared/domain/statuses';

/**
 * A payment link (docs/merchant-guide.md, "Payment links"): a merchant's reusable page with a fixed price or an
 * amount the buyer chooses between a minimum and a maximum. Opening it makes nothing; each
 * buyer who picks a currency gets an ordinary order (merchant_order_id `link_<link id>_<visit
 * id>`), so callbacks, the portal, exports and refunds treat it like any other.
 *
 * Quantity: a link with `quantity` has that many units. A buyer's order holds one from the
 * moment it is made (the buyer picked a currency) until it is paid (the unit is sold for good)
 * or expires or is canceled unpaid (the unit comes back), as Stripe's checkout sessions hold
 * their stock: `reserved` counts the units held or sold, and the link takes no order while it
 * equals `quantity`. Units come back lazily: when a buyer finds the link full, the holds whose
 * orders expired or were canceled are given back first (shared/services/payment-links.ts).
 */
export interface PaymentLink {
  /** Random UUID: the link's address on the payment site. */
  link_id: string;
  /** The merchant. */
  user_id: number;
  title: string;
  description: string;
  /** A fiat or stable currency: the price's, or the buyer's amount's. */
  price_currency: string;
  /** The fixed price (exact decimal text); absent when the buyer chooses the amount. */
  price_amount?: string;
  /** The buyer's amount: at least this and at most `max_amount` (both present, or neither). */
  min_amount?: string;
  max_amount?: string;
  /** The pay currencies offered (a subset of what the merchant can be paid in); absent: all of them. */
  currencies?: string[];
  /** Units to sell (1: single use); absent: no limit. */
  quantity?: number;
  /** No order after this time (ISO 8601); absent: never expires. */
  expires_at?: string;
  /** Where the buyer goes once paid ('' for none); each order's success_url. */
  success_url: string;
  /** Each order's callback_url ('' for none). */
  callback_url: string;
  /** The buyer is asked for an email address, kept as the order's `email` (receipts). */
  ask_email: boolean;
  enabled: boolean;
  created_at: string;
  updated_at: string;
  /** Orders made from the link (each buyer who picked a currency). */
  order_count: number;
  /** Units held by orders not yet settled, or sold (only counted on links with a quantity). */
  reserved: number;
}

/** Whether a link takes an order now. */
export type LinkState = 'OPEN' | 'DISABLED' | 'EXPIRED' | 'SOLD_OUT';

export const LINK_STATES: readonly LinkState[] = ['OPEN', 'DISABLED', 'EXPIRED', 'SOLD_OUT'];

/** Price currencies of a link: fiat and stable coins (a buyer reads the price in them). */
export const isLinkPriceCurrency = (code: string): boolean => {
  try {
    const kind = currency(code).kind;
    return kind === 'fiat' || kind === 'stable';
  } catch {
    return false;
  }
};

/** The link's state at `now`: disabled first, then expired, then sold out. */
export function linkState(link: Pick<PaymentLink, 'enabled' | 'expires_at' | 'quantity' | 'reserved'>, now: Date): LinkState {
  if (!link.enabled) return 'DISABLED';
  if (link.expires_at !== undefined && Date.parse(link.expires_at) <= now.getTime()) return 'EXPIRED';
  if (link.quantity !== undefined && link.reserved >= link.quantity) return 'SOLD_OUT';
  return 'OPEN';
}

/** Throws the state's refusal (409) unless the link is open. */
export function assertOpen(state: LinkState): void {
  if (state === 'DISABLED') throw new LinkDisabledError();
  if (state === 'EXPIRED') throw new LinkExpiredError();
  if (state === 'SOLD_OUT') throw new LinkSoldOutError();
}

/** Units left to sell (undefined: no limit). */
export const unitsLeft = (link: Pick<PaymentLink, 'quantity' | 'reserved'>): number | undefined => (link.quantity === undefined ? undefined : Math.max(0, link.quantity - link.reserved));

/** How a link is priced: a fixed price, or the buyer's amount within bounds. */
export interface LinkPricing {
  price_currency: string;
  price_amount?: string;
  min_amount?: string;
  max_amount?: string;
}

/** A link amount field, parsed as a price in the link's currency (above zero, its decimals); the error names the field. */
function amountField(field: string, value: unknown, priceCurrency: string): Decimal {
  try {
    return parsePrice(value, priceCurrency);
  } catch {
    throw new InvalidParameterError(`${field} must be a decimal above 0 with at most ${currency(priceCurrency).precision} decimals in ${priceCurrency}`);
  }
}

/**
 * The pricing of a new link from the request's fields: `price_amount`, or `min_amount` and
 * `max_amount` (min <= max), never both; in a fiat or stable `price_currency`.
 */
export function linkPricing(input: { price_amount?: unknown; min_amount?: unknown; max_amount?: unknown; price_currency?: string }): LinkPricing {
  const priceCurrency = input.price_currency ?? 'USD';
  if (!isLinkPriceCurrency(priceCurrency)) throw new InvalidParameterError('price_currency must be a fiat or stable currency');
  const chosen = input.min_amount !== undefined || input.max_amount !== undefined;
  if (input.price_amount !== undefined && chosen) {
    throw new InvalidParameterError('price_amount and min_amount/max_amount exclude each other: a fixed price, or the buyer chooses');
  }
  if (!chosen) {
    if (input.price_amount === undefined) throw new ParametersMissingError('price_amount');
    return { price_currency: priceCurrency, price_amount: formatDecimal(amountField('price_amount', input.price_amount, priceCurrency)) };
  }
  if (input.min_amount === undefined) throw new ParametersMissingError('min_amount');
  if (input.max_amount === undefined) throw new ParametersMissingError('max_amount');
  const min = amountField('min_amount', input.min_amount, priceCurrency);
  const max = amountField('max_amount', input.max_amount, priceCurrency);
  if (compare(min, max) > 0) throw new InvalidParameterError('min_amount must not be above max_amount');
  return { price_currency: priceCurrency, min_amount: formatDecimal(min), max_amount: formatDecimal(max) };
}

/**
 * The price of a buyer's order: the link's fixed price, or the buyer's `amount` within the
 * link's bounds (refused, naming the field, when missing, malformed or out of bounds).
 */
export function orderPriceOf(link: LinkPricing, amount: unknown): string {
  if (link.price_amount !== undefined) return link.price_amount;
  if (amount === undefined) throw new ParametersMissingError('amount');
  const value = amountField('amount', amount, link.price_currency);
  if (compare(value, amountField('min_amount', link.min_amount, link.price_currency)) < 0 || compare(value, amountField('max_amount', link.max_amount, link.price_currency)) > 0) {
    throw new InvalidParameterError(`amount must be between ${link.min_amount} and ${link.max_amount} ${link.price_currency}`);
  }
  return formatDecimal(value);
}

/** The merchant_order_id of a link's order: names the link (and the visit, so each buyer's is unique). */
export const linkReference = (linkId: string, visitId: string): string => `link_${linkId}_${visitId}`;

const REFERENCE = /^link_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_[0-9a-f-]{36}$/;

/** The link an order was made from, read from its merchant_order_id (undefined: not a link's). */
export const linkIdOfReference = (merchantOrderId: string): string | undefined => REFERENCE.exec(merchantOrderId)?.[1];

/**
 * Whether an order's unit comes back to its link: it expired or was canceled before it was paid.
 * Every other status holds the unit (a late payment to an expired order after its unit came back
 * makes it UNRESOLVED, PAID_LATE: the merchant decides, as for any late payment).
 */
export const releasesUnit = (status: OrderStatus): boolean => status === 'EXPIRED' || status === 'CANCELED';

/** Statuses whose unit is sold for good: the hold is settled and never looked at again. */
export const keepsUnit = (status: OrderStatus): boolean => status === 'PAID' || status === 'RESOLVED' || status === 'REFUND_PENDING' || status === 'REFUNDED';

/** Orders that count as paid in a link's figures (money kept: refunded ones are not). */
export const countsAsPaid = (status: OrderStatus): boolean => status === 'PAID' || status === 'RESOLVED';
