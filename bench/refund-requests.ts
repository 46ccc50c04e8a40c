/**
 * Provider requests of watching refunds (issue 30): does a refund waiting for the merchant's
 * payment add requests to its chain's source? Each source runs against its local test server
 * (tests/support: real signed transactions), stepped `steps` times (a new block or slot between
 * steps, nobody paying), with 10 open invoices and 0, 10 and 100 refunds waiting on the watch
 * list; the requests of those steps are counted by kind.
 *
 * - TRON: refund addresses are matched against each range's Transfer events like invoices' (no
 *   request per address): flat.
 * - Solana: a refund is paid to the buyer's wallet, so each waiting refund adds the buyer's USDC
 *   token account to those read: one getSignaturesForAddress a step per waiting refund.
 * - The block chains and EVM networks are not measured here: a refund address is one more entry
 *   of the block chain items of the watch list held in memory (shared/store/watch-list.ts), read per block as
 *   before; bench/watcher.ts measures that path.
 *
 * Run alone: `npx tsx bench/refund-requests.ts` (prints one JSON line).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { base58 } from '@scure/base';
import { tronAddressOfBytes } from '#shared/payments/addresses/tron';
import { SolanaTransfers } from '#shared/watchers/sources/solana';
import { TronTransfers } from '#shared/watchers/sources/tron';
import { signedTrc20Transfer, TronGridTestServer } from '../tests/support/trongrid-server';
import { MAINNET_BETA_GENESIS_HASH, SolanaTestServer } from '../tests/support/solana-server';

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const PAYER = '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const OPEN_INVOICES = 10;

export interface RefundRequestsReport {
  steps: number;
  open_invoices: number;
  /** Provider requests a step, by refunds waiting: total and by kind. */
  tron: Record<string, { per_step: number; by_kind: Record<string, number> }>;
  solana: Record<string, { per_step: number; by_kind: Record<string, number> }>;
  /** Requests a step added per waiting refund, from 0 to the most refunds. */
  added_per_refund: { tron: number; solana: number };
}

const delta = (after: Map<string, number>, before: Map<string, number>, steps: number): { per_step: number; by_kind: Record<string, number> } => {
  const byKind: Record<string, number> = {};
  for (const [kind, count] of after) if (count > (before.get(kind) ?? 0)) byKind[kind] = Math.round(((count - (before.get(kind) ?? 0)) / steps) * 100) / 100;
  return { per_step: Math.round(Object.values(byKind).reduce((a, b) => a + b, 0) * 100) / 100, by_kind: byKind };
};

async function tronAt(refunds: number, steps: number) {
  const server = await new TronGridTestServer([{ address: USDT, symbol: 'USDT', name: 'Tether USD', decimals: 6 }]).start();
  try {
    server.solidHeadAgeMs = undefined;
    const since = new Date(Date.now() - 60_000).toISOString();
    const address = () => tronAddressOfBytes(randomBytes(20));
    const watched = Array.from({ length: OPEN_INVOICES + refunds }, () => ({ address: address(), currency: 'USDT_TRC20', since }));
    const source = new TronTransfers({ url: server.url, contract: USDT, currency: 'USDT_TRC20', decimals: 6, watched: async () => watched });
    const block = () => {
      server.sendBlock(Array.from({ length: 5 }, () => signedTrc20Transfer(PAYER, USDT, address(), 1_000_000n)));
      server.solidify();
    };
    block();
    let { next: cursor } = await source.after(undefined, 100); // the cold start: where to begin
    const before = new Map(server.requests);
    for (let i = 0; i < steps; i += 1) {
      block();
      cursor = (await source.after(cursor, 100)).next;
    }
    return delta(server.requests, before, steps);
  } finally {
    await server.close();
  }
}

async function solanaAt(refunds: number, steps: number) {
  const cluster = await new SolanaTestServer(MAINNET_BETA_GENESIS_HASH).start();
  try {
    cluster.mint(USDC, 6);
    const merchant = base58.encode(randomBytes(32));
    await cluster.tokenAccount(merchant, USDC);
    const since = new Date(Date.now() - 60_000).toISOString();
    const invoices = Array.from({ length: OPEN_INVOICES }, () => ({ address: base58.encode(randomBytes(32)), currency: 'USDC_SOL', since, recipient: merchant }));
    const waiting = Array.from({ length: refunds }, () => base58.encode(randomBytes(32))).map((wallet) => ({ address: wallet, currency: 'USDC_SOL', since, recipient: wallet, kind: 'refund' }));
    const watched = [...invoices, ...waiting];
    const source = new SolanaTransfers({ url: cluster.url, tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }], genesisHash: MAINNET_BETA_GENESIS_HASH, watched: async () => watched });
    let { next: cursor } = await source.after(undefined, 100); // the cold start
    source.booked();
    const before = new Map(cluster.requests);
    for (let i = 0; i < steps; i += 1) {
      cluster.finalize();
      cursor = (await source.after(cursor, 100)).next;
      source.booked();
    }
    return delta(cluster.requests, before, steps);
  } finally {
    await cluster.close();
  }
}

export async function measureRefundRequests(options: { waiting?: number[]; steps?: number } = {}): Promise<RefundRequestsReport> {
  const waiting = options.waiting ?? [0, 10, 100];
  const steps = options.steps ?? 6;
  const tron: RefundRequestsReport['tron'] = {};
  const solana: RefundRequestsReport['solana'] = {};
  for (const count of waiting) {
    tron[String(count)] = await tronAt(count, steps);
    solana[String(count)] = await solanaAt(count, steps);
  }
  const most = String(Math.max(...waiting));
  const fewest = String(Math.min(...waiting));
  const per = (figures: RefundRequestsReport['tron']) => Math.round(((figures[most]!.per_step - figures[fewest]!.per_step) / (Number(most) - Number(fewest))) * 100) / 100;
  return { steps, open_invoices: OPEN_INVOICES, tron, solana, added_per_refund: { tron: per(tron), solana: per(solana) } };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measureRefundRequests()));
}
