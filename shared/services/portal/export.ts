import type { PortalOrdersQuery } from '#shared/schemas/portal';
import type { PortalContext } from '#shared/services/portal/sessions';
import { Readable } from 'node:stream';
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
  constructor(
    readonly rows: number,
    what = 'orders',
  ) {
    super(`export out of time after ${rows} ${what}`);
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

/** One page of an export: its rows and the next page's cursor (null on the last). */
export interface ExportPage<Row> {
  rows: Row[];
  next_cursor: string | null;
}

/** What an export is made of: its columns, how to read a page after a cursor, and its words for rows and for its incomplete end. */
export interface CsvExport<Row> {
  columns: readonly (keyof Row & string)[];
  read: (cursor: string | undefined) => Promise<ExportPage<Row>>;
  /** What a row is, for the log and the out-of-time error ("orders"). */
  what: string;
  incomplete: (rows: number) => string;
}

/**
 * A CSV, one chunk per page (the header line first). When a page cannot be read, or the
 * function's time is nearly up, the last chunk is the export's incomplete line and the generator
 * then throws: the stream carrying it fails, so the answer is cut (never a clean end that looks
 * whole). Every portal export (orders, subscriptions) is made by this one loop.
 */
export async function* csvExport<Row>(csv: CsvExport<Row>, time: { remainingTimeMs: () => number }): AsyncGenerator<string> {
  yield `${csv.columns.join(',')}\r\n`;
  let rows = 0;
  let cursor: string | undefined;
  try {
    do {
      if (time.remainingTimeMs() < EXPORT_STOP_MARGIN_MS) throw new ExportOutOfTimeError(rows, csv.what);
      const page = await csv.read(cursor);
      if (page.rows.length > 0) yield page.rows.map((row) => `${csv.columns.map((column) => csvField(row[column])).join(',')}\r\n`).join('');
      rows += page.rows.length;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  } catch (error) {
    logger.error(`${csv.what} export incomplete`, { rows, error });
    yield csv.incomplete(rows);
    throw error;
  }
}

/** The orders CSV of the list's filters (the columns above), page by page. */
export function exportOrdersCsv(context: PortalContext, query: Omit<PortalOrdersQuery, 'cursor' | 'limit'>, time: { remainingTimeMs: () => number }): AsyncGenerator<string> {
  return csvExport(
    {
      columns: EXPORT_COLUMNS,
      what: 'orders',
      incomplete: incompleteLine,
      read: async (cursor) => {
        const page = await listPortalOrders(context, { ...query, limit: EXPORT_PAGE, ...(cursor ? { cursor } : {}) });
        return { rows: page.orders, next_cursor: page.next_cursor };
      },
    },
    time,
  );
}

/** A CSV download's answer (streamed): its file name, and the chunks of {@link csvExport}. */
export function csvDownload(filename: string, chunks: AsyncGenerator<string>) {
  return {
    statusCode: 200,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${filename}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
    body: Readable.from(chunks),
  };
}
