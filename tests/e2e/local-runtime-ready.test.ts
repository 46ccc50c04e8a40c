import { describe, expect, inject, it } from 'vitest';
import { freePort } from '#infra/local/ports';
import { startRuntime } from '#infra/local/runtime';

/**
 * The local runtime answers its port only when every part is ready: a client that waits for
 * the port and calls at once (a script started after `npm start`) finds the demo merchant.
 * In process, on the test setup's DynamoDB Local, so only the runtime's own start is timed.
 */
describe('the local runtime starting', () => {
  it('opens its port only when the demo merchant is there: the first call that connects is served', async () => {
    const port = await freePort();
    const token = `ready-token-${'r'.repeat(20)}`;
    const starting = startRuntime({
      port,
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      tableName: `runtime-ready-${process.pid}`,
      demoApiToken: token,
      expirySweepSeconds: 3600,
    });
    let first: Response | undefined;
    let refused = 0;
    while (!first) {
      try {
        first = await fetch(`http://127.0.0.1:${port}/v1/orders?limit=1`, { headers: { token } });
      } catch {
        refused += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    const runtime = await starting;
    try {
      // The port was tried while the runtime was starting (the race this is about was run).
      expect(refused).toBeGreaterThan(0);
      expect(first.status, await first.clone().text()).toBe(200);
      expect(((await first.json()) as { status: number }).status).toBe(200);
      expect(runtime.url).toBe(`http://127.0.0.1:${port}`);
    } finally {
      await runtime.stop();
    }
  }, 60_000);
});
