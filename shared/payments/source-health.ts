import { configuredSources, sourceHealthConfig, sourceOf } from '#shared/chains/health';
import { PaymentNotAvailableError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { listSourceHealth, type SourceHealth } from '#shared/store/source-health';

/**
 * Fail closed when a source cannot see: a currency is offered to live merchants' buyers only
 * while the source its payments are seen through is healthy, the way BTCPay Server refuses
 * invoices for a node that is not synced. The watchers write each source's health
 * (shared/store/source-health.ts); this reads it and decides, with the sources configured and
 * the limits of shared/chains/health.ts, and serves the operators' view.
 */

/** `ok`, or why a source's currencies are not offered now. */
export type SourceState = 'ok' | 'unknown' | 'failing' | 'wrong_chain' | 'lagging';

const ageSeconds = (at: string | undefined, now: Date): number => (at === undefined ? Infinity : (now.getTime() - Date.parse(at)) / 1000);

/** The state of a source from its last report (undefined: it never reported). */
export function sourceState(record: SourceHealth | undefined, now: Date, limits = sourceHealthConfig()): SourceState {
  if (!record) return 'unknown';
  if (record.chain_ok === false) return 'wrong_chain';
  if (ageSeconds(record.last_success_at, now) > limits.maxSilenceSeconds) return 'failing';
  if (record.caught_up_at !== undefined && ageSeconds(record.caught_up_at, now) > limits.maxLagSeconds) return 'lagging';
  return 'ok';
}

/** The state of one currency: its source's, or `failing` when the currency fails on its own (a token). */
export function currencyState(code: string, records: ReadonlyMap<string, SourceHealth>, now: Date, limits = sourceHealthConfig()): SourceState {
  const source = sourceOf(code);
  if (source === undefined) return 'ok';
  const record = records.get(source);
  const state = sourceState(record, now, limits);
  if (state === 'ok' && record?.currency_errors?.[code] !== undefined) return 'failing';
  return state;
}

/** How long a process keeps the health it read: the page polls every 3 s, checkouts come in bursts. */
const SNAPSHOT_MS = 10_000;
let snapshot: { at: number; records: Promise<ReadonlyMap<string, SourceHealth>> } | undefined;

/** Every source's last report, read at most once per 10 s per process. */
export function sourceHealthSnapshot(nowMs = Date.now()): Promise<ReadonlyMap<string, SourceHealth>> {
  if (!snapshot || nowMs - snapshot.at > SNAPSHOT_MS) {
    const records = listSourceHealth().then((list) => new Map(list.map((record) => [record.source, record])));
    snapshot = { at: nowMs, records };
    // A failed read is not kept: the next call asks again.
    records.catch(() => (snapshot = undefined));
  }
  return snapshot.records;
}

/** Forgets the snapshot (tests, and the watcher's own process after it reports). */
export function forgetSourceHealth(): void {
  snapshot = undefined;
}

/**
 * Whether new invoices in `code` may be made for `merchant` now: sandbox merchants and gateways
 * always (nothing is watched for them); a live merchant's watched currency only while its
 * source is healthy. Answers a predicate for the payment page's list.
 */
export async function watchedNow(merchant: Pick<MerchantProfile, 'sandbox'>, now: Date): Promise<(code: string) => boolean> {
  if (merchant.sandbox) return () => true;
  const records = await sourceHealthSnapshot(now.getTime());
  return (code) => currencyState(code, records, now) === 'ok';
}

/** The configured source watching a live merchant's invoices in `code`; undefined for sandbox merchants, gateways and unwatched currencies. */
export function watchedSourceOf(merchant: Pick<MerchantProfile, 'sandbox'>, code: string): string | undefined {
  const source = sourceOf(code);
  if (merchant.sandbox || source === undefined || !configuredSources().some((entry) => entry.source === source)) return undefined;
  return source;
}

/** Checkout's gate: PAYMENT_NOT_AVAILABLE for a currency whose source is not healthy (live merchants). */
export async function assertWatchedNow(merchant: Pick<MerchantProfile, 'sandbox'>, code: string, now: Date): Promise<void> {
  // Gateways are not watched; a currency without a configured source is refused by its payment method (which says so).
  if (watchedSourceOf(merchant, code) === undefined) return;
  const state = currencyState(code, await sourceHealthSnapshot(now.getTime()), now);
  if (state !== 'ok') {
    throw new PaymentNotAvailableError(`${code} is not available right now: its payment source is ${state.replace('_', ' ')}. Please choose another.`);
  }
}
