import type { Route } from '#shared/http/routes';
import { PORTAL_RESPONSES } from '#shared/schemas/portal-responses';
import { type NamedSchema, ref } from '#tools/openapi/components';
import { queryParameters } from '#tools/openapi/operation';

/**
 * The merchant portal's API (`/v1/portal/`): called by the portal's own pages with a session
 * cookie, never with the API token. Documented for completeness; each answer is the view the
 * portal's client reads (shared/schemas/portal-responses.ts).
 */

interface PortalMeta {
  operationId: string;
  summary: string;
  description: string;
  /** The route's body (shared/http/routes.ts) may be left out. */
  optionalBody?: true;
  /** Content type of the success answer (JSON unless said). */
  produces?: string;
}

const ACTION = (summary: string, description: string, operationId: string): PortalMeta => ({
  operationId,
  summary,
  description: `${description} Developers and owners only (viewers: 403 ROLE_REFUSED). Answers the order's page as it is afterwards; another merchant's order is 404 NOT_FOUND, as a missing one.`,
});

const DEVELOPERS = ' Owners and developers only (viewers: 403 ROLE_REFUSED).';
const OWNERS = " Owners only (others: 403 ROLE_REFUSED); another merchant's member is 404 NOT_FOUND.";

const PORTAL_OPERATIONS: Readonly<Record<string, PortalMeta>> = {
  'portal-session': {
    operationId: 'portalSession',
    summary: 'Who is signed in',
    description: 'The signed-in user and the CSRF token every state change must send in `x-csrf-token`; 401 SESSION_REQUIRED when the session is missing, expired or revoked.',
  },
  'portal-invite-options': {
    operationId: 'portalInviteOptions',
    summary: 'Passkey options for an invite',
    description: "WebAuthn creation options for the invite's new user; 400 INVITE_UNUSABLE when the invite is unknown, used or expired.",
  },
  'portal-accept-invite': {
    operationId: 'portalAcceptInvite',
    summary: 'Accept an invite',
    description: 'Registers the new passkey, uses the invite up (it works once), signs in (Set-Cookie) and answers the ten recovery codes, shown only here.',
  },
  'portal-sign-in-options': {
    operationId: 'portalSignInOptions',
    summary: 'Passkey sign-in options',
    description: 'A WebAuthn challenge for any passkey of this site (valid five minutes, used once). Rate-limited per client address (429).',
  },
  'portal-sign-in': {
    operationId: 'portalSignIn',
    summary: 'Sign in with a passkey',
    description: "Verifies the passkey's answer and starts a new session (the browser's previous one ends). 401 SIGN_IN_FAILED for any failure; rate-limited per client address.",
  },
  'portal-recover': {
    operationId: 'portalRecover',
    summary: 'Sign in with a recovery code',
    description: 'Uses up one recovery code and starts a session; then add a new passkey. Rate-limited per client address.',
  },
  'portal-sign-out': { operationId: 'portalSignOut', summary: 'Sign out', description: 'Ends this session; with `everywhere`, every session of the user.', optionalBody: true },
  'portal-list-passkeys': { operationId: 'portalListPasskeys', summary: "The user's passkeys", description: 'Credential ids, when each was added and last used.' },
  'portal-passkey-options': {
    operationId: 'portalPasskeyOptions',
    summary: 'Options for another passkey',
    description: 'WebAuthn creation options for another passkey of the signed-in user (its existing ones excluded).',
  },
  'portal-add-passkey': { operationId: 'portalAddPasskey', summary: 'Add a passkey', description: 'Registers the passkey a passkeys/options ceremony made.' },
  'portal-list-orders': {
    operationId: 'portalListOrders',
    summary: "The merchant's orders",
    description:
      'Newest first, filtered by status and creation day, a page by cursor (`next_cursor`); with `q`, the orders whose order_id, merchant_order_id, payment address or transaction id it is.',
  },
  'portal-export-orders': {
    operationId: 'portalExportOrders',
    summary: 'Orders as CSV',
    description:
      "The list's filtered orders as CSV (columns order_id, merchant_order_id, title, status, price_amount, price_currency, pay_amount, pay_currency, created_at, updated_at, sandbox), every matching order, newest first. An export that cannot finish (a failed read, or the function's 5 minutes nearly up) ends with a line starting `# EXPORT INCOMPLETE` and its transfer is cut.",
    produces: 'text/csv',
  },
  'portal-get-order': {
    operationId: 'portalGetOrder',
    summary: "An order's page",
    description:
      'The order, its status history, every invoice with its payments (explorer links, confirmations, seen time), every callback delivery with its attempts, and the actions the user may take now.',
  },
  'portal-cancel-order': ACTION('Cancel the order', 'NEW -> CANCELED, as Cancel Order.', 'portalCancelOrder'),
  'portal-refund-order': {
    ...ACTION('Refund the order', "A refund (all, the overpaid part, the price at today's rate, or a custom amount), as Refund Order; the answer adds the new `refund`.", 'portalRefundOrder'),
    optionalBody: true,
  },
  'portal-refund-quote': {
    operationId: 'portalRefundQuote',
    summary: 'What a refund could be',
    description: "What is left to refund, the overpaid part, and the order's price at today's rate (locked only when the refund is asked); null for a gateway order.",
  },
  'portal-report-refund-txid': { ...ACTION("Report a refund's transaction", "Checked on its chain first, as the API's report-refund-txid.", 'portalReportRefundTxid') },
  'portal-renew-refund-link': { ...ACTION('Issue a new refund link', "The old link and any address set through it stop counting, as the API's refund-link.", 'portalRenewRefundLink') },
  'portal-list-refunds': {
    operationId: 'portalListRefunds',
    summary: 'Refunds waiting',
    description: "The merchant's refunds waiting for an address or a payment, oldest first, a page by cursor (`next_cursor`).",
  },
  'portal-list-unmatched': {
    operationId: 'portalListUnmatched',
    summary: 'Payments no invoice took',
    description:
      "Payments to the merchant's own TON or Stellar wallet whose comment or memo matched no open invoice, newest first, a page by cursor (`next_cursor`): money to return to the buyer or to settle by hand.",
  },
  'portal-complete-refund': ACTION('Complete a sandbox refund', "Sandbox orders: REFUND_PENDING -> REFUNDED, as the sandbox's complete-refund.", 'portalCompleteRefund'),
  'portal-resolve-order': ACTION('Resolve the order', 'UNRESOLVED -> RESOLVED, as Resolve Order.', 'portalResolveOrder'),
  'portal-resend-callback': ACTION('Resend the callback', "Queues the order's latest callback again (same event id), as the redeliver endpoint.", 'portalResendCallback'),
  'portal-list-tokens': {
    operationId: 'portalListTokens',
    summary: 'API tokens',
    description: `The merchant's API tokens: id, name, first characters, created, last used (never the token).${DEVELOPERS}`,
  },
  'portal-create-token': {
    operationId: 'portalCreateToken',
    summary: 'Create an API token',
    description: `A new named token; \`token.api_token\` is shown in this answer only (stored as its keyed hash).${DEVELOPERS}`,
  },
  'portal-revoke-token': {
    operationId: 'portalRevokeToken',
    summary: 'Revoke an API token',
    description: `Refused from now on (running functions within their auth cache's seconds). Another merchant's token is 404 NOT_FOUND.${DEVELOPERS}`,
  },
  'portal-show-secret': {
    operationId: 'portalShowSecret',
    summary: 'Show the callback secret',
    description: `The callback secret, and during an overlap the previous one with its end (a POST: on demand, never cached).${DEVELOPERS}`,
  },
  'portal-roll-secret': {
    operationId: 'portalRollSecret',
    summary: 'Roll the callback secret',
    description: `A new secret signs every callback; the old one also signs them (a second \`v1,\` signature) for \`overlap_hours\` (default 24).${DEVELOPERS}`,
    optionalBody: true,
  },
  'portal-get-settings': {
    operationId: 'portalGetSettings',
    summary: 'Payment settings',
    description: `Mode (sandbox or live), receive currency, callback statuses, gateways, tolerance and each extended public key with its first three addresses.${DEVELOPERS}`,
  },
  'portal-preview-keys': {
    operationId: 'portalPreviewKeys',
    summary: "Preview keys' addresses",
    description: `The first three receive addresses of each key, nothing saved; 400 INVALID_INPUT for a key that is not an extended public key of that currency's network.${DEVELOPERS}`,
  },
  'portal-change-settings': {
    operationId: 'portalChangeSettings',
    summary: 'Change payment settings',
    description: `Receive currency, callback statuses, keys (an empty string removes one), each checked; invoices made from now on use them, existing ones keep theirs.${DEVELOPERS}`,
  },
  'portal-audit-log': {
    operationId: 'portalAuditLog',
    summary: 'Audit log',
    description: `Every security-relevant change with who, when and from where, newest first; the next page with \`before=next_before\`.${DEVELOPERS}`,
  },
  'portal-get-email-preferences': {
    operationId: 'portalGetEmailPreferences',
    summary: 'Email preferences',
    description: "The signed-in user's own: the address (absent until given), the language, payments (each, a daily summary, or off) and each event emailed. Every role.",
  },
  'portal-change-email-preferences': {
    operationId: 'portalChangeEmailPreferences',
    summary: 'Change email preferences',
    description: "Saves the signed-in user's email preferences (the whole form); an empty address sends no email. Every role.",
  },
  'portal-list-team': { operationId: 'portalListTeam', summary: 'Team', description: `The merchant's members and roles, removed ones last.${OWNERS}` },
  'portal-invite-member': { operationId: 'portalInviteMember', summary: 'Invite a member', description: `A one-time invite link with a role, shown in this answer only.${OWNERS}` },
  'portal-change-role': { operationId: 'portalChangeRole', summary: "Change a member's role", description: `Another member's role (your own: 409 TEAM_CHANGE_REFUSED).${OWNERS}` },
  'portal-remove-member': {
    operationId: 'portalRemoveMember',
    summary: 'Remove a member',
    description: `The member cannot sign in any more and every session of theirs ends at once (yourself: 409 TEAM_CHANGE_REFUSED).${OWNERS}`,
  },
  'portal-list-links': {
    operationId: 'portalListLinks',
    summary: 'Payment links',
    description: "The merchant's payment links, newest first, each with its paid count and total (orders PAID or RESOLVED).",
  },
  'portal-create-link': { operationId: 'portalCreateLink', summary: 'Create a payment link', description: `As POST /v1/links; refusals are 400 INVALID_INPUT naming the field.${DEVELOPERS}` },
  'portal-get-link': {
    operationId: 'portalGetLink',
    summary: "A payment link's page",
    description: "The link, its paid count and total, and its newest 50 orders; another merchant's link is 404 NOT_FOUND.",
  },
  'portal-update-link': { operationId: 'portalUpdateLink', summary: 'Change, disable or enable a payment link', description: `As POST /v1/links/{link_id}.${DEVELOPERS}` },
  'portal-list-plans': { operationId: 'portalListPlans', summary: 'Subscription plans', description: "The merchant's plans, newest first, a page by cursor (`next_cursor`)." },
  'portal-create-plan': { operationId: 'portalCreatePlan', summary: 'Create a plan', description: `As POST /v1/plans; refusals are 400 INVALID_INPUT naming the field.${DEVELOPERS}` },
  'portal-get-plan': { operationId: 'portalGetPlan', summary: 'A plan', description: "One plan; another merchant's is 404 NOT_FOUND." },
  'portal-update-plan': {
    operationId: 'portalUpdatePlan',
    summary: 'Change or archive a plan',
    description: `As POST /v1/plans/{plan_id}: \`archived: true\` takes no new subscriber, existing subscriptions go on.${DEVELOPERS}`,
  },
  'portal-list-subscriptions': {
    operationId: 'portalListSubscriptions',
    summary: 'Subscriptions',
    description:
      "Newest first, in one status or all, a page by cursor (`next_cursor`), each with its plan's name and price; with `q`, the subscriptions whose customer email or customer id it is (case ignored, the newest 50), or the one whose id it is.",
  },
  'portal-export-subscriptions': {
    operationId: 'portalExportSubscriptions',
    summary: 'Subscriptions as CSV',
    description:
      "The list's subscriptions (its status or search) as CSV, every matching one, newest first. An export that cannot finish ends with a line starting `# EXPORT INCOMPLETE` and its transfer is cut.",
    produces: 'text/csv',
  },
  'portal-subscription-figures': {
    operationId: 'portalSubscriptionFigures',
    summary: 'Monthly recurring revenue and churn',
    description:
      "MRR per price currency (the plans' prices as a month's worth, over the subscriptions active or past due; never converted) and the last 30 days' churn (canceled after paying a period, over those and the paying ones started before the window), from at most `read_limit` subscriptions of each status (`complete: false` when a status has more).",
  },
  'portal-get-subscription': {
    operationId: 'portalGetSubscription',
    summary: "A subscription's page",
    description: "The subscription, its plan, the period due next, its newest 50 periods' orders with their statuses, and the actions the user may take now; another merchant's is 404 NOT_FOUND.",
  },
  'portal-cancel-subscription': {
    operationId: 'portalCancelSubscription',
    summary: 'Cancel a subscription',
    description: `As POST /v1/subscriptions/{subscription_id}/cancel (now, or \`at_period_end\`); answers the subscription's page as it is afterwards.${DEVELOPERS}`,
    optionalBody: true,
  },
  'portal-advance-clock': {
    operationId: 'portalAdvanceClock',
    summary: "Move a sandbox subscription's test clock",
    description: `As POST /v1/sandbox/subscriptions/{subscription_id}/advance (a live merchant: 403 SANDBOX_ONLY); answers the subscription's page as it is afterwards.${DEVELOPERS}`,
  },
};

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const withoutId = (schema: object): object => {
  const { $id: _id, ...rest } = schema as { $id?: string };
  return rest;
};

const PATH_PARAMETERS: Record<string, string> = {
  invite: 'The token of the invite link (after `#/invite/`).',
  token_id: 'A token id of the merchant (`tok_...`, or `initial`).',
  member_id: 'A user id of a member of the merchant.',
  plan_id: 'A plan id of the merchant.',
  subscription_id: 'A subscription id of the merchant.',
};

/** The schema of a portal route's JSON answer (shared/schemas/portal-responses.ts). */
function answerOf(route: Route): NamedSchema {
  const schema = (PORTAL_RESPONSES as Readonly<Record<string, NamedSchema>>)[route.fn];
  if (!schema) throw new Error(`OpenAPI: no answer schema for ${route.method} ${route.path} (fn "${route.fn}") in PORTAL_RESPONSES`);
  return schema;
}

/** The OpenAPI operation of a portal route. */
export function portalOperation(route: Route) {
  const meta = PORTAL_OPERATIONS[route.fn];
  if (!meta) throw new Error(`OpenAPI: no operation metadata for ${route.method} ${route.path} (fn "${route.fn}")`);
  if (meta.optionalBody && !route.body) throw new Error(`OpenAPI: "${route.fn}" calls its body optional but ${route.method} ${route.path} declares none`);
  const inPath = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    description: PATH_PARAMETERS[match[1]!] ?? "An order id of the signed-in user's merchant.",
    schema: { type: 'string', maxLength: 100 },
  }));
  const inQuery = queryParameters(route);
  const csrf =
    route.method === 'POST' && route.fn !== 'portal-invite-options' && route.fn !== 'portal-accept-invite' && !route.fn.startsWith('portal-sign-in') && route.fn !== 'portal-recover'
      ? [{ name: 'x-csrf-token', in: 'header', required: true, description: 'The csrf_token of GET /v1/portal/session.', schema: { type: 'string', maxLength: 100 } }]
      : [];
  const parameters = [...inPath, ...inQuery, ...csrf];
  return {
    tags: ['Portal'],
    operationId: meta.operationId,
    summary: meta.summary,
    description: `${meta.description}${route.method === 'POST' ? " Only from the portal's own origin (Origin header), else 403 CSRF_REFUSED." : ''}`,
    ...(parameters.length ? { parameters } : {}),
    // Inline, without the $id: one schema is used by several operations.
    ...(route.body ? { requestBody: { required: !meta.optionalBody, content: { 'application/json': { schema: withoutId(route.body) } } } } : {}),
    responses: {
      200: { description: route.stream ? STREAMED : 'Done.', content: { [meta.produces ?? 'application/json']: { schema: meta.produces ? { type: 'string' } : ref(answerOf(route)) } } },
      400: error('Bad input, or an unusable invite.'),
      401: error('No valid session (SESSION_REQUIRED), or a sign-in that failed (SIGN_IN_FAILED).'),
      403: error('CSRF_REFUSED or ROLE_REFUSED.'),
      404: error("NOT_FOUND: a missing id, or another merchant's."),
      ...(route.fn.startsWith('portal-change-role') || route.fn.startsWith('portal-remove-member') ? { 409: error('TEAM_CHANGE_REFUSED: a change of your own membership.') } : {}),
      ...(route.fn === 'portal-cancel-subscription' || route.fn === 'portal-advance-clock'
        ? { 409: error('SUBSCRIPTION_CANCELED, or SUBSCRIPTION_PAYMENT_PENDING (cancel now while a payment is on its way).') }
        : {}),
      429: error('Too many requests (sign-in attempts) from this client; see Retry-After.'),
    },
    security: [{ PortalSession: [] }],
    ...(route.stream ? { 'x-streamed': true } : {}),
  };
}

/** A streamed route's 200 (routes with `stream: true`): what a client sees of the stream. */
const STREAMED =
  'Streamed: the status and headers first, then the body in chunks as it is produced (chunked transfer; no Content-Length). Errors found before the first byte are the usual JSON errors below; an error after it cuts the transfer, so a client that did not see the body end cleanly must treat it as incomplete.';
