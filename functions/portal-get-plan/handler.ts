import { json, portalHandler } from '#shared/http/portal-handler';
import { portalGetPlan } from '#shared/services/portal/subscriptions';

/** GET /v1/portal/plans/:plan_id: one of the merchant's plans (another merchant's is 404). */
export const handler = portalHandler({}, async ({ path, context }) => json(200, { status: 200, plan: await portalGetPlan(context, path.plan_id) }));
