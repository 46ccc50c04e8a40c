import { readApiHandler } from '#shared/http/read-handler';
import { json } from '#shared/http/responses';
import { queryValidator } from '#shared/http/validation';
import { listPlansQuery } from '#shared/http/validators.generated';
import { listPlansQuerySchema, planView } from '#shared/schemas/subscriptions';
import { listMerchantPlans } from '#shared/services/subscriptions';

const query = queryValidator(listPlansQuery, listPlansQuerySchema);

/** GET /v1/plans: the merchant's plans, newest first, by cursor. */
export const handler = readApiHandler({ query }, async ({ query, merchant }) => {
  const page = await listMerchantPlans(merchant, query);
  return json(200, { status: 200, plans: page.plans.map(planView), next_cursor: page.nextCursor });
});
