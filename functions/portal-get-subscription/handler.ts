import { json, portalHandler } from '#shared/http/portal-handler';
import { portalGetSubscription } from '#shared/services/portal/subscriptions';

/** GET /v1/portal/subscriptions/:subscription_id: a subscription's page (its plan, what is due, its periods and their orders, its actions). */
export const handler = portalHandler({}, async ({ path, context, now }) => json(200, { status: 200, ...(await portalGetSubscription(context, path.subscription_id, now)) }));
