import { type ConfiguredSource, configuredSources } from '#shared/chains/health';
import { currencyState, forgetSourceHealth, sourceHealthSnapshot, sourceState, type SourceState } from '#shared/payments/source-health';
import { CHAINS } from '#shared/chains/sources';
import { publishValue } from '#shared/core/metrics';
import { type HealthReport, listSourceHealth, recordSourceHealth, type SourceHealth } from '#shared/store/source-health';

/** One configured source as operators see it. `last_error` only in the operator's view (the CLI). */
export interface SourceHealthView {
  source: string;
  kind: string;
  state: SourceState;
  currencies: Record<string, SourceState>;
  last_success_at: string | null;
  last_error_at: string | null;
  lag_seconds: number | null;
  tip_height: number | null;
  cursor_height: number | null;
  chain_ok: boolean | null;
}

export interface HealthView {
  healthy: boolean;
  checked_at: string;
  sources: (SourceHealthView & { last_error?: string | null; currency_errors?: Record<string, string> })[];
}

/**
 * Every configured source's health at `now`. The public view (`GET /v1/health`) carries states,
 * times and heights only: no node URL (never stored), no error text (it may name a host), no
 * merchant data. The operator's view (`withErrors`, the CLI) adds the last error and the
 * failing currencies' reasons, read fresh from the table.
 */
export async function healthView(now: Date, options: { withErrors?: boolean } = {}): Promise<HealthView> {
  const records: ReadonlyMap<string, SourceHealth> = options.withErrors ? new Map((await listSourceHealth()).map((record) => [record.source, record])) : await sourceHealthSnapshot(now.getTime());
  const configured: ConfiguredSource[] = configuredSources();
  // The operator's CLI runs without the deployment's source settings: it also shows every source that reported.
  if (options.withErrors) {
    for (const record of records.values()) {
      if (!configured.some((entry) => entry.source === record.source)) {
        configured.push({ source: record.source, kind: record.kind, currencies: CHAINS[record.source]?.currencies ?? [record.source] });
      }
    }
  }
  const sources = configured.map(({ source, kind, currencies }) => {
    const record = records.get(source);
    const view: HealthView['sources'][number] = {
      source,
      kind,
      state: sourceState(record, now),
      currencies: Object.fromEntries(currencies.map((code) => [code, currencyState(code, records, now)])),
      last_success_at: record?.last_success_at ?? null,
      last_error_at: record?.last_error_at ?? null,
      lag_seconds: record?.caught_up_at === undefined ? null : Math.max(0, Math.round((now.getTime() - Date.parse(record.caught_up_at)) / 1000)),
      tip_height: record?.tip_height ?? null,
      cursor_height: record?.cursor_height ?? null,
      chain_ok: record?.chain_ok ?? null,
    };
    if (options.withErrors) Object.assign(view, { last_error: record?.last_error ?? null, currency_errors: record?.currency_errors ?? {} });
    return view;
  });
  const healthy = sources.every((view) => view.state === 'ok' && Object.values(view.currencies).every((state) => state === 'ok'));
  return { healthy, checked_at: now.toISOString(), sources };
}

/**
 * What a watcher does after each look at its source: records it (shared/store/source-health.ts)
 * and publishes how many currencies of every configured source are not ok now
 * (UnhealthyCurrencies: one series for the whole service, the health alarm's metric). Every
 * watcher counts every source, a silent one included (its last success grows old: `failing`),
 * so the alarm needs no series per source. A report that could not be stored is logged by the
 * caller; the watcher goes on watching either way. Returns the count.
 */
export async function reportSourceHealth(report: HealthReport, now = new Date(report.checked_at)): Promise<number> {
  await recordSourceHealth(report);
  forgetSourceHealth();
  const records = new Map((await listSourceHealth()).map((record) => [record.source, record]));
  const sources = configuredSources();
  // A watcher knows its own source even where the process's settings do not list it.
  if (!sources.some((entry) => entry.source === report.source)) {
    sources.push({ source: report.source, kind: report.kind, currencies: CHAINS[report.source]?.currencies ?? [report.source] });
  }
  const unhealthy = sources.flatMap(({ currencies }) => currencies).filter((code) => currencyState(code, records, now) !== 'ok').length;
  publishValue('UnhealthyCurrencies', unhealthy);
  return unhealthy;
}
