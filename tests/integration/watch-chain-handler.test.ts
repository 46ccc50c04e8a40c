import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Context } from 'aws-lambda';
import type { FaultyServer } from '../support/chain-http';
import { startEsploraServer } from '../support/esplora-server';
import { UtxoChain } from '../support/utxo-chain';
import { demandWatching, releaseWatchLease, takeWatchLease } from '#shared/store/watch-demand';

let esplora: FaultyServer | undefined;
afterAll(async () => esplora?.close());

const contextWith = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs }) as unknown as Context;

describe('the watch-chain function (AWS, one per chain, every minute)', () => {
  it('polls its chain within the run, publishes how far behind it is (a Powertools metric), and fails a run where nothing worked', async () => {
    const chain = new UtxoChain('LTC');
    esplora = await startEsploraServer(chain);
    // LTC: this file's own chain, so its cursor is shared with no other test.
    Object.assign(process.env, { WATCH_CHAIN: 'LTC', LTC_ESPLORA_URL: esplora.url, WATCH_INTERVAL_SECONDS: '1' });
    // The test setup keeps metrics quiet (as the local runtime does); this file reads them.
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    const { handler } = await import('#functions/watch-chain/handler');
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      // No open invoice on LTC and nothing maturing: one look, then done (pay-per-use).
      const idle = await handler({}, contextWith(65_000));
      expect(idle).toMatchObject({ steps: 1, failures: 0, idle: true });
      // An invoice keeps the chain watched until a while after it expires (checkout writes this).
      await demandWatching('LTC', new Date(Date.now() + 3_600_000));
      const idleLines = lines.splice(0);
      // The idle look reported the source's health: all ok (reported when it changes, so not again below).
      expect(idleLines.map((line) => JSON.parse(line)).filter((line) => 'UnhealthyCurrencies' in line)).toEqual([
        expect.objectContaining({ UnhealthyCurrencies: 0, _aws: expect.objectContaining({ CloudWatchMetrics: [expect.objectContaining({ Dimensions: [['service']] })] }) }),
      ]);
      // 65 s left: the run polls for 5 s (it stops 60 s before the timeout).
      const result = await handler({}, contextWith(65_000));
      expect(result.steps).toBeGreaterThanOrEqual(2);
      expect(result.behind).toBe(0);
      const all = lines.map((line) => JSON.parse(line)).filter((line) => line._aws);
      // No series per chain (CloudWatch bills each a month): every metric has the service dimension alone.
      for (const line of all) expect(line._aws.CloudWatchMetrics).toEqual([expect.objectContaining({ Namespace: 'CryptoPayOrders', Dimensions: [['service']] })]);
      expect(all.filter((line) => 'ChainBlocksBehind' in line || 'Chain' in line || 'Source' in line)).toEqual([]);

      // Another run holds the chain (a woken one): this one does not poll it too.
      expect(await takeWatchLease('LTC', 'other-run', new Date(Date.now() + 60_000), new Date())).toBe(true);
      expect(await handler({}, contextWith(65_000))).toEqual({ steps: 0, failures: 0, leased: true });
      await releaseWatchLease('LTC', 'other-run');

      esplora.fault({ kind: 'error', times: 1000 });
      await expect(handler({}, contextWith(61_500))).rejects.toThrow(/LTC: no look at the chain succeeded in this run/);
    } finally {
      write.mockRestore();
    }
  });
});
