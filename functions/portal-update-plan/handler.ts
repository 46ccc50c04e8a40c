import { json, portalHandler } from '#shared/http/portal-handler';
import { updatePlanBody as body } from '#shared/http/validators.generated';
import { portalUpdatePlan } from '#shared/services/portal/subscriptions';

/** POST /v1/portal/plans/:plan_id: changes, archives (`archived: true`) or restores a plan (owners and developers). */
export const handler = portalHandler({ body }, async ({ body, path, context, now }) => json(200, { status: 200, plan: await portalUpdatePlan(context, path.plan_id, body, now) }));
