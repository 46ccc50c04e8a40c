import { Readable } from 'node:stream';
import { portalStreamHandler } from '#shared/http/portal-handler';
import { portalOrdersQuery as query } from '#shared/http/validators.generated';
import { exportOrdersCsv } from '#shared/services/portal/export';

/**
 * GET /v1/portal/orders/export: the filtered orders as CSV (a download), streamed page by page
 * as it is read (a route with `stream: true`: a function URL behind the portal's CloudFront in AWS).
 */
export const handler = portalStreamHandler({ query }, async ({ query, context, now, remainingTimeMs }) => {
  const { cursor: _cursor, limit: _limit, ...filters } = query;
  return {
    statusCode: 200,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="orders-${now.toISOString().slice(0, 10)}.csv"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
    body: Readable.from(exportOrdersCsv(context, filters, { remainingTimeMs })),
  };
});
