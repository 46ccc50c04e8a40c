import { json, portalHandler } from '#shared/http/portal-handler';
import { portalSubscriptionsQuery as query } from '#shared/http/validators.generated';
import { portalListSubscriptions } from '#shared/services/portal/subscriptions';

/** GET /v1/portal/subscriptions: the merchant's subscriptions newest first (in one status, or all), by cursor; or what `q` finds. */
export const handler = portalHandler({ query }, async ({ query, context, now }) => json(200, { status: 200, ...(await portalListSubscriptions(context, query, now)) }));
