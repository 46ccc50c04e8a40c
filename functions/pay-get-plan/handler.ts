import { publicReadHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { planPage } from '#shared/services/subscriber';

/** GET /v1/pay/plans/:plan_id (public): the plan as its link page shows it. Opening it makes nothing. */
export const handler = publicReadHandler({}, async ({ path }) => json(200, await planPage(path.plan_id)));
