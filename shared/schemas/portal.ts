import type { FromSchema } from 'json-schema-to-ts';
import { ORDER_STATUSES } from '#shared/domain/statuses';

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
