import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { createPlanBody as body } from '#shared/http/validators.generated';
import { planView } from '#shared/schemas/subscriptions';
import { createPlan } from '#shared/services/subscriptions';

/** POST /v1/plans: a new subscription plan (beyond the contract). */
export const handler = apiHandler({ body, exact: { price_amount: 'decimal' } }, async ({ body, merchant, now }) => json(201, { status: 201, plan: planView(await createPlan(merchant, body, now)) }));
