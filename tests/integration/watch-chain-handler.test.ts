import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Context } from 'aws-lambda';
import type { FaultyServer } from '../support/chain-http';
import { startEsploraServer } from '../support/esplora-server';
import { UtxoChain } from '../support/utxo-chain';
import { demandWatching } from '#shared/store/watch-demand';
import { freshQueue, receiveTicks } from '../support/stepped';

let esplora: FaultyServer | undefined;
afterAll(async () => esplora?.close());

const contextWith = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs }) as unknown as Context;

describe('the watch-chain function (AWS, one per chain: every minute, on a wake, and per step)', () => {
  it('steps its chain and sends the next step to the timer queue, the next invocation takes it from there, and fails an invocation where nothing worked', async () => {
    const chain = new UtxoChain('LTC');
    esplora = await startEsploraServer(chain);
    // A timer queue of this file's own on the SQS emulator (the stack gives each watcher the step timer's).
    const queue = await freshQueue();
    // LTC: this file's own chain, so its cursor is shared with no other test.
    Object.assign(process.env, { WATCH_CHAIN: 'LTC', LTC_ESPLORA_URL: esplora.url, WATCH_INTERVAL_SECONDS: '1', WATCH_TICK_QUEUE_URL: queue });
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
      // In demand: the minute's run takes the chain's lease, steps it, and leaves the next step to the timer.
      chain.mineEmpty(2);
      const result = await handler({}, contextWith(65_000));
      expect(result).toMatchObject({ failed: false, behind: false, next: { delaySeconds: 1, failures: 0 } });
      expect(result.steps).toBeGreaterThanOrEqual(1);
      const [tick, ...more] = await receiveTicks(queue);
      expect(more).toEqual([]);
      expect(tick).toMatchObject({ source: 'watch-tick', chain: 'LTC', failures: 0 });
      // The minute's next run finds the line stepping the chain: it leaves it.
      expect(await handler({}, contextWith(65_000))).toEqual({ steps: 0, failures: 0, leased: true });
      // The tick's invocation (tick-watchers passes it on as it came) steps again and sends the line's next tick.
      chain.mineEmpty(1);
      expect(await handler(tick, contextWith(65_000))).toMatchObject({ steps: expect.any(Number), failed: false, next: { delaySeconds: 1 } });
      expect(await receiveTicks(queue)).toEqual([{ ...tick! }]);
      // A tick for another chain is a bug of ours, not input: refused.
      await expect(handler({ ...tick, chain: 'BTC' }, contextWith(65_000))).rejects.toThrow(/LTC: a watch tick that is not one of this chain's/);
      const all = lines.map((line) => JSON.parse(line)).filter((line) => line._aws);
      // No series per chain (CloudWatch bills each a month): every metric has the service dimension alone.
      for (const line of all) expect(line._aws.CloudWatchMetrics).toEqual([expect.objectContaining({ Namespace: 'CryptoPayOrders', Dimensions: [['service']] })]);
      expect(all.filter((line) => 'ChainBlocksBehind' in line || 'Chain' in line || 'Source' in line)).toEqual([]);

      // The line's tick fails against a failing source: the invocation fails, and the line goes on after a backoff.
      esplora.fault({ kind: 'error', times: 1000 });
      await expect(handler(tick, contextWith(61_500))).rejects.toThrow(/LTC: the look at the chain failed/);
      // Its backoff: 1 to 2 s after one failure (WATCH_INTERVAL_SECONDS doubled, with jitter).
      const [retry] = await receiveTicks(queue, 5);
      expect(retry).toMatchObject({ chain: 'LTC', owner: tick!.owner, failures: 1 });
    } finally {
      write.mockRestore();
    }
  });
});
