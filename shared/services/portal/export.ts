import type { PortalOrdersQuery } from '#shared/schemas/portal';
import type { PortalContext } from '#shared/services/portal/sessions';
import { logger } from '#shared/core/logger';
import { listPortalOrders, orderRow } from '#shared/services/portal/orders';

/**
 * The orders CSV (for accounting): the list's filters, every matching order, newest first, one
 * row per order with the columns below, the same in AWS and locally (both run this code).
 * It is produced page by page ({@link EXPORT_PAGE} orders a Query) and streamed as it is read,
 * so memory holds one page however many orders there are; no row cap, the function's time
 * bounds it (docs/performance.md has the figures).
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

/** Orders per Query: a Query reads at most 1 MB anyway; bigger pages are fewer round trips. */
export const EXPORT_PAGE = 500;

/** The export starts no page with less time than this left: it ends on its own terms, not killed mid-write. */
export const EXPORT_STOP_MARGIN_MS = 5_000;

/** The line that ends an export that could not finish: no row starts with `#` (order ids never do). */
export const incompleteLine = (rows: number): string => `# EXPORT INCOMPLETE after ${rows} orders: this file is not the whole export. Export again, or narrow the dates.\r\n`;

/** The export ran out of its function's time before the last page. */
export class ExportOutOfTimeError extends Error {
  constructor(readonly rows: number) {
    super(`export out of time after ${rows} orders`);
    this.name = 'ExportOutOfTimeError';
  }
}

/**
 * One CSV field (RFC 4180 quoting). A text starting with = + - @ (or a tab/CR) is prefixed with
 * a quote mark, so a spreadsheet shows a buyer-chosen title instead of running it as a formula.
 */
export function csvField(value: unknown): string {
  let text = String(value ?? '');
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n']/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The CSV, one chunk per page (the header line first). When a page cannot be read, or the
 * function's time is nearly up, the last chunk is {@link incompleteLine} and the generator then
 * throws: the stream carrying it fails, so the answer is cut (never a clean end that looks whole).
 */
export async function* exportOrdersCsv(
  context: PortalContext,
  query: Omit<PortalOrdersQuery, 'cursor' | 'limit'>,
  time: { remainingTimeMs: () => number },
): AsyncGenerator<string> {
  yield `${EXPORT_COLUMNS.join(',')}\r\n`;
  let rows = 0;
  let cursor: string | undefined;
  try {
    do {
      if (time.remainingTimeMs() < EXPORT_STOP_MARGIN_MS) throw new ExportOutOfTimeError(rows);
      const page = await listPortalOrders(context, { ...query, limit: EXPORT_PAGE, ...(cursor ? { cursor } : {}) });
      if (page.orders.length > 0) yield page.orders.map((order) => `${EXPORT_COLUMNS.map((column) => csvField(order[column])).join(',')}\r\n`).join('');
      rows += page.orders.length;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  } catch (error) {
    logger.error('orders export incomplete', { rows, error });
    yield incompleteLine(rows);
    throw error;
  }
}
