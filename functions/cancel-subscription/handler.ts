import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { cancelSubscriptionBody as body } from '#shared/http/validators.generated';
import { subscriptionView } from '#shared/schemas/subscriptions';
import { cancelSubscription, getSubscription } from '#shared/services/subscriptions';

/** POST /v1/subscriptions/:subscription_id/cancel: canceled now (with the period's unpaid order) or at the period's end. */
export const handler = apiHandler({ body }, async ({ body, path, merchant, now }) => {
  await cancelSubscription(merchant, path.subscription_id, body, now);
  const { subscription, plan } = await getSubscription(merchant, path.subscription_id);
  return json(200, { status: 200, subscription: subscriptionView(subscription, plan, now) });
});
