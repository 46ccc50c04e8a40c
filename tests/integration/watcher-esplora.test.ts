import { describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';

// BTC has a source in this file's environment, so live merchants may check out in BTC (LTC has none).
vi.hoisted(() => {
  process.env.BTC_ESPLORA_URL = 'http://127.0.0.1:9/';
});

import { watchedShop } from '../support/watched-shop';
import { startEsploraServer } from '../support/esplora-server';
import { UtxoChain } from '../support/utxo-chain';
import { payTo, satsOf, stored, testXpub } from '../support/watchers';
import { createMerchant } from '#shared/services/merchants';
import { BlockWatcher, type BlockWatcherOptions } from '#shared/watchers/block-watcher';
import { EsploraSource } from '#shared/watchers/sources/esplora';
import { SourceError } from '#shared/core/source-error';
import { type Block, type BlockSource } from '#shared/watchers/sources/port';
import { expireDueOrders } from '#shared/services/expiry';
import { findInvoice } from '#shared/store/invoices';
import { readCursor } from '#shared/store/chain-cursors';
import { listMaturingPayments } from '#shared/store/maturing-payments';
import { deriveAddress } from '#shared/payments/addresses/index';
import { listUnmatchedPayments } from '#shared/store/unmatched-payments';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { orderKey } from '#shared/store/keys';
import { parseDecimal } from '#shared/domain/money';

// This file's own table: its late-payment test sweeps with the clock two hours ahead, which
// would expire the orders other test files are working on in the shared table.
const shop = watchedShop('watcher-esplora', 'Watched Shop');

/** A NEW order checked out in BTC (65 USD = 0.001 BTC at the demo rate). */
async function checkedOut(as = shop.token, price = 65): Promise<{ id: string; address: string; sats: bigint; invoiceId: string; expiredAt: string }> {
  const created = await shop.call('POST', '/v1/orders', { token: as, body: { price_amount: price, price_currency: 'USD', pay_currency: 'BTC' } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id;
  const got = await shop.call('GET', `/v1/orders/${id}`, { token: as });
  const invoice = got.body.invoice;
  return { id, address: invoice.payment_address, sats: satsOf(invoice.pay_amount), invoiceId: invoice.invoice_id, expiredAt: invoice.expired_at };
}

/** A chain, its Esplora server and watchers sharing one cursor (each watcher is one run of the service). */
async function watchedChain(options: Partial<BlockWatcherOptions> = {}) {
  const chain = new UtxoChain('BTC');
  const server = await startEsploraServer(chain);
  shop.servers.push(server);
  const cursorName = `BTC-test-${randomUUID()}`;
  const source = () => new EsploraSource({ chain: 'BTC', baseUrl: server.url, http: { timeoutMs: 300, attempts: 2, backoffMs: 5 } });
  const watcher = (more: Partial<BlockWatcherOptions> = {}, from: BlockSource = source()) => new BlockWatcher(from, { cursorName, ...options, ...more });
  const first = watcher();
  await first.step(); // the cursor starts at the tip
  return { chain, server, cursorName, source, watcher, step: () => first.step() };
}

/** `source`'s blocks, each changed by `change` (a source that reads them wrong), and no mempool. */
function changedBlocks(source: () => BlockSource, change: (block: Block) => Block): BlockSource {
  return {
    chain: 'BTC',
    tip: () => source().tip(),
    blockHash: (height) => source().blockHash(height),
    mempool: async () => [],
    block: async (height) => change(await source().block(height)),
  };
}

describe('the watcher with an Esplora source', () => {
  it('exact payment: PENDING from the mempool, still PENDING at 1 of 2 confirmations, PAID at 2; seen again, nothing changes', async () => {
    const { chain, step, cursorName } = await watchedChain();
    const order = await checkedOut();
    const tx = payTo(chain, order.address, order.sats);

    const seen = await step();
    expect(seen.booked).toBe(1);
    let now = await stored(order.id);
    expect(now.order.status).toBe('PENDING');
    expect(now.invoice!.payments).toEqual([expect.objectContaining({ key: `${tx.txid}:0`, txid: tx.txid, amount: '0.001', confirmations: 0 })]);

    const block = chain.mine();
    const version = now.order.version;
    await step();
    now = await stored(order.id);
    expect(now.order.status).toBe('PENDING');
    // Mined short of its confirmations: the block is kept as a maturing payment; the order and
    // invoice (which already have the payment) are not written again until it is final.
    expect(now.order.version).toBe(version);
    expect(now.invoice!.payments).toEqual([expect.objectContaining({ confirmations: 0 })]);
    expect(await listMaturingPayments(cursorName)).toEqual([expect.objectContaining({ key: `${tx.txid}:0`, height: block.height, block_hash: block.hash, order_id: order.id })]);

    chain.mineEmpty(1);
    const confirmed = await step();
    expect(confirmed.matured).toBe(1);
    now = await stored(order.id);
    expect(now.order.status).toBe('PAID');
    expect(now.invoice!.payments).toEqual([expect.objectContaining({ confirmations: 2, block_height: block.height, block_hash: block.hash })]);
    expect(await listMaturingPayments(cursorName)).toEqual([]);

    chain.mineEmpty(1);
    await step();
    expect((await stored(order.id)).order.version).toBe(now.order.version);
  });

  it('one transaction paying two invoices: under- and overpaid, each output booked on its own invoice', async () => {
    const { chain, step } = await watchedChain();
    const under = await checkedOut();
    const over = await checkedOut();
    const tx = chain.pay(
      [
        { address: under.address, sats: under.sats - 1n },
        { address: over.address, sats: over.sats + 1n },
      ],
      { extraOpReturn: true },
    );
    chain.mine();
    chain.mineEmpty(1);
    await step();
    expect((await stored(under.id)).order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
    expect((await stored(over.id)).order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'OVERPAID' });
    expect((await stored(under.id)).invoice!.payments).toEqual([expect.objectContaining({ key: `${tx.txid}:0`, amount: '0.00099999' })]);
    expect((await stored(over.id)).invoice!.payments).toEqual([expect.objectContaining({ key: `${tx.txid}:1`, amount: '0.00100001' })]);
  });

  it('two partial payments add up: PENDING while one is unconfirmed, PAID once both are', async () => {
    const { chain, step } = await watchedChain();
    const order = await checkedOut();
    const half = order.sats / 2n;
    payTo(chain, order.address, half);
    chain.mine();
    chain.mineEmpty(1);
    payTo(chain, order.address, order.sats - half);
    await step();
    expect((await stored(order.id)).order.status).toBe('PENDING');
    chain.mine();
    chain.mineEmpty(1);
    await step();
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toHaveLength(2);
  });

  it('a payment to a replaced invoice is booked on that invoice and makes the order UNRESOLVED', async () => {
    const { chain, step } = await watchedChain();
    const order = await checkedOut();
    // Switching to another currency replaces the BTC invoice (the same currency again would show it again).
    const again = await shop.call('POST', `/v1/orders/${order.id}/checkout`, { token: shop.token, body: { pay_currency: 'LTC' } });
    expect(again.body.invoice.invoice_id).not.toBe(order.invoiceId);
    payTo(chain, order.address, order.sats);
    chain.mine();
    await step();
    // Unconfirmed on the replaced invoice: recorded, the order waits.
    expect((await stored(order.id)).order.status).toBe('NEW');
    chain.mineEmpty(1);
    await step();
    const now = await stored(order.id);
    expect(now.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'PAID_TO_REPLACED_INVOICE' });
    expect(now.invoice!.invoice_id).toBe(again.body.invoice.invoice_id);
    expect(now.invoice!.payments ?? []).toEqual([]);
    const replaced = await findInvoice(order.id, order.invoiceId);
    expect(replaced!.payments).toEqual([expect.objectContaining({ amount: '0.001', confirmations: 2 })]);
  });

  it('late payments: after expiry (swept or not) a confirmed payment is UNRESOLVED PAID_LATE', async () => {
    const late = Date.now() + 2 * 3600 * 1000;
    const { chain, step } = await watchedChain({ clock: () => new Date(late) });
    const unswept = await checkedOut();
    const swept = await checkedOut();
    await expireDueOrders(new Date(late));
    expect((await stored(swept.id)).order.status).toBe('EXPIRED');
    payTo(chain, unswept.address, unswept.sats);
    payTo(chain, swept.address, swept.sats);
    chain.mine();
    chain.mineEmpty(1);
    await step();
    for (const order of [unswept, swept]) {
      expect((await stored(order.id)).order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'PAID_LATE' });
    }
  });

  it('a reorganisation takes back a payment whose transaction left the chain: the PENDING order is NEW again', async () => {
    const { chain, step } = await watchedChain();
    const order = await checkedOut();
    const tx = payTo(chain, order.address, order.sats);
    const block = chain.mine();
    await step();
    expect((await stored(order.id)).order.status).toBe('PENDING');

    // A double spend wins: the block with our transaction is replaced by a longer branch without it.
    chain.orphan(1, { dropTxs: true });
    chain.mineEmpty(2);
    const undone = await step();
    expect(undone.reorganisations).toBe(1);
    expect(undone.retracted).toBe(1);
    const now = await stored(order.id);
    expect(now.order.status).toBe('NEW');
    expect(now.invoice!.payments).toEqual([expect.objectContaining({ key: `${tx.txid}:0`, confirmations: 0, left_chain_at: expect.any(String) })]);
    expect(now.invoice!.payments![0]!.block_hash).toBeUndefined();
    expect(undone.cursor).toEqual({ height: chain.tip.height, hash: chain.tip.hash });
    expect(block.hash).not.toBe(chain.blockAt(block.height)!.hash);
  });

  it('a reorganisation whose new branch mines the same transaction again: booked again under the same key, then PAID', async () => {
    const { chain, step } = await watchedChain();
    const order = await checkedOut();
    const tx = payTo(chain, order.address, order.sats);
    chain.mine();
    await step();
    const seenAt = (await stored(order.id)).invoice!.payments![0]!.seen_at;
    // The tip is replaced at the same height (the cursor's own block): the transaction goes back to the mempool.
    chain.orphan(1);
    const again = chain.mine([]);
    await step();
    // Back in the mempool: counted again as unconfirmed.
    expect((await stored(order.id)).order.status).toBe('PENDING');
    chain.mine();
    chain.mineEmpty(1);
    await step();
    const now = await stored(order.id);
    expect(now.order.status).toBe('PAID');
    expect(now.invoice!.payments).toEqual([expect.objectContaining({ key: `${tx.txid}:0`, confirmations: 2, seen_at: seenAt })]);
    expect(now.invoice!.payments![0]!.left_chain_at).toBeUndefined();
    expect(now.invoice!.payments![0]!.block_height).toBe(again.height + 1);
  });

  it('a source that times out or answers garbage: the step fails, nothing is booked or moved, the next step books once', async () => {
    const { chain, server, step, cursorName } = await watchedChain();
    const order = await checkedOut();
    payTo(chain, order.address, order.sats);
    const block = chain.mine();
    chain.mineEmpty(1);
    const before = await readCursor(cursorName);

    server.fault({ kind: 'hang', times: 2, match: /\/txs\/0$/ });
    await expect(step()).rejects.toThrow(SourceError);
    server.fault({ kind: 'garbage', times: 1, match: /\/txs\/0$/, body: '<html>502 Bad Gateway</html>' });
    await expect(step()).rejects.toThrow(/not JSON/);
    // Well-formed JSON in the wrong shape: a satoshi value as a string.
    const page = JSON.parse(await (await fetch(`${server.url}/block/${block.hash}/txs/0`)).text());
    page[1].vout[0].value = String(page[1].vout[0].value);
    server.fault({ kind: 'garbage', times: 1, match: /\/txs\/0$/, body: JSON.stringify(page) });
    await expect(step()).rejects.toThrow(/satoshi value/);
    server.fault({ kind: 'error', times: 2, match: /^\/block-height\// });
    await expect(step()).rejects.toThrow(/HTTP 503 after 2 tries/);
    expect(await readCursor(cursorName)).toEqual(before);
    expect((await stored(order.id)).order.status).toBe('NEW');

    await step();
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toHaveLength(1);
  });

  it('the same block seen by two runs at once is booked once; the run that loses the cursor stops', async () => {
    const { chain, watcher } = await watchedChain();
    const order = await checkedOut();
    const version = (await stored(order.id)).order.version;
    payTo(chain, order.address, order.sats);
    chain.mine();
    chain.mineEmpty(1);
    const reports = await Promise.all([watcher({ mempool: false }).step(), watcher({ mempool: false }).step()]);
    expect(reports.filter((r) => r.yielded).length).toBeGreaterThanOrEqual(1);
    const now = await stored(order.id);
    expect(now.order.status).toBe('PAID');
    expect(now.order.version).toBe(version + 1);
    expect(now.invoice!.payments).toHaveLength(1);
  });

  it('a restart in the middle of a block: what was booked stays booked once, the rest is booked by the next run', async () => {
    const { chain, source, watcher, cursorName } = await watchedChain({ mempool: false });
    const first = await checkedOut();
    const second = await checkedOut();
    chain.pay([
      { address: first.address, sats: first.sats },
      { address: second.address, sats: second.sats },
    ]);
    chain.mine();
    const before = await readCursor(cursorName);
    // The run dies while booking the block's second payment (after the first one was written).
    const dying = changedBlocks(source, (block) => {
      const victim = block.transfers.find((t) => t.address === second.address)!;
      // Read once when it is saved as maturing, then when it is booked: the process dies there.
      const amount = victim.amount;
      let reads = 0;
      Object.defineProperty(victim, 'amount', {
        get: () => {
          reads += 1;
          if (reads > 1) throw new Error('process killed');
          return amount;
        },
      });
      return block;
    });
    await expect(watcher({}, dying).step()).rejects.toThrow('process killed');
    expect(await readCursor(cursorName)).toEqual(before);
    expect((await stored(first.id)).order.status).toBe('PENDING');
    expect((await stored(second.id)).order.status).toBe('NEW');
    const firstVersion = (await stored(first.id)).order.version;

    // The restarted process (a new watcher, nothing in memory) scans the block again.
    const restarted = watcher();
    await restarted.step();
    expect((await stored(first.id)).order.version).toBe(firstVersion);
    expect((await stored(second.id)).order.status).toBe('PENDING');
    chain.mineEmpty(1);
    await restarted.step();
    for (const order of [first, second]) {
      const now = await stored(order.id);
      expect(now.order.status).toBe('PAID');
      expect(now.invoice!.payments).toHaveLength(1);
    }
  });

  it("a payment whose order is gone is kept as unmatched in the chain's partition with its reason, seen or matured, once", async () => {
    const { chain, step, cursorName } = await watchedChain();
    const gone = async (orderId: string) => db().send(new DeleteCommand({ TableName: tableName(), Key: orderKey(orderId) }));
    // Gone before it was paid: the address index still names it.
    const early = await checkedOut();
    await gone(early.id);
    const earlyTx = payTo(chain, early.address, early.sats);
    const seen = await step();
    expect(seen.booked).toBe(0);
    // Counted for the operator's UnmatchedPayments metric: once, the first time it is kept.
    expect(seen.unmatched).toBe(1);
    expect(await listUnmatchedPayments(cursorName)).toEqual([
      { chain: cursorName, key: `${earlyTx.txid}:0`, txid: earlyTx.txid, currency: 'BTC', amount: '0.001', address: early.address, reason: 'ORDER_GONE', seen_at: expect.any(String) },
    ]);

    // Gone while its payment matures: booked PENDING, then kept when it has its confirmations.
    const late = await checkedOut();
    const lateTx = payTo(chain, late.address, late.sats);
    chain.mine();
    expect((await step()).booked).toBe(1);
    expect((await stored(late.id)).order.status).toBe('PENDING');
    await gone(late.id);
    chain.mineEmpty(1);
    const matured = await step();
    expect(matured.matured).toBe(2);
    // Only the late one is new: the early one was kept (and counted) by the first step.
    expect(matured.unmatched).toBe(1);
    expect(await listMaturingPayments(cursorName)).toEqual([]);
    const kept = await listUnmatchedPayments(cursorName);
    expect(kept).toHaveLength(2);
    expect(kept).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: `${earlyTx.txid}:0`, reason: 'ORDER_GONE' }),
        expect.objectContaining({ key: `${lateTx.txid}:0`, address: late.address, amount: '0.001', reason: 'ORDER_GONE' }),
      ]),
    );
  });

  it('a payment its invoice refuses (finer than its currency) is kept as unmatched NOT_BOOKABLE; the order stays NEW', async () => {
    const { chain, source, watcher, cursorName } = await watchedChain({ mempool: false });
    const order = await checkedOut();
    const tx = payTo(chain, order.address, order.sats);
    chain.mine();
    // A source that reads the output a satoshi's tenth finer than BTC has.
    const finer = changedBlocks(source, (block) => ({
      ...block,
      transfers: block.transfers.map((t) => (t.address === order.address ? { ...t, amount: parseDecimal('0.0010000001') } : t)),
    }));
    expect((await watcher({}, finer).step()).booked).toBe(0);
    expect((await stored(order.id)).order.status).toBe('NEW');
    expect(await listUnmatchedPayments(cursorName)).toEqual([expect.objectContaining({ key: `${tx.txid}:0`, address: order.address, amount: '0.0010000001', reason: 'NOT_BOOKABLE' })]);
  });

  it("a live merchant's invoice from its own key is watched; a currency without a source fails closed", async () => {
    const xpub = testXpub();
    const live = await createMerchant({ name: 'Live watched', sandbox: false, xpubs: { BTC: xpub, LTC: testXpub("m/84'/2'/0'") } });
    const { chain, step } = await watchedChain();
    const order = await checkedOut(live.api_token);
    expect([deriveAddress('BTC', xpub, 0), deriveAddress('BTC', xpub, 1)]).toContain(order.address);
    payTo(chain, order.address, order.sats);
    chain.mine();
    chain.mineEmpty(1);
    await step();
    expect((await stored(order.id)).order.status).toBe('PAID');

    const ltc = await shop.call('POST', '/v1/orders', { token: live.api_token, body: { price_amount: 10, pay_currency: 'LTC' } });
    expect(ltc.status).toBe(400);
    expect(ltc.body).toMatchObject({ error_code: 'PAYMENT_NOT_AVAILABLE' });
    expect(ltc.body.error).toContain('no LTC chain source');
  });
});
