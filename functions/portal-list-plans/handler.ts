import { json, portalHandler } from '#shared/http/portal-handler';
import { listPlansQuery as query } from '#shared/http/validators.generated';
import { portalListPlans } from '#shared/services/portal/subscriptions';

/** GET /v1/portal/plans: the merchant's subscription plans, newest first, by cursor. */
export const handler = portalHandler({ query }, async ({ query, context }) => json(200, { status: 200, ...(await portalListPlans(context, query)) }));
