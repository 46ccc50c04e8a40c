import { portalStreamHandler } from '#shared/http/portal-handler';
import { portalSubscriptionsQuery as query } from '#shared/http/validators.generated';
import { csvDownload } from '#shared/services/portal/export';
import { exportSubscriptionsCsv } from '#shared/services/portal/subscriptions';

/**
 * GET /v1/portal/subscriptions/export: the list's subscriptions (its status or search) as CSV,
 * streamed page by page as it is read, as the orders export is (a route with `stream: true`).
 */
export const handler = portalStreamHandler({ query }, async ({ query, context, now, remainingTimeMs }) =>
  csvDownload(`subscriptions-${now.toISOString().slice(0, 10)}.csv`, exportSubscriptionsCsv(context, { status: query.status, q: query.q }, { remainingTimeMs }, now)),
);
