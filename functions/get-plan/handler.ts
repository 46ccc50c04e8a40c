import { readApiHandler } from '#shared/http/read-handler';
import { json } from '#shared/http/responses';
import { planView } from '#shared/schemas/subscriptions';
import { getPlan } from '#shared/services/subscriptions';

/** GET /v1/plans/:plan_id: one of the merchant's plans (another merchant's is answered as missing). */
export const handler = readApiHandler({}, async ({ path, merchant }) => json(200, { status: 200, plan: planView(await getPlan(merchant, path.plan_id)) }));
