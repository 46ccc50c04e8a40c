import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Context } from 'aws-lambda';
import { listUnmatchedPayments } from '#shared/store/unmatched-payments';
import { demandWatching } from '#shared/store/watch-demand';
import { HyperionTestServer } from '../support/hyperion-server';
import { freshQueue, receiveTicks } from '../support/stepped';

let hyperion: HyperionTestServer | undefined;
afterAll(async () => hyperion?.stop());

const contextWith = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs }) as unknown as Context;
const ACCOUNT = 'watchfnshop1';

describe('the watch-chain function for EOS (an indexed source, same schedule and alarms)', () => {
  it('polls Hyperion within the run, publishes UnmatchedPayments once (no series per chain), logs a transfer no invoice takes once', async () => {
    hyperion = await new HyperionTestServer({ start: Date.now() }).start();
    const queue = await freshQueue();
    // EOS: this file's own source, so its cursor (EOS) is shared with no other test.
    Object.assign(process.env, { WATCH_CHAIN: 'EOS', EOS_ACCOUNT: ACCOUNT, EOS_HISTORY_URL: hyperion.url, WATCH_INTERVAL_SECONDS: '1', WATCH_TICK_QUEUE_URL: queue });
    // The test setup keeps metrics quiet (as the local runtime does); this file reads them.
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    const sent = hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: '4.2000 EOS', memo: 'for my order, thanks' });
    hyperion.finalize();
    const { handler } = await import('#functions/watch-chain/handler');
    // An open EOS invoice keeps the watcher polling (pay-per-use: without one a run looks once).
    await demandWatching('EOS', new Date(Date.now() + 3_600_000));
    const lines: string[] = [];
    const capture = (chunk: string | Uint8Array) => {
      lines.push(
        ...String(chunk)
          .split('\n')
          .filter((line) => line.startsWith('{')),
      );
      return true;
    };
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const writeError = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      // In demand: steps while the cursor moves (behind), then leaves the next step to the timer.
      const result = await handler({}, contextWith(63_000));
      expect(result.steps).toBeGreaterThanOrEqual(2);
      expect(result).toMatchObject({ behind: false, next: { delaySeconds: 1 } });
      const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const unmatchedCounts = parsed.filter((line) => line._aws && 'UnmatchedPayments' in line);
      // Published only when there is one (a series published every step would be billed all month), without a chain dimension.
      expect(unmatchedCounts).toEqual([
        expect.objectContaining({ UnmatchedPayments: 1, _aws: expect.objectContaining({ CloudWatchMetrics: [expect.objectContaining({ Dimensions: [['service']] })] }) }),
      ]);
      expect(parsed.filter((line) => line._aws && 'ChainBlocksBehind' in line)).toEqual([]);
      const unmatched = parsed.filter((line) => line.message === 'a payment matches no invoice: return it to its sender');
      expect(unmatched).toEqual([expect.objectContaining({ level: 'ERROR', chain: 'EOS', reason: 'NO_INVOICE', txid: sent.trx_id, memo: 'for my order, thanks', amount: '4.2' })]);
      expect((await listUnmatchedPayments('EOS')).map((found) => found.txid)).toEqual([sent.trx_id]);

      // A second run (the line's next step; its lease still held, so a tick of the same owner) finds it kept already: not logged again.
      lines.length = 0;
      const [tick] = await receiveTicks(queue);
      expect(tick).toMatchObject({ chain: 'EOS', failures: 0 });
      await handler(tick, contextWith(61_500));
      expect(lines.some((line) => line.includes('matches no invoice'))).toBe(false);

      hyperion.faults.push(...Array<'not-json'>(1000).fill('not-json'));
      await expect(handler(tick, contextWith(61_500))).rejects.toThrow(/EOS: the look at the chain failed/);
    } finally {
      write.mockRestore();
      writeError.mockRestore();
    }
  });
});
