import { json, portalHandler } from '#shared/http/portal-handler';
import { createPlanBody as body } from '#shared/http/validators.generated';
import { portalCreatePlan } from '#shared/services/portal/subscriptions';

/** POST /v1/portal/plans: a new subscription plan (owners and developers). */
export const handler = portalHandler({ body }, async ({ body, context, now }) => json(200, { status: 200, plan: await portalCreatePlan(context, body, now) }));
