import { forgetSourceHealth } from '#shared/payments/source-health';
import { CHAINS } from '#shared/chains/sources';
import { type HealthReport, recordSourceHealth } from '#shared/store/source-health';

/**
 * Writes a report for `source` as its watcher would (now, caught up, on the right chain), so a
 * test that checks out a live merchant before any watcher ran finds the source healthy; and
 * forgets the process's cached snapshot so the next checkout reads it. `extra` overrides fields.
 */
export async function reportHealthy(source: string, kind = 'test', extra: Partial<Extract<HealthReport, { ok: true }>> = {}): Promise<void> {
  const now = new Date().toISOString();
  await recordSourceHealth({ ok: true, source, kind, checked_at: now, caught_up_at: now, chain_ok: true, ...extra });
  forgetSourceHealth();
}

/** {@link reportHealthy} for every chain the watchers know, and LBTC and EOS. */
export async function reportAllHealthy(): Promise<void> {
  for (const source of [...Object.keys(CHAINS), 'LBTC', 'EOS']) await reportHealthy(source);
}
