/**
 * A flood of bad-token requests from one client address against another merchant's Get Order
 * (issue 21: "a flood of 600 bad-token requests raised another merchant's p50 from 6 ms to
 * 86 ms"). Runs through the local runtime's HTTP adapter, one table, the failures counted by the
 * handlers in the table as in AWS (QUOTA_STORE=table). Each run is a process of its own
 * (`runChild`), since the handlers read their quota settings once per process:
 *
 * - `quiet`: the victim's Get Order, one request at a time, nothing else running (once first
 *   and once last, `quiet_after`: the spread between the two is this machine's noise);
 * - `flood`: the same while one address sends bad tokens (`requests`, `concurrency` at once),
 *   with the failure budget as deployed (QUOTA_AUTH_FAILURES, QUOTA_AUTH_FAILURE_WINDOW_SECONDS);
 * - `flood_without_budget`: the same flood with the budget off (QUOTA_AUTH_FAILURES=0), what
 *   the service did before failures were counted.
 *
 * The victim's own request quota is off in all three (at one request after another it would
 * pass 25/s and measure its own 429s); the flood's answers are counted by status. Needs
 * TABLE_NAME, DYNAMODB_ENDPOINT, PAYMENT_PAGE_URL and TOKEN_HMAC_KEY set before it is imported
 * (as bench/run.ts sets them); each run's process inherits them.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { runChild } from './child';
import { summarize, type LatencyFigures } from './stats';

export interface FloodRun {
  /** The victim's Get Order latencies while the flood ran (or, quiet, on their own). */
  victim: LatencyFigures;
  /** The flood's answers by HTTP status (absent in the quiet run). */
  flood?: { requests: number; by_status: Record<string, number>; seconds: number; requests_per_s: number };
}

export interface AuthFloodReport {
  flood_requests: number;
  flood_concurrency: number;
  /** The failure budget of the `flood` run: failures per window, per address. */
  budget: { limit: number; window_seconds: number };
  quiet: FloodRun;
  flood: FloodRun;
  flood_without_budget: FloodRun;
  quiet_after: FloodRun;
}

/** The flood's source address: any loopback address other than the victim's 127.0.0.1 (Linux routes 127/8 to lo). */
const ATTACKER = '127.0.0.66';

interface Answer {
  status: number;
}

function get(url: string, headers: Record<string, string>, agent: Agent, localAddress?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers, agent, localAddress }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** One run, as its process is given it (AUTH_FLOOD_RUN, JSON). */
interface RunSettings {
  flood: boolean;
  requests: number;
  concurrency: number;
  victimSamples: number;
  victimToken: string;
  attackedToken: string;
}

/** One run in this process: the API behind the adapter, the victim's Get Orders, and the flood if asked. */
async function runHere(settings: RunSettings): Promise<FloodRun> {
  const { ROUTES } = await import('#shared/http/routes');
  const { createApiServer } = await import('#infra/local/http-adapter');
  const { apiFunctions } = await import('#infra/local/handlers');
  const server = createApiServer(ROUTES.map((route) => ({ ...route, load: apiFunctions[route.fn]! })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const victimAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const floodAgent = new Agent({ keepAlive: true, maxSockets: settings.concurrency });
  try {
    const create = await fetch(`${base}/v1/orders`, {
      method: 'POST',
      headers: { token: settings.victimToken, 'content-type': 'application/json' },
      body: JSON.stringify({ price_amount: 12.5, price_currency: 'USD', title: 'Flood bench order' }),
    });
    const orderId = ((await create.json()) as { order: { order_id: string } }).order.order_id;
    const getOrder = async () => {
      const start = performance.now();
      const answer = await get(`${base}/v1/orders/${orderId}`, { token: settings.victimToken }, victimAgent);
      if (answer.status !== 200) throw new Error(`auth-flood: the victim's Get Order answered ${answer.status}`);
      return performance.now() - start;
    };
    // Warm: the function modules, the victim's token cache, the connection.
    for (let i = 0; i < 50; i += 1) await getOrder();

    const samples: number[] = [];
    if (!settings.flood) {
      for (let i = 0; i < settings.victimSamples; i += 1) samples.push(await getOrder());
      return { victim: summarize(samples) };
    }
    const byStatus: Record<string, number> = {};
    let sent = 0;
    let done = false;
    const floodStart = performance.now();
    const worker = async () => {
      while (sent < settings.requests) {
        sent += 1;
        const bad = `${settings.attackedToken.slice(0, -8)}${randomBytes(4).toString('hex')}`;
        const answer = await get(`${base}/v1/orders`, { token: bad }, floodAgent, ATTACKER);
        byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
      }
    };
    const flooding = Promise.all(Array.from({ length: settings.concurrency }, worker)).then(() => {
      done = true;
    });
    // The victim's requests while the flood lasts (at least victimSamples / 10 of them).
    while (!done || samples.length < settings.victimSamples / 10) samples.push(await getOrder());
    await flooding;
    const seconds = (performance.now() - floodStart) / 1000;
    return {
      victim: summarize(samples),
      flood: { requests: settings.requests, by_status: byStatus, seconds: Math.round(seconds * 100) / 100, requests_per_s: Math.round(settings.requests / seconds) },
    };
  } finally {
    victimAgent.destroy();
    floodAgent.destroy();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

export async function measureAuthFlood(options: { requests: number; concurrency: number; victimSamples: number }): Promise<AuthFloodReport> {
  const { createMerchant } = await import('#shared/services/merchants');
  const { readQuotaConfig } = await import('#shared/core/config');
  const deployed = readQuotaConfig(process.env).authFailures;

  const victim = await createMerchant({ name: 'Bench flood victim', sandbox: true });
  // A real token of another merchant, its last characters changed: the flood's tokens look right.
  const attacked = await createMerchant({ name: 'Bench flood target', sandbox: true });

  const run = (authFailures: { limit: number; windowSeconds: number }, flood: boolean): Promise<FloodRun> => {
    const settings: RunSettings = { flood, ...options, victimToken: victim.api_token, attackedToken: attacked.api_token };
    return runChild<FloodRun>('bench/auth-flood.ts', {
      AUTH_FLOOD_RUN: JSON.stringify(settings),
      // The handlers' quotas as the stack and the local runtime set them, the victim's request quota off.
      QUOTA_STORE: 'table',
      QUOTA_MERCHANT_RATE: '0',
      QUOTA_PUBLIC_RATE: '0',
      QUOTA_AUTH_FAILURES: String(authFailures.limit),
      QUOTA_AUTH_FAILURE_WINDOW_SECONDS: String(authFailures.windowSeconds),
    });
  };

  const quiet = await run(deployed, false);
  const withBudget = await run(deployed, true);
  const withoutBudget = await run({ limit: 0, windowSeconds: deployed.windowSeconds }, true);
  const quietAfter = await run(deployed, false);
  return {
    flood_requests: options.requests,
    flood_concurrency: options.concurrency,
    budget: { limit: deployed.limit, window_seconds: deployed.windowSeconds },
    quiet,
    flood: withBudget,
    flood_without_budget: withoutBudget,
    quiet_after: quietAfter,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await runHere(JSON.parse(process.env.AUTH_FLOOD_RUN!) as RunSettings)));
}
