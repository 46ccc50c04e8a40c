import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { createSubscriptionBody as body } from '#shared/http/validators.generated';
import { subscriptionView } from '#shared/schemas/subscriptions';
import { createSubscription } from '#shared/services/subscriptions';

/** POST /v1/subscriptions: a customer's subscription to one of the merchant's plans, started now. */
export const handler = apiHandler({ body }, async ({ body, merchant, now, requestKey }) => {
  const { subscription, plan } = await createSubscription(merchant, body, now, { requestKey });
  return json(201, { status: 201, subscription: subscriptionView(subscription, plan, now) });
});
