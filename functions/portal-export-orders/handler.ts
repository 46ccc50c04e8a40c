import { portalHandler } from '#shared/http/portal-handler';
import { portalOrdersQuery as query } from '#shared/http/validators.generated';
import { exportOrdersCsv } from '#shared/services/portal-export';

/** GET /v1/portal/orders/export: the filtered orders as CSV (a download). */
export const handler = portalHandler({ query }, async ({ query, context, now }) => {
  const { cursor: _cursor, limit: _limit, ...filters } = query;
  const state = { truncated: false };
  const chunks: string[] = [];
  for await (const line of exportOrdersCsv(context, filters, state)) chunks.push(line);
  return {
    statusCode: 200,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="orders-${now.toISOString().slice(0, 10)}.csv"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-export-truncated': String(state.truncated),
    },
    body: chunks.join(''),
  };
});
