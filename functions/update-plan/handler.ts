import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { updatePlanBody as body } from '#shared/http/validators.generated';
import { planView } from '#shared/schemas/subscriptions';
import { changePlan } from '#shared/services/subscriptions';

/** POST /v1/plans/:plan_id: changes a plan; `{"archived": true}` takes no new subscriber. */
export const handler = apiHandler({ body, exact: { price_amount: 'decimal' } }, async ({ body, path, merchant, now }) =>
  json(200, { status: 200, plan: planView(await changePlan(merchant, path.plan_id, body, now)) }),
);
