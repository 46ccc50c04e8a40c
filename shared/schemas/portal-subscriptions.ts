import type { FromSchema } from 'json-schema-to-ts';
import { SUBSCRIPTION_STATUSES } from '#shared/domain/subscription';

/**
 * The portal's recurring billing requests beyond the merchant API's own (its plan bodies, the
 * cancel and test clock bodies are the API's, in shared/schemas/subscriptions.ts): the
 * subscriptions list's filters, which the screen, its CSV export and its search share.
 */
export const portalSubscriptionsQuerySchema = {
  $id: 'PortalSubscriptionsQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: SUBSCRIPTION_STATUSES, description: 'Only subscriptions in this status.' },
    q: { type: 'string', maxLength: 254, description: "A customer's email or the merchant's customer id (case ignored), or a subscription id." },
    cursor: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9_-]*$', description: 'next_cursor of the previous page.' },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 25 },
  },
} as const;
export type PortalSubscriptionsQuery = FromSchema<typeof portalSubscriptionsQuerySchema, { keepDefaultedPropertiesOptional: true }>;
