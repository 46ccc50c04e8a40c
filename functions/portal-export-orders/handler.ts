import { portalStreamHandler } from '#shared/http/portal-handler';
import { portalOrdersQuery as query } from '#shared/http/validators.generated';
import { csvDownload, exportOrdersCsv } from '#shared/services/portal/export';

/**
 * GET /v1/portal/orders/export: the filtered orders as CSV (a download), streamed page by page
 * as it is read (a route with `stream: true`: a function URL behind the portal's CloudFront in AWS).
 */
export const handler = portalStreamHandler({ query }, async ({ query, context, now, remainingTimeMs }) => {
  const { cursor: _cursor, limit: _limit, ...filters } = query;
  return csvDownload(`orders-${now.toISOString().slice(0, 10)}.csv`, exportOrdersCsv(context, filters, { remainingTimeMs }));
});
