/**
 * Lightning settlements from LND, as an {@link IndexedSource} ordered by LND's settle_index.
 *
 * LND numbers invoices twice: `add_index` when made, `settle_index` when settled (each new
 * settlement takes the next one). ListInvoices pages by add_index only, so the cursor holds
 * both: `S:A`, where S is the settle_index booked last and A an add_index below which every
 * invoice is final (settled at or below S, or canceled). Each call pages from A to the newest
 * invoice (the invoices of about one invoice lifetime: LND cancels an invoice that expires
 * unpaid, which moves A on), returns the settled ones above S in settle order, and moves S
 * over the contiguous run it returned.
 *
 * Races: an invoice seen OPEN early in a scan may settle before a later page is read and so
 * get a settle_index below one already seen. S therefore never jumps a missing settle_index
 * (the next scan finds it), unless the settlement after the gap is older than
 * `gapGraceSeconds`: a settlement that old would have been seen (it is outside the scanned
 * range: another application's invoice or, on the first run, one from before the watcher).
 * Transfers after a gap are reported again until the gap closes; booking is idempotent by the
 * payment hash, so that costs a read, never a second payment.
 *
 * Only invoices this service can have made hold A back: an OPEN invoice whose expiry exceeds
 * `maxExpirySeconds` is someone else's and is ignored.
 */
import { fromMinorUnits } from '#shared/domain/money';
import type { LndInvoice, LndRestClient } from '#shared/payments/lightning/lnd-rest';
import { SourceError } from '#shared/core/source-error';
import { type IndexedSource, type Transfer } from '#shared/watchers/sources/port';

export interface LndSettlementsOptions {
  /** Invoices per ListInvoices page (default 1000). */
  pageSize?: number;
  /** Pages one call reads at most (default 50): the bound on one call's work. */
  maxPages?: number;
  /** The first run (no cursor) starts this many invoices before the newest (default 1000). */
  lookback?: number;
  /** A settle_index gap this old is skipped (default 120 s; covers clock skew with the node). */
  gapGraceSeconds?: number;
  /** The longest expiry of an invoice this service makes (default 7 days). */
  maxExpirySeconds?: number;
  clock?: () => Date;
}

interface Cursor {
  settleIndex: bigint;
  addIndex: bigint;
}

/** LBTC amounts are BTC with 11 decimals: 1 msat = 0.00000000001 BTC. */
const MSAT_DECIMALS = 11;

export function formatLndCursor(cursor: Cursor): string {
  return `${cursor.settleIndex}:${cursor.addIndex}`;
}

function parseCursor(cursor: string): Cursor {
  const match = /^(\d{1,20}):(\d{1,20})$/.exec(cursor);
  if (!match) throw new RangeError(`not an LND settlement cursor: ${cursor}`);
  return { settleIndex: BigInt(match[1]!), addIndex: BigInt(match[2]!) };
}

export class LndSettlements implements IndexedSource {
  readonly chain = 'LBTC';
  private readonly pageSize: number;
  private readonly maxPages: number;
  private readonly lookback: bigint;
  private readonly gapGraceSeconds: number;
  private readonly maxExpirySeconds: number;
  private readonly clock: () => Date;

  constructor(
    private readonly client: LndRestClient,
    options: LndSettlementsOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 1000;
    this.maxPages = options.maxPages ?? 50;
    this.lookback = BigInt(options.lookback ?? 1000);
    this.gapGraceSeconds = options.gapGraceSeconds ?? 120;
    this.maxExpirySeconds = options.maxExpirySeconds ?? 7 * 86_400;
    this.clock = options.clock ?? (() => new Date());
  }

  async after(cursor: string | undefined, limit: number): Promise<{ transfers: Transfer[]; next: string | undefined }> {
    const startedAt = this.clock().getTime() / 1000;
    const from = cursor === undefined ? await this.firstCursor() : parseCursor(cursor);
    const { invoices, complete, end } = await this.scan(from.addIndex);

    const settled = invoices.filter((found) => found.state === 'SETTLED' && found.settleIndex > from.settleIndex).sort((a, b) => (a.settleIndex < b.settleIndex ? -1 : 1));
    const returned = settled.slice(0, Math.max(0, limit));

    // S moves over what is returned, in order, stopping at a gap that may still fill.
    let settleIndex = from.settleIndex;
    for (const found of returned) {
      const gap = found.settleIndex !== settleIndex + 1n;
      const old = found.settleDate <= startedAt - this.gapGraceSeconds;
      if (gap && !(complete && old)) break;
      settleIndex = found.settleIndex;
    }

    // A moves up to the first invoice that is not final and accounted for.
    const holding = invoices.find((found) => this.holdsBack(found, settleIndex));
    const addIndex = holding ? holding.addIndex - 1n : end;
    const next = { settleIndex, addIndex: addIndex > from.addIndex ? addIndex : from.addIndex };
    return { transfers: returned.map(toTransfer), next: formatLndCursor(next) };
  }

  private holdsBack(found: LndInvoice, settleIndex: bigint): boolean {
    if (found.state === 'SETTLED') return found.settleIndex > settleIndex;
    if (found.state === 'CANCELED') return false;
    return found.expirySeconds <= this.maxExpirySeconds;
  }

  private async firstCursor(): Promise<Cursor> {
    const newest = await this.client.newestAddIndex();
    return { settleIndex: 0n, addIndex: newest > this.lookback ? newest - this.lookback : 0n };
  }

  /** Pages forward from `addIndex`; `complete` when the newest invoice was reached within the page budget. */
  private async scan(addIndex: bigint): Promise<{ invoices: LndInvoice[]; complete: boolean; end: bigint }> {
    const invoices: LndInvoice[] = [];
    let offset = addIndex;
    for (let page = 0; page < this.maxPages; page += 1) {
      const { invoices: found, lastIndexOffset } = await this.client.listInvoices(offset, this.pageSize);
      for (const next of found) {
        const previous = invoices.at(-1)?.addIndex ?? offset;
        if (next.addIndex <= previous) throw new SourceError(this.chain, `ListInvoices is not in add_index order after ${previous}`);
        if (next.state === 'SETTLED' && (next.settleIndex === 0n || next.amountPaidMsat === 0n)) {
          throw new SourceError(this.chain, `settled invoice ${next.paymentHash} has no settle_index or amount`);
        }
        invoices.push(next);
      }
      const end = invoices.at(-1)?.addIndex ?? offset;
      if (found.length < this.pageSize) return { invoices, complete: true, end };
      if (lastIndexOffset !== end) throw new SourceError(this.chain, `ListInvoices last_index_offset ${lastIndexOffset} is not its last invoice`);
      offset = end;
    }
    return { invoices, complete: false, end: offset };
  }
}

function toTransfer(found: LndInvoice): Transfer {
  return {
    key: found.paymentHash,
    txid: found.paymentHash,
    currency: 'LBTC',
    // The address index holds the invoice's BOLT #11 string, as LND wrote it (lowercase).
    address: found.paymentRequest.toLowerCase(),
    amount: fromMinorUnits(found.amountPaidMsat, MSAT_DECIMALS),
    ...(found.settleDate > 0 ? { at: new Date(found.settleDate * 1000) } : {}),
  };
}
