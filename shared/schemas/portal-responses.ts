import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import type { FromSchema } from 'json-schema-to-ts';
import { AUDIT_ACTIONS } from '#shared/domain/audit';
import { RECEIVE_CURRENCIES } from '#shared/domain/currencies';
import { ROLES } from '#shared/domain/portal';
import { callbackDeliverySchema } from '#shared/schemas/callback-responses';
import { invoiceProperties, orderProperties, orderSchema, status, timestamp } from '#shared/schemas/order-responses';
import { refundSchema } from '#shared/schemas/refunds';
import { linkProperties } from '#shared/schemas/payment-links';
import { planSchema, subscriptionSchema } from '#shared/schemas/subscriptions';
import { ORDER_STATUSES } from '#shared/domain/statuses';

/**
 * The merchant portal's answers (`/v1/portal/...`), each declared once: a JSON schema, and the
 * type derived from it (json-schema-to-ts). The server's builders and handlers return these
 * types (shared/services/portal/, functions/portal-*); the portal's API client
 * (web/portal/src/api.ts) answers them and its screens read them; the OpenAPI document
 * describes each route's answer with its schema (tools/openapi/operations/portal.ts), and the
 * portal's integration tests hold every real answer against it (tests/support/portal.ts).
 *
 * Strict as the merchant API's (`additionalProperties: false`, everything the builders always
 * write required), so a field added on one side and not here fails a test. Nested objects are
 * written inline (no `$ref`) so that each type is derived from its own schema alone.
 */

/** An answer without its `status: 200`: what a builder of shared/services/portal/ returns, the handler adds the status. */
export type PortalView<T extends { status: 200 }> = Omit<T, 'status'>;

/** A nested object: the listed properties required, `optional` ones allowed, nothing else (inlined: no `$id`). */
function fields<const P extends Record<string, object>, const O extends Record<string, object> = Record<never, object>>(properties: P, optional?: O) {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties) as (keyof P & string)[],
    properties: { ...properties, ...optional } as P & O,
  } as const;
}

const STATUS_200 = { type: 'integer', const: 200 } as const;

/** A named answer: `{status: 200, ...}` with an `$id` (an OpenAPI component). */
function answer<const P extends Record<string, object>, const O extends Record<string, object> = Record<never, object>>(id: string, description: string, properties: P, optional?: O) {
  return { $id: id, description, ...fields({ status: STATUS_200, ...properties }, optional) } as const;
}

const nullable = <const S extends object>(schema: S) => ({ oneOf: [schema, { type: 'null' }] }) as const;
const uuid = { type: 'string', format: 'uuid' } as const;
/** An exact decimal as the table keeps it (the portal shows amounts as written, never rounded). */
const decimal = { type: 'string', pattern: '^\\d+(\\.\\d+)?$', maxLength: 80 } as const;
/** A time a chain source or a gateway reported (ISO 8601). */
const dateTime = { type: 'string', format: 'date-time' } as const;
/** A currency code (the table keeps it as a string; the merchant API's schemas list the codes). */
const code = { type: 'string', pattern: '^[A-Z0-9_]{2,12}$' } as const;
const base64url = { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: 1024 } as const;
const addressesByCurrency = {
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'string' } },
  description: "Each key's first receive addresses, by currency (to compare with the wallet's).",
} as const;

// --- Signing in ------------------------------------------------------------------------------------

const user = fields({ user_id: uuid, name: { type: 'string' }, role: { type: 'string', enum: ROLES }, merchant_id: { type: 'integer' } });

/** Who is signed in: GET /session, and every sign-in (with the new session's cookie). */
export const portalSessionSchema = answer(
  'PortalSession',
  'The signed-in user, the CSRF token every state change sends, and when the session ends.',
  { user, csrf_token: { type: 'string', minLength: 1 }, expires_at: timestamp },
  {
    merchant: { ...fields({ name: { type: 'string' }, sandbox: { type: 'boolean' } }), description: "The merchant's name and mode (GET /session; a sign-in's answer has none)." },
    recovery_codes: { type: 'array', items: { type: 'string' }, description: 'Accepting an invite only: the ten recovery codes, shown this once.' },
  },
);
export type PortalSession = FromSchema<typeof portalSessionSchema>;

/**
 * WebAuthn options for a passkey ceremony, as WebAuthn's JSON forms define them
 * (@simplewebauthn/server makes them, @simplewebauthn/browser hands them to navigator.credentials):
 * checked here for what identifies them; their types are those forms.
 */
export const portalRegistrationOptionsSchema = answer('PortalRegistrationOptions', 'Options to create a passkey (PublicKeyCredentialCreationOptionsJSON).', {
  options: {
    type: 'object',
    required: ['challenge', 'rp', 'user', 'pubKeyCredParams'],
    properties: {
      challenge: base64url,
      rp: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      user: { type: 'object', required: ['id'], properties: { id: base64url } },
      pubKeyCredParams: { type: 'array', minItems: 1 },
    },
  },
});
export type PortalRegistrationOptions = Omit<FromSchema<typeof portalRegistrationOptionsSchema>, 'options'> & { options: PublicKeyCredentialCreationOptionsJSON };

export const portalSignInOptionsSchema = answer('PortalSignInOptions', 'Options to sign in with a passkey of this site (PublicKeyCredentialRequestOptionsJSON).', {
  options: { type: 'object', required: ['challenge'], properties: { challenge: base64url } },
});
export type PortalSignInOptions = Omit<FromSchema<typeof portalSignInOptionsSchema>, 'options'> & { options: PublicKeyCredentialRequestOptionsJSON };

export const portalPasskeysSchema = answer('PortalPasskeys', "The signed-in user's passkeys (no keys).", {
  passkeys: {
    type: 'array',
    items: fields({ credential_id: base64url, created_at: timestamp, last_used_at: nullable(timestamp), transports: { type: 'array', items: { type: 'string' } } }),
  },
});
export type PortalPasskeys = FromSchema<typeof portalPasskeysSchema>;

export const portalPasskeyAddedSchema = answer('PortalPasskeyAdded', 'The passkey just registered.', { passkey: fields({ credential_id: base64url, created_at: timestamp }) });
export type PortalPasskeyAdded = FromSchema<typeof portalPasskeyAddedSchema>;

export const portalSignedOutSchema = answer('PortalSignedOut', 'The session has ended (its cookie is cleared).', {});
export type PortalSignedOut = FromSchema<typeof portalSignedOutSchema>;

// --- Orders ------------------------------------------------------------------------------------------

/** A row of the orders list (and of the CSV export): amounts as exact decimals. */
export const portalOrderRowSchema = fields({
  order_id: orderProperties.order_id,
  merchant_order_id: orderProperties.merchant_order_id,
  title: orderProperties.title,
  status: orderProperties.status,
  price_amount: decimal,
  price_currency: code,
  pay_amount: decimal,
  pay_currency: code,
  created_at: timestamp,
  updated_at: timestamp,
  sandbox: { type: 'boolean' },
});
export type PortalOrderRow = FromSchema<typeof portalOrderRowSchema>;

export const portalOrdersSchema = answer('PortalOrders', "A page of the merchant's orders, newest first.", {
  orders: { type: 'array', items: portalOrderRowSchema },
  next_cursor: { ...nullable({ type: 'string' }), description: "The next page's `cursor`; null on the last page (and for a search)." },
});
export type PortalOrders = FromSchema<typeof portalOrdersSchema>;

/** The buttons of an order's page: what the user may do to the order now. */
export const PORTAL_ORDER_ACTIONS = ['resend_callback', 'cancel', 'refund', 'complete_refund', 'resolve'] as const;
export type PortalOrderAction = (typeof PORTAL_ORDER_ACTIONS)[number];

const statusChange = fields({ from: nullable(status), to: status, at: timestamp }, { reason: orderSchema.properties.unresolved_reason });

const { $id: _delivery, description: _deliveryDescription, ...delivery } = callbackDeliverySchema;

const portalPayment = fields({
  txid: { type: 'string', minLength: 1 },
  amount: decimal,
  confirmations: { type: 'integer', minimum: 0 },
  seen_at: dateTime,
  block_height: nullable({ type: 'integer', minimum: 0 }),
  left_chain_at: { ...nullable(dateTime), description: 'When a reorganisation took it off the chain (it no longer counts).' },
  explorer_url: { ...nullable({ type: 'string' }), description: 'The transaction on a block explorer of its network, when there is one.' },
});

/** A refund as the order's page shows it: the API's `Refund`, inlined. */
const { $id: _refundId, description: _refundDescription, ...portalRefund } = refundSchema;

/** An order's page: the order, its invoices with their payments, its callbacks, and the actions allowed now. */
export const portalOrderPageSchema = answer('PortalOrderPage', "An order's whole story, and what the user may do to it now.", {
  order: fields(
    {
      ...orderProperties,
      price_currency: code,
      pay_currency: code,
      sandbox: { type: 'boolean' },
      version: { type: 'integer', minimum: 1 },
      current_invoice_id: nullable(uuid),
      history: { type: 'array', items: statusChange, description: 'Its status changes, oldest first (from null: created).' },
    },
    { unresolved_reason: orderSchema.properties.unresolved_reason },
  ),
  invoices: {
    type: 'array',
    items: fields({ ...invoiceProperties, pay_currency: code, payments: { type: 'array', items: portalPayment }, refund_txid: nullable({ type: 'string' }) }),
    description: 'Every invoice, newest first.',
  },
  callbacks: { type: 'array', items: delivery, description: 'Its callbacks, newest first.' },
  refunds: { type: 'array', items: portalRefund, description: "Its refunds, oldest first (the API's `Refund`)." },
  actions: { type: 'array', items: { type: 'string', enum: PORTAL_ORDER_ACTIONS } },
});
export type PortalOrderPage = FromSchema<typeof portalOrderPageSchema>;

/** Refund the order: the order's page and the refund just asked (null for a gateway's own refund). */
export const portalRefundAskedSchema = {
  ...portalOrderPageSchema,
  $id: 'PortalRefundAsked',
  description: "The order's page and the refund just asked.",
  required: [...portalOrderPageSchema.required, 'refund'],
  properties: { ...portalOrderPageSchema.properties, refund: nullable(portalRefund) },
} as const;
export type PortalRefundAsked = FromSchema<typeof portalRefundAskedSchema>;
export type PortalRefund = PortalOrderPage['refunds'][number];

const rateSchema = fields({ fiat_amount: decimal, fiat_currency: { type: 'string' }, numerator: { type: 'string' }, denominator: { type: 'string' }, source: { type: 'string' }, as_of: timestamp });

/** What a refund of the order could be now (null: a gateway order, refunded in full at its gateway). */
export const portalRefundQuoteSchema = answer('PortalRefundQuote', "What is left to refund, the overpaid part, and the price at today's rate.", {
  quote: nullable(
    fields({
      currency: { type: 'string' },
      paid: decimal,
      left: decimal,
      overpaid: decimal,
      fiat: nullable(fields({ amount: decimal, currency: { type: 'string' }, crypto: decimal, rate: rateSchema })),
    }),
  ),
});
export type PortalRefundQuote = FromSchema<typeof portalRefundQuoteSchema>;

/** The merchant's refunds waiting for an address or a payment, oldest first. */
export const portalRefundsSchema = answer('PortalRefunds', 'Refunds waiting, oldest first.', {
  refunds: { type: 'array', items: portalRefund },
  next_cursor: nullable({ type: 'string' }),
});
export type PortalRefunds = FromSchema<typeof portalRefundsSchema>;

/** A payment to one of the merchant's own wallets that no invoice took (store/unmatched-payments.ts). */
const unmatchedPayment = fields(
  {
    currency: code,
    amount: decimal,
    txid: { type: 'string', minLength: 1 },
    address: { type: 'string', minLength: 1, description: 'The wallet it paid.' },
    reason: { type: 'string', enum: ['NO_INVOICE', 'ORDER_GONE', 'NOT_BOOKABLE'], description: 'NO_INVOICE: its comment or memo names no open invoice (or it had none).' },
    seen_at: dateTime,
    explorer_url: nullable({ type: 'string' }),
  },
  { memo: { type: 'string', description: 'The comment (TON) or memo (Stellar) it carried.' } },
);

/** The payments to the merchant's own wallets that no invoice took, newest first. */
export const portalUnmatchedSchema = answer('PortalUnmatchedPayments', 'Payments no invoice took, newest first.', {
  payments: { type: 'array', items: unmatchedPayment },
  next_cursor: nullable({ type: 'string' }),
});
export type PortalUnmatchedPayments = FromSchema<typeof portalUnmatchedSchema>;

// --- The integration: API tokens, the callback secret, settings, the audit log -------------------------

const tokenSummary = {
  token_id: { type: 'string', pattern: '^(tok_[0-9a-f]{12}|initial)$' },
  name: { type: 'string' },
  created_at: timestamp,
} as const;
const tokenOptional = {
  prefix: { type: 'string', description: 'The first characters of the token (to recognise it).' },
  last_used_at: timestamp,
} as const;

export const portalTokensSchema = answer('PortalTokens', "The merchant's API tokens (never the tokens themselves).", {
  tokens: { type: 'array', items: fields(tokenSummary, tokenOptional) },
});
export type PortalTokens = FromSchema<typeof portalTokensSchema>;
export type PortalToken = PortalTokens['tokens'][number];

export const portalCreatedTokenSchema = answer('PortalCreatedToken', 'A new API token, shown in this answer only.', {
  token: fields({ ...tokenSummary, api_token: { type: 'string', minLength: 1 } }, tokenOptional),
});
export type PortalCreatedToken = FromSchema<typeof portalCreatedTokenSchema>;

export const portalRevokedTokenSchema = answer('PortalRevokedToken', 'The token is refused from now on.', { revoked: tokenSummary.token_id });
export type PortalRevokedToken = FromSchema<typeof portalRevokedTokenSchema>;

export const portalSecretSchema = answer(
  'PortalSecret',
  'The callback secret; during an overlap also the previous one and when it stops signing.',
  { callback_secret: { type: 'string', minLength: 1 } },
  { previous_callback_secret: { type: 'string', minLength: 1 }, previous_valid_until: timestamp },
);
export type PortalSecret = FromSchema<typeof portalSecretSchema>;

export const portalRolledSecretSchema = answer('PortalRolledSecret', 'The new callback secret; the old one also signs callbacks until previous_valid_until.', {
  callback_secret: { type: 'string', minLength: 1 },
  previous_valid_until: timestamp,
});
export type PortalRolledSecret = FromSchema<typeof portalRolledSecretSchema>;

const receiveCurrency = { type: 'string', enum: RECEIVE_CURRENCIES } as const;
const callbackStatuses = { type: 'string', enum: ['paid', 'all'] } as const;

export const portalSettingsSchema = answer('PortalSettings', 'The payment settings new invoices are made with.', {
  settings: fields({
    name: { type: 'string' },
    sandbox: { type: 'boolean' },
    receive_currency: receiveCurrency,
    callback_statuses: callbackStatuses,
    gateways: { type: 'array', items: { type: 'string' } },
    payment_tolerance_percent: decimal,
    xpubs: {
      type: 'object',
      additionalProperties: fields({ key: { type: 'string' }, addresses: { type: 'array', items: { type: 'string' } } }),
      description: 'Each extended public key by currency, with its first receive addresses.',
    },
    wallets: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'The receiving wallet of each network that has one (SOL, TON, XLM), in the form invoices show.',
    },
  }),
});
export type PortalSettings = FromSchema<typeof portalSettingsSchema>;

export const portalKeyPreviewSchema = answer('PortalKeyPreview', "The keys' first addresses; nothing saved.", { addresses: addressesByCurrency });
export type PortalKeyPreview = FromSchema<typeof portalKeyPreviewSchema>;

export const portalSettingsChangedSchema = answer('PortalSettingsChanged', 'The settings as saved, and the first addresses of each key that changed.', {
  sandbox: { type: 'boolean' },
  wallets: { type: 'object', additionalProperties: { type: 'string' }, description: 'The receiving wallets as saved (each in the form invoices show).' },
  receive_currency: receiveCurrency,
  callback_statuses: callbackStatuses,
  addresses: addressesByCurrency,
});
export type PortalSettingsChanged = FromSchema<typeof portalSettingsChangedSchema>;

export const portalAuditLogSchema = answer('PortalAuditLog', 'A page of the audit log, newest first.', {
  entries: {
    type: 'array',
    items: fields({
      at: timestamp,
      action: { type: 'string', enum: AUDIT_ACTIONS },
      who: { type: 'string' },
      from: { type: 'string' },
      details: { type: 'object', description: 'What changed, without secrets.' },
    }),
  },
  next_before: { ...nullable(timestamp), description: "The next page's `before`; null on the last page." },
});
export type PortalAuditLog = FromSchema<typeof portalAuditLogSchema>;
export type PortalAuditEntry = PortalAuditLog['entries'][number];

// --- The team ------------------------------------------------------------------------------------------

const member = fields({ user_id: uuid, name: { type: 'string' }, role: { type: 'string', enum: ROLES }, created_at: timestamp, removed_at: nullable(timestamp) });
export type PortalMember = FromSchema<typeof member>;

export const portalTeamSchema = answer('PortalTeam', "The merchant's members, the removed ones last.", { members: { type: 'array', items: member } });
export type PortalTeam = FromSchema<typeof portalTeamSchema>;

export const portalMemberSchema = answer('PortalMemberChanged', 'The member as they are now.', { member });
export type PortalMemberChanged = FromSchema<typeof portalMemberSchema>;

export const portalInviteSchema = answer('PortalInvite', 'A one-time invite link, shown in this answer only.', {
  invite: fields({ url: { type: 'string', format: 'uri' }, expires_at: timestamp, role: { type: 'string', enum: ROLES }, name: { type: 'string' } }),
});
export type PortalInvite = FromSchema<typeof portalInviteSchema>;

/** Every portal answer's schema, by the function that answers it (the export streams CSV: none). */
/** A payment link as the portal shows it: the merchant API's view and its figures (orders PAID or RESOLVED). */
const portalLinkFields = fields({
  ...linkProperties,
  paid_count: { type: 'integer', minimum: 0, description: 'Orders of the link PAID or RESOLVED.' },
  paid_total: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: "Their total, in the link's price_currency." },
});
export type PortalLink = FromSchema<typeof portalLinkFields>;

export const portalLinkSchema = answer('PortalLink', 'A payment link, created or changed.', { link: portalLinkFields });
export const portalLinksSchema = answer('PortalLinks', "A page of the merchant's payment links, newest first, with their figures.", {
  links: { type: 'array', items: portalLinkFields },
  next_cursor: { oneOf: [{ type: 'string' }, { type: 'null' }] },
});
export type PortalLinks = FromSchema<typeof portalLinksSchema>;
export const portalLinkPageSchema = answer('PortalLinkPage', 'A payment link with its figures and its newest 50 orders.', {
  link: portalLinkFields,
  orders: { type: 'array', items: portalOrderRowSchema },
});
export type PortalLinkPage = FromSchema<typeof portalLinkPageSchema>;
export const portalEmailPreferencesSchema = answer('PortalEmailPreferences', "The signed-in user's email preferences (the address absent until given).", {
  preferences: fields(
    {
      language: { type: 'string', enum: ['en', 'zh'] },
      payments: { type: 'string', enum: ['each', 'daily', 'off'] },
      topics: fields({ unresolved: { type: 'boolean' }, callbacks: { type: 'boolean' }, refund_address: { type: 'boolean' }, new_passkey: { type: 'boolean' }, team: { type: 'boolean' } }),
    },
    { address: { type: 'string' } },
  ),
});
export type PortalEmailPreferences = FromSchema<typeof portalEmailPreferencesSchema>;

// --- Recurring billing -------------------------------------------------------------------------

/** A plan as the portal shows it: the merchant API's view. */
const portalPlanFields = fields(planSchema.properties);
export type PortalPlan = FromSchema<typeof portalPlanFields>;

export const portalPlanSchema = answer('PortalPlan', 'A subscription plan, created, read or changed.', { plan: portalPlanFields });
export type PortalPlanAnswer = FromSchema<typeof portalPlanSchema>;
export const portalPlansSchema = answer('PortalPlans', "A page of the merchant's plans, newest first.", {
  plans: { type: 'array', items: portalPlanFields },
  next_cursor: nullable({ type: 'string' }),
});
export type PortalPlans = FromSchema<typeof portalPlansSchema>;

/** A subscription in the portal's list (and CSV): the merchant API's view, with its plan's name and price and its mode. */
export const portalSubscriptionRowSchema = fields({
  ...subscriptionSchema.properties,
  plan_name: planSchema.properties.name,
  price_amount: decimal,
  price_currency: code,
  interval_unit: planSchema.properties.interval_unit,
  interval_count: planSchema.properties.interval_count,
  sandbox: { type: 'boolean' },
});
export type PortalSubscriptionRow = FromSchema<typeof portalSubscriptionRowSchema>;

export const portalSubscriptionsSchema = answer('PortalSubscriptions', "A page of the merchant's subscriptions, newest first, or what a search found.", {
  subscriptions: { type: 'array', items: portalSubscriptionRowSchema },
  next_cursor: { ...nullable({ type: 'string' }), description: "The next page's `cursor`; null on the last page (and for a search)." },
});
export type PortalSubscriptions = FromSchema<typeof portalSubscriptionsSchema>;

/** What the user may do to a subscription now (the buttons its page shows). */
export const PORTAL_SUBSCRIPTION_ACTIONS = ['cancel', 'cancel_at_period_end', 'advance_clock'] as const;
export type PortalSubscriptionAction = (typeof PORTAL_SUBSCRIPTION_ACTIONS)[number];

export const portalSubscriptionPageSchema = answer(
  'PortalSubscriptionPage',
  "A subscription's page: the subscription, its plan, what is due next, its newest periods with their orders, and what the user may do.",
  {
    subscription: portalSubscriptionRowSchema,
    plan: portalPlanFields,
    due: {
      ...nullable(fields({ period: { type: 'integer', minimum: 1 }, due_at: timestamp, price_amount: decimal, price_currency: code })),
      description: "The period billed next or now: its due date and price (its order's, once made; else the plan's now). Null once ended.",
    },
    periods: {
      type: 'array',
      description: "The newest periods' orders (one per attempt), newest first.",
      items: fields({
        period: { type: 'integer', minimum: 1 },
        attempt: { type: 'integer', minimum: 1 },
        due_at: timestamp,
        price_amount: decimal,
        price_currency: code,
        order_id: uuid,
        order_status: { ...nullable({ type: 'string', enum: ORDER_STATUSES }), description: "The order's status now; null if it cannot be read." },
        created_at: timestamp,
      }),
    },
    actions: { type: 'array', items: { type: 'string', enum: PORTAL_SUBSCRIPTION_ACTIONS } },
  },
);
export type PortalSubscriptionPage = FromSchema<typeof portalSubscriptionPageSchema>;

export const portalSubscriptionFiguresSchema = answer('PortalSubscriptionFigures', "Monthly recurring revenue and churn of the merchant's subscriptions.", {
  mrr: {
    type: 'array',
    description: "Per price currency (never converted): the plans' prices as a month's worth, over the subscriptions active or past due.",
    items: fields({ currency: code, amount: decimal, subscriptions: { type: 'integer', minimum: 0 } }),
  },
  churn: fields({
    window_days: { type: 'integer', minimum: 1 },
    ended: { type: 'integer', minimum: 0, description: 'Subscriptions canceled within the window that had paid a period.' },
    at_start: { type: 'integer', minimum: 0, description: 'ended, and the subscriptions active or past due now that started before the window.' },
    rate: { ...nullable({ type: 'number', minimum: 0, maximum: 1 }), description: 'ended / at_start; null when at_start is 0.' },
  }),
  active: { type: 'integer', minimum: 0 },
  past_due: { type: 'integer', minimum: 0 },
  read_limit: { type: 'integer', minimum: 1, description: 'The most subscriptions of each status the figures read.' },
  complete: { type: 'boolean', description: 'false: a status was read to read_limit with more (or possibly more) left, and the figures count its newest only.' },
});
export type PortalSubscriptionFigures = FromSchema<typeof portalSubscriptionFiguresSchema>;

export const PORTAL_RESPONSES = {
  'portal-session': portalSessionSchema,
  'portal-invite-options': portalRegistrationOptionsSchema,
  'portal-accept-invite': portalSessionSchema,
  'portal-sign-in-options': portalSignInOptionsSchema,
  'portal-sign-in': portalSessionSchema,
  'portal-recover': portalSessionSchema,
  'portal-sign-out': portalSignedOutSchema,
  'portal-list-passkeys': portalPasskeysSchema,
  'portal-passkey-options': portalRegistrationOptionsSchema,
  'portal-add-passkey': portalPasskeyAddedSchema,
  'portal-list-orders': portalOrdersSchema,
  'portal-get-order': portalOrderPageSchema,
  'portal-cancel-order': portalOrderPageSchema,
  'portal-refund-order': portalRefundAskedSchema,
  'portal-refund-quote': portalRefundQuoteSchema,
  'portal-report-refund-txid': portalOrderPageSchema,
  'portal-renew-refund-link': portalOrderPageSchema,
  'portal-list-refunds': portalRefundsSchema,
  'portal-list-unmatched': portalUnmatchedSchema,
  'portal-complete-refund': portalOrderPageSchema,
  'portal-resolve-order': portalOrderPageSchema,
  'portal-resend-callback': portalOrderPageSchema,
  'portal-list-tokens': portalTokensSchema,
  'portal-create-token': portalCreatedTokenSchema,
  'portal-revoke-token': portalRevokedTokenSchema,
  'portal-show-secret': portalSecretSchema,
  'portal-roll-secret': portalRolledSecretSchema,
  'portal-get-settings': portalSettingsSchema,
  'portal-preview-keys': portalKeyPreviewSchema,
  'portal-change-settings': portalSettingsChangedSchema,
  'portal-audit-log': portalAuditLogSchema,
  'portal-list-team': portalTeamSchema,
  'portal-invite-member': portalInviteSchema,
  'portal-change-role': portalMemberSchema,
  'portal-remove-member': portalMemberSchema,
  'portal-list-links': portalLinksSchema,
  'portal-create-link': portalLinkSchema,
  'portal-get-link': portalLinkPageSchema,
  'portal-update-link': portalLinkSchema,
  'portal-get-email-preferences': portalEmailPreferencesSchema,
  'portal-change-email-preferences': portalEmailPreferencesSchema,
  'portal-list-plans': portalPlansSchema,
  'portal-create-plan': portalPlanSchema,
  'portal-get-plan': portalPlanSchema,
  'portal-update-plan': portalPlanSchema,
  'portal-list-subscriptions': portalSubscriptionsSchema,
  'portal-subscription-figures': portalSubscriptionFiguresSchema,
  'portal-get-subscription': portalSubscriptionPageSchema,
  'portal-cancel-subscription': portalSubscriptionPageSchema,
  'portal-advance-clock': portalSubscriptionPageSchema,
} as const;

/** The named schemas, once each (for ajv and the OpenAPI components). */
export const PORTAL_RESPONSE_SCHEMAS = [...new Set(Object.values(PORTAL_RESPONSES))];
