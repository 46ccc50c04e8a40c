/**
 * A local stand-in for a Hyperion history API (v2), for tests: `GET /v2/history/get_actions`
 * with `account`, `filter`, `sort`, `after`, `limit` and `checkLib`, answering Hyperion's JSON
 * (`lib`, `total`, `actions[]` with `@timestamp`, `block_num`, `block_id`, `trx_id`, `act`,
 * `global_sequence`), and `GET /v2/history/get_transaction?id=` (`executed`, `lib`, `actions[]`). The test plays the chain: `transfer` adds an action in a new block and
 * `irreversible` moves the last irreversible block.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HyperionAction {
  '@timestamp': string;
  timestamp: string;
  block_num: number;
  block_id: string;
  trx_id: string;
  act: { account: string; name: string; authorization: { actor: string; permission: string }[]; data: Record<string, unknown> };
  notified: string[];
  global_sequence: number;
  receipts: { receiver: string; global_sequence: string; recv_sequence: string; auth_sequence: { account: string; sequence: string }[] }[];
  producer: string;
  action_ordinal: number;
  creator_action_ordinal: number;
}

export type HyperionFault = 'unavailable' | 'not-json' | 'unordered' | 'hang' | 'wrong-shape';

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

export class HyperionTestServer {
  readonly actions: HyperionAction[] = [];
  readonly faults: HyperionFault[] = [];
  readonly queries: URLSearchParams[] = [];
  lib = 0;
  private block = 300_000_000;
  private sequence = 400_000_000_000;
  private time: number;
  private server: Server | undefined;

  /** `start`: the time of the chain's first block (default 2026-11-23T10:00Z; a watcher on the real clock wants now). */
  constructor(options: { start?: number } = {}) {
    this.time = options.start ?? Date.parse('2026-11-23T10:00:00.000Z');
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://hyperion');
      const fault = this.faults.shift();
      if (fault === 'hang') return; // the client's timeout ends it
      if (fault === 'wrong-shape') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ lib: 'soon', actions: {} }));
        return;
      }
      if (fault === 'unavailable') {
        res.writeHead(503).end('{"statusCode":503,"error":"Service Unavailable"}');
        return;
      }
      if (fault === 'not-json') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>gateway</html>');
        return;
      }
      if (url.pathname === '/v2/history/get_transaction') {
        // Hyperion's answer: executed false and no actions for an id it does not know.
        const id = url.searchParams.get('id');
        const actions = this.actions.filter((action) => action.trx_id === id);
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ query_time_ms: 1.1, executed: actions.length > 0, trx_id: id, lib: this.lib, cached_lib: false, ...(actions.length > 0 ? { actions } : {}) }));
        return;
      }
      if (url.pathname !== '/v2/history/get_actions') {
        res.writeHead(404).end('{"statusCode":404,"error":"Not Found"}');
        return;
      }
      this.queries.push(url.searchParams);
      const account = url.searchParams.get('account');
      const [code, name] = (url.searchParams.get('filter') ?? '*:*').split(':');
      const after = url.searchParams.get('after');
      const limit = Number(url.searchParams.get('limit') ?? '10');
      let found = this.actions.filter(
        (action) =>
          (!account || action.notified.includes(account)) &&
          (code === '*' || action.act.account === code) &&
          (name === '*' || action.act.name === name) &&
          (!after || Date.parse(action['@timestamp']) > Date.parse(after)),
      );
      if (url.searchParams.get('sort') === 'desc') found = [...found].reverse();
      found = found.slice(0, limit);
      if (fault === 'unordered') found = [...found].reverse();
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          query_time_ms: 3.2,
          cached: false,
          ...(url.searchParams.get('checkLib') === 'true' ? { lib: this.lib } : {}),
          total: { value: found.length, relation: 'eq' },
          actions: found,
        }),
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server?.close(() => resolve());
      this.server?.closeAllConnections();
    });
  }

  /** A token transfer in a new block (half a second after the previous one). */
  transfer(input: { from: string; to: string; quantity: string; memo: string; contract?: string }): HyperionAction {
    this.block += 1;
    this.time += 500;
    this.sequence += 1 + Math.floor(Math.random() * 5);
    const at = new Date(this.time).toISOString().replace('Z', '');
    const contract = input.contract ?? 'eosio.token';
    const data = { from: input.from, to: input.to, quantity: input.quantity, memo: input.memo, amount: Number(input.quantity.split(' ')[0]), symbol: input.quantity.split(' ')[1] };
    const action: HyperionAction = {
      '@timestamp': at,
      timestamp: at,
      block_num: this.block,
      block_id: `${this.block.toString(16).padStart(8, '0')}${hex(`block ${this.block}`).slice(8)}`,
      trx_id: hex(`${this.block}:${JSON.stringify(data)}`),
      act: { account: contract, name: 'transfer', authorization: [{ actor: input.from, permission: 'active' }], data },
      notified: [contract, input.from, input.to],
      global_sequence: this.sequence,
      receipts: [{ receiver: input.to, global_sequence: String(this.sequence), recv_sequence: '1', auth_sequence: [{ account: input.from, sequence: '1' }] }],
      producer: 'eosnationftw',
      action_ordinal: 1,
      creator_action_ordinal: 0,
    };
    this.actions.push(action);
    return action;
  }

  /** Every block so far is irreversible. */
  finalize(): void {
    this.lib = this.block;
  }
}
