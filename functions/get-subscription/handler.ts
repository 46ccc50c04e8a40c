import { readApiHandler } from '#shared/http/read-handler';
import { json } from '#shared/http/responses';
import { subscriptionView } from '#shared/schemas/subscriptions';
import { getSubscription } from '#shared/services/subscriptions';

/** GET /v1/subscriptions/:subscription_id: one of the merchant's subscriptions (another merchant's is answered as missing). */
export const handler = readApiHandler({}, async ({ path, merchant, now }) => {
  const { subscription, plan } = await getSubscription(merchant, path.subscription_id);
  return json(200, { status: 200, subscription: subscriptionView(subscription, plan, now) });
});
