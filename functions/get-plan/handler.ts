import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { planView } from '#shared/schemas/subscriptions';
import { getPlan } from '#shared/services/subscriptions';

/** GET /v1/plans/:plan_id: one of the merchant's plans (another merchant's is answered as missing). */
export const handler = apiHandler({}, async ({ path, merchant }) => json(200, { status: 200, plan: planView(await getPlan(merchant, path.plan_id)) }));
