import { readApiHandler } from '#shared/http/read-handler';
import { json } from '#shared/http/responses';
import { queryValidator } from '#shared/http/validation';
import { listSubscriptionsQuery } from '#shared/http/validators.generated';
import { listSubscriptionsQuerySchema, subscriptionView } from '#shared/schemas/subscriptions';
import { listMerchantSubscriptions } from '#shared/services/subscriptions';

const query = queryValidator(listSubscriptionsQuery, listSubscriptionsQuerySchema);

/** GET /v1/subscriptions: the merchant's subscriptions (in one status, or all), newest first, by cursor. */
export const handler = readApiHandler({ query }, async ({ query, merchant, now }) => {
  const page = await listMerchantSubscriptions(merchant, query);
  return json(200, { status: 200, subscriptions: page.subscriptions.map(({ subscription, plan }) => subscriptionView(subscription, plan, now)), next_cursor: page.nextCursor });
});
