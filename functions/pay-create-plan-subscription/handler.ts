import { publicHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { planSubscriptionBody as body } from '#shared/http/validators.generated';
import { subscribeFromPlan } from '#shared/services/subscriber';

/** POST /v1/pay/plans/:plan_id/subscriptions (public): a subscription started with the subscriber's email; its first period to pay, or its trial. */
export const handler = publicHandler({ body }, async ({ body, path, now, requestKey }) => json(201, await subscribeFromPlan(path.plan_id, body, now, requestKey)));
