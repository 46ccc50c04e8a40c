import type { PortalOrdersQuery } from '#shared/schemas/portal';
import type { PortalContext } from '#shared/services/portal-sessions';
import { listPortalOrders, orderRow } from '#shared/services/portal-orders';

/**
 * The orders CSV (for accounting): the list's filters, every matching order, newest first, one
 * row per order with the columns below, the same in AWS and locally (both run this code).
 * Rows are produced page by page (100 orders a Query), so memory holds one page; the answer
 * is bounded by {@link MAX_EXPORT_ROWS} (a Lambda answer is at most 6 MB): narrow the dates for more.
 */
export const EXPORT_COLUMNS = [
  'order_id',
  'merchant_order_id',
  'title',
  'status',
  'price_amount',
  'price_currency',
  'pay_amount',
  'pay_currency',
  'created_at',
  'updated_at',
  'sandbox',
] as const satisfies readonly (keyof ReturnType<typeof orderRow>)[];

export const MAX_EXPORT_ROWS = 20_000;
const EXPORT_PAGE = 100;

/**
 * One CSV field (RFC 4180 quoting). A text starting with = + - @ (or a tab/CR) is prefixed with
 * a quote mark, so a spreadsheet shows a buyer-chosen title instead of running it as a formula.
 */
export function csvField(value: unknown): string {
  let text = String(value ?? '');
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n']/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV's lines (header first), page by page; `truncated` is set when {@link MAX_EXPORT_ROWS} stopped it. */
export async function* exportOrdersCsv(context: PortalContext, query: Omit<PortalOrdersQuery, 'cursor' | 'limit'>, state: { truncated: boolean } = { truncated: false }): AsyncGenerator<string> {
  yield `${EXPORT_COLUMNS.join(',')}\r\n`;
  let rows = 0;
  let cursor: string | undefined;
  do {
    const page = await listPortalOrders(context, { ...query, limit: EXPORT_PAGE, ...(cursor ? { cursor } : {}) });
    for (const order of page.orders) {
      if (rows >= MAX_EXPORT_ROWS) {
        state.truncated = true;
        return;
      }
      yield `${EXPORT_COLUMNS.map((column) => csvField(order[column])).join(',')}\r\n`;
      rows += 1;
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}
