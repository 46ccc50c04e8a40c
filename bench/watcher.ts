/**
 * The chain watcher's figures (bench group `watcher`), against a local Esplora server and a
 * local Bitcoin Core JSON-RPC server serving blocks of real transactions (tests/support), and
 * the real DynamoDB Local:
 *
 * - detection latency: from a transaction's broadcast (it enters the mempool) to the order's
 *   PENDING change, and from the block that gives it its last required confirmation to PAID,
 *   with the watcher polling every second (WATCH_INTERVAL_SECONDS=1). The status change and
 *   its callback delivery are one transaction, so this is also when the callback is queued
 *   (bench/callbacks.ts measures the delivery after that).
 * - work per block: one step over a block of N transactions (each pays a fresh address and
 *   returns change to one shared address; 5 pay invoices): requests to the source, DynamoDB
 *   requests and units, and time.
 * - booking cost per order: DynamoDB units of one payment seen in the mempool, then confirmed.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Address, NETWORK } from '@scure/btc-signer';
import { performance } from 'node:perf_hooks';
import { startCoreRpcServer } from '../tests/support/core-rpc-server';
import { startEsploraServer } from '../tests/support/esplora-server';
import { UtxoChain } from '../tests/support/utxo-chain';
import { meterCapacity } from './capacity';
import { percentile, round2 } from './stats';

export interface BlockWork {
  source: 'esplora' | 'core-rpc';
  transactions: number;
  outputs: number;
  /** Unique addresses looked up in the address index (BatchGetItem keys). */
  lookups: number;
  /** What AWS bills for them: 0.5 RCU per key read eventually consistent, found or not. */
  billed_lookup_read_units: number;
  source_requests: number;
  dynamodb_requests: number;
  read_units: number;
  write_units: number;
  ms: number;
}

export interface WatcherReport {
  interval_ms: number;
  detection_ms: { pending: { p50: number; p99: number; max: number }; paid: { p50: number; p99: number; max: number }; orders: number };
  per_block: BlockWork[];
  /** Units of one order's payment: booked from the mempool (PENDING), then matured (PAID). */
  per_order_booking: { write_units: number; read_units: number; dynamodb_requests: number };
  /** One idle round (caught up, nothing new): what every WATCH_INTERVAL costs. */
  idle_round: { dynamodb_requests: number; read_units: number; write_units: number; source_requests: number };
  goals: { detection_p50_ms_max: number };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round2(percentile(sorted, 50)), p99: round2(percentile(sorted, 99)), max: round2(Math.max(...sorted)) };
};

export async function measureWatcher(options: { orders: number }): Promise<WatcherReport> {
  // Loaded after the bench set TABLE_NAME and the endpoint.
  const { createMerchant } = await import('#shared/services/merchants');
  const { createOrder } = await import('#shared/services/orders');
  const { findMerchant } = await import('#shared/store/merchants');
  const { findOrderWithInvoice } = await import('#shared/store/orders');
  const { ChainWatcher } = await import('#shared/watchers/block-watcher');
  const { pollChain } = await import('#shared/watchers/watch-loop');
  const { EsploraSource } = await import('#shared/watchers/sources/esplora');
  const { CoreRpcSource } = await import('#shared/watchers/sources/core-rpc');
  const { db } = await import('#shared/store/client');
  const { reset: resetCapacityMeter } = meterCapacity(db());
  const { parseDecimal, toMinorUnits } = await import('#shared/domain/money');

  const credentials = await createMerchant({ name: 'Bench watched', sandbox: true });
  const merchant = (await findMerchant(credentials.user_id))!;
  const newInvoice = async () => {
    const { order, invoice } = await createOrder(merchant, { price_amount: 65, pay_currency: 'BTC' }, new Date());
    return { id: order.order_id, address: invoice!.payment_address, sats: toMinorUnits(parseDecimal(invoice!.pay_amount), 8) };
  };
  const status = async (id: string) => (await findOrderWithInvoice(id))!.order.status;
  const waitFor = async (id: string, wanted: string) => {
    for (let i = 0; i < 3000; i += 1) {
      if ((await status(id)) === wanted) return;
      await sleep(10);
    }
    throw new Error(`order ${id} never became ${wanted}`);
  };

  // Detection latency, the watcher polling every second as it would with WATCH_INTERVAL_SECONDS=1.
  const chain = new UtxoChain('BTC');
  const esplora = await startEsploraServer(chain);
  const intervalMs = 1000;
  const controller = new AbortController();
  const watcher = new ChainWatcher(new EsploraSource({ chain: 'BTC', baseUrl: esplora.url }), { cursorName: `BTC-bench-${randomUUID()}` });
  await watcher.step();
  const loop = pollChain(watcher, { intervalMs, signal: controller.signal });
  const pending: number[] = [];
  const paid: number[] = [];
  let booking = { write_units: 0, read_units: 0, dynamodb_requests: 0 };
  try {
    for (let i = 0; i < options.orders; i += 1) {
      const order = await newInvoice();
      // A random phase against the polling clock, as a real buyer's is.
      await sleep(Math.random() * intervalMs);
      if (i === 0) resetCapacityMeter();
      const sent = performance.now();
      chain.pay([{ address: order.address, sats: order.sats }]);
      await waitFor(order.id, 'PENDING');
      pending.push(performance.now() - sent);
      chain.mine();
      await sleep(Math.random() * intervalMs);
      const confirmed = performance.now();
      chain.mineEmpty(1); // the second confirmation (BTC needs 2)
      await waitFor(order.id, 'PAID');
      paid.push(performance.now() - confirmed);
      if (i === 0) {
        // Everything the process did meanwhile (the watcher's rounds and our status reads): an upper bound.
        const used = resetCapacityMeter();
        booking = { write_units: round2(used.writeUnits), read_units: round2(used.readUnits), dynamodb_requests: used.requests };
      }
    }
  } finally {
    controller.abort();
    await loop;
  }

  // One idle round.
  const sourceCount = (server: { requests: Map<string, number> }) => [...server.requests.values()].reduce((a, b) => a + b, 0);
  let requestsBefore = sourceCount(esplora);
  resetCapacityMeter();
  await watcher.step();
  const idleUnits = resetCapacityMeter();
  const idle = { dynamodb_requests: idleUnits.requests, read_units: round2(idleUnits.readUnits), write_units: round2(idleUnits.writeUnits), source_requests: sourceCount(esplora) - requestsBefore };

  // Work per block: blocks of N transactions, 5 of them paying invoices.
  const perBlock: BlockWork[] = [];
  const node = await startCoreRpcServer(chain, { user: 'bench', password: 'bench', addressStyle: 'address' });
  try {
    for (const transactions of [100, 1000]) {
      for (const kind of ['esplora', 'core-rpc'] as const) {
        const invoices = await Promise.all(Array.from({ length: 5 }, () => newInvoice()));
        const source =
          kind === 'esplora'
            ? new EsploraSource({ chain: 'BTC', baseUrl: esplora.url })
            : new CoreRpcSource({ chain: 'BTC', url: node.url.replace('http://', 'http://bench:bench@') });
        const w = new ChainWatcher(source, { cursorName: `BTC-bench-${randomUUID()}`, mempool: false });
        await w.step();
        const txs = [];
        // Transactions to fresh addresses that are nobody's invoice: every one is looked up.
        const stranger = () => Address(NETWORK).encode({ type: 'wpkh', hash: randomBytes(20) });
        for (let t = 0; t < transactions - 5; t += 1) txs.push(chain.pay([{ address: stranger(), sats: 1000n + BigInt(t) }], { mempool: false }));
        for (const invoice of invoices) txs.push(chain.pay([{ address: invoice.address, sats: invoice.sats }], { mempool: false }));
        chain.mine(txs);
        const server = kind === 'esplora' ? esplora : node;
        requestsBefore = sourceCount(server);
        resetCapacityMeter();
        const start = performance.now();
        const report = await w.step();
        const ms = performance.now() - start;
        const units = resetCapacityMeter();
        if (report.booked !== 5) throw new Error(`block of ${transactions}: booked ${report.booked} payments, expected 5`);
        perBlock.push({
          source: kind,
          transactions: transactions + 1,
          outputs: report.transfers,
          lookups: report.lookups,
          billed_lookup_read_units: report.lookups * 0.5,
          source_requests: sourceCount(server) - requestsBefore,
          dynamodb_requests: units.requests,
          read_units: round2(units.readUnits),
          write_units: round2(units.writeUnits),
          ms: round2(ms),
        });
      }
    }
  } finally {
    await node.close();
    await esplora.close();
  }
  return {
    interval_ms: intervalMs,
    detection_ms: { pending: summary(pending), paid: summary(paid), orders: options.orders },
    per_block: perBlock,
    per_order_booking: booking,
    idle_round: idle,
    goals: { detection_p50_ms_max: 5000 },
  };
}
