import { json, portalHandler } from '#shared/http/portal-handler';
import { cancelSubscriptionBody as body } from '#shared/http/validators.generated';
import { portalCancelSubscription } from '#shared/services/portal/subscriptions';

/** POST /v1/portal/subscriptions/:subscription_id/cancel: canceled now or at the period's end (owners and developers); answers its page. */
export const handler = portalHandler({ body }, async ({ body, path, context, now }) => json(200, { status: 200, ...(await portalCancelSubscription(context, path.subscription_id, body, now)) }));
