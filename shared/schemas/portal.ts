import type { FromSchema } from 'json-schema-to-ts';
import { ROLES } from '#shared/domain/portal';
import { WALLET_NETWORKS } from '#shared/domain/networks';
import { ORDER_STATUSES } from '#shared/domain/statuses';
import { EMAIL_LANGUAGES, EMAIL_TOPICS, PAYMENT_EMAIL_CHOICES } from '#shared/domain/email';

/**
 * The portal API's request schemas (validated by shared/http/validators.generated.ts, like the
 * merchant API's). A WebAuthn answer is checked for shape here; @simplewebauthn/server checks
 * its contents (origin, challenge, signature).
 */

const base64url = { type: 'string', pattern: '^[A-Za-z0-9_-]*$', maxLength: 16384 } as const;

/** A credential as @simplewebauthn/browser's startRegistration / startAuthentication return it. */
const credentialSchema = {
  type: 'object',
  required: ['id', 'rawId', 'type', 'response'],
  additionalProperties: false,
  properties: {
    id: { ...base64url, maxLength: 1024 },
    rawId: { ...base64url, maxLength: 1024 },
    type: { type: 'string', const: 'public-key' },
    authenticatorAttachment: { type: 'string', maxLength: 32 },
    clientExtensionResults: { type: 'object', maxProperties: 20 },
    response: {
      type: 'object',
      required: ['clientDataJSON'],
      additionalProperties: false,
      properties: {
        clientDataJSON: base64url,
        attestationObject: base64url,
        authenticatorData: base64url,
        signature: base64url,
        userHandle: { ...base64url, maxLength: 128 },
        transports: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 32 } },
        publicKeyAlgorithm: { type: 'integer' },
        publicKey: base64url,
      },
    },
  },
} as const;

export const passkeyAnswerBodySchema = {
  $id: 'PortalPasskeyAnswerBody',
  type: 'object',
  required: ['credential'],
  additionalProperties: false,
  properties: { credential: credentialSchema },
} as const;
export type PasskeyAnswerBody = FromSchema<typeof passkeyAnswerBodySchema>;

export const recoveryCodeBodySchema = {
  $id: 'PortalRecoveryCodeBody',
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  properties: { code: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
export type RecoveryCodeBody = FromSchema<typeof recoveryCodeBodySchema>;

export const signOutBodySchema = {
  $id: 'PortalSignOutBody',
  type: 'object',
  additionalProperties: false,
  properties: { everywhere: { type: 'boolean', description: 'End every session of the user, not only this one.' } },
} as const;
export type SignOutBody = FromSchema<typeof signOutBodySchema>;

const day = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10 } as const;

export const portalOrdersQuerySchema = {
  $id: 'PortalOrdersQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ORDER_STATUSES, description: 'Only orders in this status.' },
    from: { ...day, description: 'Created on or after this day (UTC, YYYY-MM-DD).' },
    to: { ...day, description: 'Created on or before this day (UTC, YYYY-MM-DD).' },
    q: { type: 'string', maxLength: 200, description: 'An order_id, merchant_order_id, payment address or transaction id.' },
    cursor: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9_-]*$', description: 'next_cursor of the previous page.' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
} as const;
export type PortalOrdersQuery = FromSchema<typeof portalOrdersQuerySchema, { keepDefaultedPropertiesOptional: true }>;

export const tokenNameBodySchema = {
  $id: 'PortalTokenNameBody',
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 64, description: 'What the token is for (e.g. "shop server").' } },
} as const;
export type TokenNameBody = FromSchema<typeof tokenNameBodySchema>;

export const rollSecretBodySchema = {
  $id: 'PortalRollSecretBody',
  type: 'object',
  additionalProperties: false,
  properties: {
    overlap_hours: { type: 'integer', minimum: 0, maximum: 720, description: 'How long callbacks are also signed with the old secret (default 24).' },
  },
} as const;
export type RollSecretBody = FromSchema<typeof rollSecretBodySchema>;

const xpubsSchema = {
  type: 'object',
  maxProperties: 4,
  propertyNames: { enum: ['BTC', 'LTC', 'BCH', 'ETH'] },
  additionalProperties: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9]*$' },
  description: "Extended public keys by currency; an empty string removes that currency's key.",
} as const;

export const keyPreviewBodySchema = {
  $id: 'PortalKeyPreviewBody',
  type: 'object',
  required: ['xpubs'],
  additionalProperties: false,
  properties: { xpubs: xpubsSchema },
} as const;
export type KeyPreviewBody = FromSchema<typeof keyPreviewBodySchema>;

const walletsSchema = {
  type: 'object',
  maxProperties: WALLET_NETWORKS.length,
  propertyNames: { enum: WALLET_NETWORKS },
  additionalProperties: { type: 'string', maxLength: 100, pattern: '^[A-Za-z0-9:_+/=-]*$' },
  description: "Receiving wallets by network (SOL: USDC_SOL and PYUSD; TON: TON and USDT_TON; XLM: USDC_XLM); an empty string removes that network's wallet.",
} as const;

export const settingsBodySchema = {
  $id: 'PortalSettingsBody',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    receive_currency: { type: 'string', maxLength: 10 },
    callback_statuses: { type: 'string', enum: ['paid', 'all'] },
    xpubs: xpubsSchema,
    wallets: walletsSchema,
  },
} as const;
export type SettingsBody = FromSchema<typeof settingsBodySchema>;

export const auditQuerySchema = {
  $id: 'PortalAuditQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    before: { type: 'string', maxLength: 30, pattern: '^\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z$', description: 'next_before of the previous page.' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
  },
} as const;
export type AuditQuery = FromSchema<typeof auditQuerySchema, { keepDefaultedPropertiesOptional: true }>;

/** One page of a portal list read by cursor (the refunds waiting, the unmatched payments). */
export const portalPageQuerySchema = {
  $id: 'PortalPageQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9_-]*$', description: 'next_cursor of the previous page.' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
} as const;
export type PortalPageQuery = FromSchema<typeof portalPageQuerySchema, { keepDefaultedPropertiesOptional: true }>;

export const inviteMemberBodySchema = {
  $id: 'PortalInviteMemberBody',
  type: 'object',
  required: ['name', 'role'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, role: { type: 'string', enum: ROLES } },
} as const;
export type InviteMemberBody = FromSchema<typeof inviteMemberBodySchema>;

export const memberRoleBodySchema = {
  $id: 'PortalMemberRoleBody',
  type: 'object',
  required: ['role'],
  additionalProperties: false,
  properties: { role: { type: 'string', enum: ROLES } },
} as const;
export type MemberRoleBody = FromSchema<typeof memberRoleBodySchema>;

/** A portal user's email preferences (all of them: the screen sends the whole form). */
export const emailPreferencesBodySchema = {
  $id: 'PortalEmailPreferencesBody',
  type: 'object',
  required: ['address', 'language', 'payments', 'topics'],
  additionalProperties: false,
  properties: {
    address: {
      type: 'string',
      maxLength: 254,
      // An address, or '' for none (no email at all).
      format: 'email-address-or-empty',
      description: "Where this user's email goes (one address, local@domain, nothing else); an empty string sends none.",
    },
    language: { type: 'string', enum: EMAIL_LANGUAGES },
    payments: { type: 'string', enum: PAYMENT_EMAIL_CHOICES, description: 'each: one email per paid order; daily: one summary a day (UTC); off.' },
    topics: {
      type: 'object',
      required: [...EMAIL_TOPICS],
      additionalProperties: false,
      properties: {
        unresolved: { type: 'boolean', description: 'An order became UNRESOLVED (a payment did not match).' },
        callbacks: { type: 'boolean', description: "An order's callbacks failing for an hour, or given up (dead-lettered)." },
        refund_address: { type: 'boolean', description: 'A buyer set the address of a refund.' },
        new_passkey: { type: 'boolean', description: 'A passkey added, or a first sign-in with one.' },
        team: { type: 'boolean', description: 'A member invited, joined, removed or given another role.' },
      },
    },
  },
} as const;
export type EmailPreferencesBody = FromSchema<typeof emailPreferencesBodySchema>;
