import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { advanceClockBody as body } from '#shared/http/validators.generated';
import { subscriptionView } from '#shared/schemas/subscriptions';
import { advanceClock, getSubscription } from '#shared/services/subscriptions';

/** POST /v1/sandbox/subscriptions/:subscription_id/advance: a sandbox subscription's test clock moved forward, and every step it owes taken. */
export const handler = apiHandler({ body }, async ({ body, path, merchant, now }) => {
  await advanceClock(merchant, path.subscription_id, body.days, now);
  const { subscription, plan } = await getSubscription(merchant, path.subscription_id);
  return json(200, { status: 200, subscription: subscriptionView(subscription, plan, now) });
});
