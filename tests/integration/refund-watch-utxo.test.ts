import { describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';

// BTC has a source in this file's environment, so live merchants may check out in BTC.
vi.hoisted(() => {
  process.env.BTC_ESPLORA_URL = 'http://127.0.0.1:9/';
});

import { watchedShop } from '../support/watched-shop';
import { startEsploraServer } from '../support/esplora-server';
import { startCoreRpcServer } from '../support/core-rpc-server';
import { UtxoChain } from '../support/utxo-chain';
import { payTo, satsOf, stored, testXpub } from '../support/watchers';
import { profileOf } from '#shared/domain/merchant';
import { createMerchant } from '#shared/services/merchants';
import { askRefund } from '#shared/services/refunds/ask';
import { setRefundAddress, refundUrl } from '#shared/services/refunds/buyer-link';
import { reportRefundTransaction } from '#shared/services/refunds/reported';
import { deriveAddress } from '#shared/payments/addresses/index';
import { findMerchant } from '#shared/store/merchants';
import { findRefund } from '#shared/store/refunds';
import { listDeliveries } from '#shared/store/deliveries';
import { listMaturingPayments } from '#shared/store/maturing-payments';
import { BlockWatcher } from '#shared/watchers/block-watcher';
import { refundTransactionCheck, type RefundCheckSources } from '#shared/watchers/refund-check';
import { CoreRpcSource } from '#shared/watchers/sources/core-rpc';
import { EsploraSource } from '#shared/watchers/sources/esplora';
import type { BlockSource } from '#shared/watchers/sources/port';

const shop = watchedShop('refund-watch-utxo', 'Refund Watch Shop');
const actor = { who: 'test', from: '127.0.0.1' };

/** A live merchant, a chain with its Esplora server, and one watcher (its own cursor) on it. */
async function liveShopOnChain() {
  const xpub = testXpub();
  const live = await createMerchant({ name: 'Live refunds', sandbox: false, xpubs: { BTC: xpub }, callbackStatuses: 'all' });
  const profile = profileOf((await findMerchant(live.user_id))!);
  const chain = new UtxoChain('BTC');
  const server = await startEsploraServer(chain);
  shop.servers.push(server);
  const source = new EsploraSource({ chain: 'BTC', baseUrl: server.url, http: { timeoutMs: 300, attempts: 2, backoffMs: 5 } });
  const cursorName = `BTC-refund-${randomUUID()}`;
  const watcher = new BlockWatcher(source, { cursorName });
  await watcher.step(); // the cursor starts at the tip
  return { live, profile, chain, source, watcher, cursorName };
}

type LiveShop = Awaited<ReturnType<typeof liveShopOnChain>>;

/** A live BTC order paid in full on the chain (PAID at 2 confirmations). */
async function paidOrder({ live, chain, watcher }: LiveShop): Promise<{ id: string; sats: bigint }> {
  const created = await shop.call('POST', '/v1/orders', {
    token: live.api_token,
    body: { price_amount: 65, price_currency: 'USD', pay_currency: 'BTC', callback_url: 'https://shop.example/callback' },
  });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  const invoice = (await shop.call('GET', `/v1/orders/${id}`, { token: live.api_token })).body.invoice;
  payTo(chain, invoice.payment_address, satsOf(invoice.pay_amount));
  chain.mine();
  chain.mineEmpty(1);
  await watcher.step();
  expect((await stored(id)).order.status).toBe('PAID');
  return { id, sats: satsOf(invoice.pay_amount) };
}

/** A refund of the whole order, its address set by the buyer (a fresh mainnet address). */
async function addressedRefund(shopOnChain: LiveShop, orderId: string, choices: Parameters<typeof askRefund>[2] = {}) {
  const asked = await askRefund(shopOnChain.profile, orderId, choices, actor, new Date());
  const secret = new URL(await refundUrl(asked.refund!)).hash.slice('#refund='.length);
  const address = deriveAddress('BTC', testXpub(), 0);
  const refund = await setRefundAddress({ secret, address, now: new Date() });
  expect(refund).toMatchObject({ status: 'AWAITING_PAYMENT', address });
  return refund;
}

describe('a refund paid from the merchant’s wallet, seen by the BTC watcher (Esplora)', () => {
  it('short: shown, not SENT; not final: not SENT; in full at 2 confirmations: SENT, the order REFUNDED with its callback; seen again: one', async () => {
    const shopOnChain = await liveShopOnChain();
    const { chain, watcher, cursorName } = shopOnChain;
    const order = await paidOrder(shopOnChain);
    const refund = await addressedRefund(shopOnChain, order.id);
    expect(refund.amount).toBe('0.001');

    // A payment of one satoshi less: in the mempool, then at 1 of 2 confirmations, nothing counts yet.
    const short = payTo(chain, refund.address!, order.sats - 1n);
    expect((await watcher.step()).refunds).toBe(0);
    chain.mine();
    await watcher.step();
    expect(await listMaturingPayments(cursorName)).toEqual([
      expect.objectContaining({ key: `${short.txid}:0`, refund: expect.objectContaining({ refundId: refund.refund_id }), address: refund.address }),
    ]);
    let now = (await findRefund(order.id, refund.refund_id))!;
    expect(now.status).toBe('AWAITING_PAYMENT');
    expect(now.short_payments ?? []).toEqual([]);

    // Final: recorded as a short payment, the refund still waits.
    chain.mineEmpty(1);
    expect((await watcher.step()).refunds).toBe(1);
    now = (await findRefund(order.id, refund.refund_id))!;
    expect(now.status).toBe('AWAITING_PAYMENT');
    expect(now.short_payments).toEqual([expect.objectContaining({ key: `${short.txid}:0`, amount: '0.00099999' })]);
    expect((await stored(order.id)).order.status).toBe('REFUND_PENDING');

    // The full amount: at 1 confirmation not sent, at 2 SENT.
    const full = payTo(chain, refund.address!, order.sats);
    await watcher.step();
    chain.mine();
    await watcher.step();
    expect((await findRefund(order.id, refund.refund_id))!.status).toBe('AWAITING_PAYMENT');
    chain.mineEmpty(1);
    await watcher.step();
    now = (await findRefund(order.id, refund.refund_id))!;
    expect(now).toMatchObject({ status: 'SENT', txid: full.txid });
    const done = await stored(order.id);
    expect(done.order.status).toBe('REFUNDED');
    const callback = (await listDeliveries(order.id)).find((delivery) => delivery.status === 'REFUNDED')!;
    expect(JSON.parse(callback.payload).refunds).toEqual([expect.objectContaining({ refund_id: refund.refund_id, status: 'SENT', address: refund.address, txid: full.txid })]);

    // The same transfer seen again (a new watcher, the blocks scanned again) and another payment: nothing changes.
    payTo(chain, refund.address!, order.sats);
    chain.mine();
    chain.mineEmpty(2);
    await watcher.step();
    expect((await stored(order.id)).order.version).toBe(done.order.version);
    expect((await listDeliveries(order.id)).filter((delivery) => delivery.status === 'REFUNDED')).toHaveLength(1);
  });

  it('two refunds waiting on one address: each transfer pays one of them (the one of its amount), never both', async () => {
    const shopOnChain = await liveShopOnChain();
    const { chain, watcher } = shopOnChain;
    const order = await paidOrder(shopOnChain);
    const asked = [
      await askRefund(shopOnChain.profile, order.id, { basis: 'custom', amount: '0.0003' }, actor, new Date()),
      await askRefund(shopOnChain.profile, order.id, { basis: 'custom', amount: '0.0002' }, actor, new Date()),
    ];
    const address = deriveAddress('BTC', testXpub(), 0);
    const refunds = [];
    for (const one of asked) refunds.push(await setRefundAddress({ secret: new URL(await refundUrl(one.refund!)).hash.slice('#refund='.length), address, now: new Date() }));

    // The second refund's amount first: it pays the second, though the first is older.
    const second = payTo(chain, address, 20_000n);
    chain.mine();
    chain.mineEmpty(1);
    await watcher.step();
    expect(await findRefund(order.id, refunds[1]!.refund_id)).toMatchObject({ status: 'SENT', txid: second.txid });
    expect((await findRefund(order.id, refunds[0]!.refund_id))!.status).toBe('AWAITING_PAYMENT');

    const first = payTo(chain, address, 30_000n);
    chain.mine();
    chain.mineEmpty(1);
    await watcher.step();
    expect(await findRefund(order.id, refunds[0]!.refund_id)).toMatchObject({ status: 'SENT', txid: first.txid });
    expect((await findRefund(order.id, refunds[1]!.refund_id))!.txid).toBe(second.txid);
  });
});

describe('checking a refund transaction the merchant reports (Esplora /tx, Core RPC getrawtransaction)', () => {
  it('answers what it paid the refund address and whether final; wrong address, unknown txid and an unconfigured chain are not found', async () => {
    const shopOnChain = await liveShopOnChain();
    const { chain } = shopOnChain;
    const order = await paidOrder(shopOnChain);
    const refund = await addressedRefund(shopOnChain, order.id);
    const rpc = await startCoreRpcServer(chain, { user: 'watcher', password: 'pw', addressStyle: 'address' });
    shop.servers.push(rpc);
    const rpcUrl = new URL(rpc.url);
    rpcUrl.username = 'watcher';
    rpcUrl.password = 'pw';
    const through = (source: BlockSource): RefundCheckSources => ({
      block: async (name) => (name === 'BTC' ? source : undefined),
      tron: () => undefined,
      solana: () => undefined,
      eos: () => undefined,
      indexed: () => undefined,
    });
    const checks = {
      esplora: refundTransactionCheck(through(shopOnChain.source)),
      rpc: refundTransactionCheck(through(new CoreRpcSource({ chain: 'BTC', url: rpcUrl.toString(), http: { timeoutMs: 300, attempts: 2, backoffMs: 5 } }))),
    };

    const paid = payTo(chain, refund.address!, order.sats - 100n);
    const other = payTo(chain, deriveAddress('BTC', testXpub(), 0), order.sats);
    for (const check of Object.values(checks)) {
      expect(await check(refund, paid.txid)).toEqual({ found: true, key: `${paid.txid}:0`, amount: '0.000999', final: false });
    }
    chain.mine();
    expect(await checks.esplora(refund, paid.txid)).toMatchObject({ final: false });
    chain.mineEmpty(1);
    for (const check of Object.values(checks)) {
      expect(await check(refund, paid.txid)).toEqual({ found: true, key: `${paid.txid}:0`, amount: '0.000999', final: true });
      expect(await check(refund, other.txid)).toEqual({ found: false, reason: "the transaction pays nothing in BTC to the refund's address" });
      expect(await check(refund, 'ab'.repeat(32))).toMatchObject({ found: false, reason: expect.stringContaining('does not know') });
    }
    // No BTC source: fail closed.
    const none = refundTransactionCheck({ block: async () => undefined, tron: () => undefined, solana: () => undefined, eos: () => undefined, indexed: () => undefined });
    await expect(none(refund, paid.txid)).rejects.toMatchObject({ code: 'REFUND_CHECK_UNAVAILABLE', message: 'Transactions on Bitcoin cannot be checked: this deployment reads no Bitcoin source.' });

    // Reported: the wrong amount is a short payment (refused, recorded); the right one sends it.
    await expect(reportRefundTransaction(shopOnChain.profile, order.id, refund.refund_id, paid.txid, checks.esplora, actor, new Date())).rejects.toMatchObject({ code: 'REFUND_TX_INVALID' });
    const full = payTo(chain, refund.address!, order.sats);
    chain.mine();
    chain.mineEmpty(1);
    const sent = await reportRefundTransaction(shopOnChain.profile, order.id, refund.refund_id, full.txid, checks.rpc, actor, new Date());
    expect(sent).toMatchObject({ status: 'SENT', txid: full.txid });
    expect((await stored(order.id)).order.status).toBe('REFUNDED');
    // The watcher then sees the same transfer: one refund, one callback.
    await shopOnChain.watcher.step();
    expect((await listDeliveries(order.id)).filter((delivery) => delivery.status === 'REFUNDED')).toHaveLength(1);
  });
});
