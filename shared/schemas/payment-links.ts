import type { FromSchema } from 'json-schema-to-ts';
import { PAY_CURRENCIES, PRICE_CURRENCIES } from '#shared/domain/currencies';
import { MAX_LINK_QUANTITY } from '#shared/domain/limits';
import { isLinkPriceCurrency, LINK_STATES, linkState, type PaymentLink, unitsLeft } from '#shared/domain/payment-link';

/**
 * Payment links (beyond the MugglePay contract): the merchant API's and the portal's request
 * schemas, the buyer's on the link page, and the views that make their answers. Bodies are
 * strict (an unknown field is refused, naming it): no MugglePay client sends these.
 */

/** An amount: a JSON number or a decimal string; its value is checked by the domain, which names the field. */
const decimal = { type: ['number', 'string'], maxLength: 40 } as const;
const url = { type: 'string', maxLength: 2048, format: 'http-url', description: 'Absolute http(s) URL.' } as const;
const LINK_PRICE_CURRENCIES = PRICE_CURRENCIES.filter(isLinkPriceCurrency);
const ISO_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:\\d{2})$';

const editable = {
  title: { type: 'string', minLength: 1, maxLength: 200, description: "What the buyer pays for: the link page's heading and each order's title." },
  description: { type: 'string', maxLength: 800, description: "Shown under the title; each order's description." },
  currencies: {
    type: 'array',
    minItems: 1,
    maxItems: PAY_CURRENCIES.length,
    uniqueItems: true,
    items: { type: 'string', enum: PAY_CURRENCIES },
    description: 'The pay currencies offered, among those the merchant can be paid in (one it cannot, such as a gateway not enabled for it or not configured, is refused). Default: all of them.',
  },
  quantity: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_LINK_QUANTITY,
    description: `Units to sell, 1 to ${MAX_LINK_QUANTITY}. Each buyer's order is one unit: a buyer who picks a currency holds one until the order is paid (sold) or expires or is canceled unpaid (given back). Default: no limit.`,
  },
  expires_at: { type: 'string', maxLength: 40, pattern: ISO_TIME, description: 'No new order after this time (ISO 8601, in the future). Default: never.' },
  success_url: { ...url, description: 'Where the buyer goes once paid.' },
  callback_url: { ...url, description: "Each order's callback_url: a signed POST on its status changes." },
  ask_email: { type: 'boolean', description: "Ask the buyer for an email address (kept as the order's email, for the receipt). Default false." },
} as const;

export const createLinkBodySchema = {
  $id: 'CreateLinkBody',
  type: 'object',
  additionalProperties: false,
  required: ['title'],
  properties: {
    ...editable,
    price_amount: { ...decimal, description: 'A fixed price in price_currency. Or min_amount and max_amount: the buyer chooses.' },
    min_amount: { ...decimal, description: 'The least a buyer may choose to pay (with max_amount; not with price_amount).' },
    max_amount: { ...decimal, description: 'The most a buyer may choose to pay.' },
    price_currency: { type: 'string', enum: LINK_PRICE_CURRENCIES, default: 'USD', description: 'A fiat or stable currency. Default USD.' },
    single_use: { type: 'boolean', description: 'One buyer only: the same as quantity 1.' },
  },
} as const;
export type CreateLinkBody = FromSchema<typeof createLinkBodySchema>;

/** Optional settings a change may take away (JSON null reads as an absent field here). */
export const REMOVABLE_LINK_FIELDS = ['currencies', 'quantity', 'expires_at'] as const;

export const updateLinkBodySchema = {
  $id: 'UpdateLinkBody',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    ...editable,
    enabled: { type: 'boolean', description: 'false: the link takes no new order (its page says so); true: it takes them again.' },
    remove: {
      type: 'array',
      maxItems: REMOVABLE_LINK_FIELDS.length,
      uniqueItems: true,
      items: { type: 'string', enum: REMOVABLE_LINK_FIELDS },
      description: 'Optional settings to take away: every currency offered again, no quantity limit, no expiry.',
    },
  },
} as const;
export type UpdateLinkBody = FromSchema<typeof updateLinkBodySchema>;

export const listLinksQuerySchema = {
  $id: 'ListLinksQuery',
  type: 'object',
  additionalProperties: true,
  maxProperties: 20,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 20, description: 'Links per page, 1..50. Default 20.' },
    cursor: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9_-]*$', description: "The previous page's next_cursor." },
  },
} as const;
export type ListLinksQuery = FromSchema<typeof listLinksQuerySchema>;

/** What the buyer sends from the link page: the currency, the amount (buyer-chosen links) and an email (when asked). */
export const linkOrderBodySchema = {
  $id: 'LinkOrderBody',
  type: 'object',
  additionalProperties: false,
  required: ['pay_currency'],
  properties: {
    pay_currency: { type: 'string', enum: PAY_CURRENCIES, description: "One of the link page answer's `currencies`." },
    amount: { ...decimal, description: "Links where the buyer chooses: the amount, in the link's price_currency, within its bounds." },
    email: { type: 'string', maxLength: 254, format: 'email-address', description: "Links that ask for it: the buyer's email address (one address, local@domain, nothing else)." },
  },
} as const;
export type LinkOrderBody = FromSchema<typeof linkOrderBodySchema>;

// --- Views -----------------------------------------------------------------------------------

const nullable = <const T extends object>(schema: T) => ({ oneOf: [schema, { type: 'null' }] }) as const;
const amountText = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'An exact decimal.' } as const;
const time = { type: 'string', description: 'ISO 8601 time.' } as const;

/** A link's fields as the merchant sees them (the portal's answers add its figures). */
export const linkProperties = {
  link_id: { type: 'string', format: 'uuid', description: 'The link id.' },
  url: { type: 'string', description: 'The link page on the payment site: share it, or its QR code.' },
  title: editable.title,
  description: editable.description,
  price_currency: { type: 'string', enum: LINK_PRICE_CURRENCIES },
  price_amount: { ...nullable(amountText), description: 'The fixed price, or null when the buyer chooses.' },
  min_amount: { ...nullable(amountText), description: 'The least a buyer may choose, or null (a fixed price).' },
  max_amount: { ...nullable(amountText), description: 'The most a buyer may choose, or null (a fixed price).' },
  currencies: { ...nullable(editable.currencies), description: 'The pay currencies offered, or null: all those the merchant can be paid in.' },
  quantity: { ...nullable(editable.quantity), description: 'Units to sell, or null: no limit.' },
  units_left: { ...nullable({ type: 'integer', minimum: 0 }), description: 'Units neither sold nor held by a checkout in progress, or null: no limit.' },
  expires_at: { ...nullable(time), description: 'When the link stops taking orders, or null: never.' },
  success_url: { type: 'string', description: "Where the buyer goes once paid ('' for none)." },
  callback_url: { type: 'string', description: "Each order's callback_url ('' for none)." },
  ask_email: editable.ask_email,
  enabled: { type: 'boolean' },
  state: { type: 'string', enum: LINK_STATES, description: 'OPEN (takes orders), DISABLED, EXPIRED or SOLD_OUT, in that order of precedence.' },
  order_count: { type: 'integer', minimum: 0, description: 'Orders made from the link (buyers who picked a currency).' },
  created_at: time,
  updated_at: time,
} as const;

const strict = <P extends Record<string, object>>(id: string, description: string, properties: P) =>
  ({ $id: id, type: 'object', description, additionalProperties: false, required: Object.keys(properties) as (keyof P & string)[], properties }) as const;

export const paymentLinkSchema = strict('PaymentLink', 'A payment link, as the merchant sees it.', linkProperties);

export const linkResponseSchema = strict('PaymentLinkResponse', 'One payment link.', {
  status: { type: 'integer', enum: [200, 201] },
  link: { $ref: 'PaymentLink' },
});

export const listLinksResponseSchema = strict('ListPaymentLinksResponse', "A page of the merchant's payment links, newest first.", {
  status: { type: 'integer', const: 200 },
  links: { type: 'array', items: { $ref: 'PaymentLink' } },
  next_cursor: { ...nullable({ type: 'string' }), description: 'Pass as cursor for the next page; null on the last.' },
});

const payLinkProperties = {
  link_id: linkProperties.link_id,
  title: linkProperties.title,
  description: linkProperties.description,
  price_currency: linkProperties.price_currency,
  price_amount: linkProperties.price_amount,
  min_amount: linkProperties.min_amount,
  max_amount: linkProperties.max_amount,
  units_left: linkProperties.units_left,
  expires_at: linkProperties.expires_at,
  ask_email: linkProperties.ask_email,
  state: linkProperties.state,
  merchant_name: { type: 'string', description: "The merchant's display name." },
  sandbox: { type: 'boolean', description: 'A sandbox merchant: nothing settles.' },
} as const;

export const payLinkSchema = strict('PayLink', 'A payment link as its page shows it: only what the buyer needs.', payLinkProperties);

export const payLinkResponseSchema = strict('PayLinkResponse', 'The link page: the link and the currencies the buyer may pick (none unless OPEN).', {
  status: { type: 'integer', const: 200 },
  link: { $ref: 'PayLink' },
  currencies: { type: 'array', uniqueItems: true, items: { type: 'string', enum: PAY_CURRENCIES } },
});

export const linkOrderResponseSchema = strict('LinkOrderResponse', "The buyer's new order, checked out in the picked currency: the page continues on its payment page.", {
  status: { type: 'integer', const: 201 },
  order_id: { type: 'string', format: 'uuid' },
  payment_url: { type: 'string', description: "The order's payment page." },
});

/** What the merchant and the buyer both see of a link. */
function publicFields(link: PaymentLink, now: Date) {
  return {
    link_id: link.link_id,
    title: link.title,
    description: link.description,
    price_currency: link.price_currency,
    price_amount: link.price_amount ?? null,
    min_amount: link.min_amount ?? null,
    max_amount: link.max_amount ?? null,
    units_left: unitsLeft(link) ?? null,
    expires_at: link.expires_at ?? null,
    ask_email: link.ask_email,
    state: linkState(link, now),
  };
}

/** The link as the merchant API and the portal answer it. */
export function linkView(link: PaymentLink, url: string, now: Date) {
  const { link_id, title, description, price_currency, price_amount, min_amount, max_amount, units_left, expires_at, ask_email, state } = publicFields(link, now);
  // The order of the documented schema.
  return {
    link_id,
    url,
    title,
    description,
    price_currency,
    price_amount,
    min_amount,
    max_amount,
    currencies: link.currencies ?? null,
    quantity: link.quantity ?? null,
    units_left,
    expires_at,
    success_url: link.success_url,
    callback_url: link.callback_url,
    ask_email,
    enabled: link.enabled,
    state,
    order_count: link.order_count,
    created_at: link.created_at,
    updated_at: link.updated_at,
  };
}

/** The link as its page shows it. Fields named one by one: nothing of the merchant's (callback URL, counts) slips out. */
export function payLinkView(link: PaymentLink, merchant: { name: string; sandbox: boolean }, currencies: readonly string[], now: Date) {
  const fields = publicFields(link, now);
  return {
    status: 200 as const,
    link: { ...fields, merchant_name: merchant.name, sandbox: merchant.sandbox },
    currencies: fields.state === 'OPEN' ? [...currencies] : [],
  };
}
export type PayLinkView = ReturnType<typeof payLinkView>;
