import { beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { Address, NETWORK } from '@scure/btc-signer';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';

// BTC has a source in this file's environment, so live merchants may check out in BTC.
vi.hoisted(() => {
  process.env.BTC_ESPLORA_URL = 'http://127.0.0.1:9/';
});

import { watchedShop } from '../support/watched-shop';
import { startEsploraServer } from '../support/esplora-server';
import { UtxoChain } from '../support/utxo-chain';
import { openListsBeganLongAgo, payTo, satsOf, stored } from '../support/watchers';
import { BlockWatcher, type BlockWatcherOptions } from '#shared/watchers/block-watcher';
import { EsploraSource } from '#shared/watchers/sources/esplora';
import { BLOCK_CHAIN_ITEMS, KEEP_AFTER_UNTIL_MS, watchAddress, WatchList } from '#shared/store/watch-list';
import { READ_OVERLAP_MS, WRITE_BUDGET_MS } from '#shared/store/incremental-list';
import { chainPartition, OPEN_PREFIX } from '#shared/store/keys';
import { expireDueOrders } from '#shared/services/expiry';

/**
 * The open-address list (shared/store/watch-list.ts): a block watcher looks up only the
 * outputs paid to addresses on its chain's list, and still books every payment to an open
 * invoice: a warm watcher reading only what was added, a cold one reading all, a checkout
 * between two reads, a slow write, the late window, a reorganisation.
 */

// This file's own table: the watchers here read the whole BTC list, and one runs days ahead.
const shop = watchedShop('watcher-open', 'Open Shop');
// The lists began long ago: only listed outputs are looked up (watch-list.ts).
beforeAll(openListsBeganLongAgo);

/** A NEW order checked out in BTC through the API (its address goes on the BTC list). */
async function checkedOut(): Promise<{ id: string; address: string; sats: bigint; until: string }> {
  const created = await shop.call('POST', '/v1/orders', { token: shop.token, body: { price_amount: 65, price_currency: 'USD', pay_currency: 'BTC' } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id;
  const invoice = (await stored(id)).invoice!;
  return { id, address: invoice.payment_address, sats: satsOf(invoice.pay_amount), until: invoice.expired_at };
}

/** An address that is nobody's invoice. */
const stranger = () => Address(NETWORK).encode({ type: 'wpkh', hash: randomBytes(20) });

async function watchedChain() {
  const chain = new UtxoChain('BTC');
  const server = await startEsploraServer(chain);
  shop.servers.push(server);
  const cursorName = `BTC-open-${randomUUID()}`;
  // Each watcher is one container: its list is read whole on its first booking.
  const watcher = (more: Partial<BlockWatcherOptions> = {}) => new BlockWatcher(new EsploraSource({ chain: 'BTC', baseUrl: server.url }), { cursorName, ...more });
  const warm = watcher();
  await warm.step(); // the cursor starts at the tip
  return { chain, watcher, warm };
}

/** A block of `strangers` payments to addresses that are nobody's, plus `ours`. */
function mineWith(chain: UtxoChain, strangers: number, ours: { address: string; sats: bigint }[]) {
  const txs = Array.from({ length: strangers }, (_, i) => chain.pay([{ address: stranger(), sats: 1000n + BigInt(i) }], { mempool: false }));
  for (const paid of ours) txs.push(chain.pay([paid], { mempool: false }));
  return chain.mine(txs);
}

/** The BTC list's items, oldest key first. */
async function listItems(): Promise<Record<string, unknown>[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': chainPartition('BTC'), ':prefix': OPEN_PREFIX },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

describe('the open-address list of a block chain', () => {
  it('checkout lists the address with its late window before the address is shown', async () => {
    const before = Date.now();
    const order = await checkedOut();
    const item = (await listItems()).find((candidate) => candidate.address === order.address);
    expect(item).toMatchObject({ currency: 'BTC', address: order.address, type: 'OPEN_ADDRESS' });
    // The invoice's expiry plus the late-payment window (7 days by default).
    expect(Date.parse(String(item!.until))).toBe(Date.parse(order.until) + 7 * 86_400_000);
    const writtenAt = String(item!.SK).slice(OPEN_PREFIX.length, OPEN_PREFIX.length + 24);
    expect(Date.parse(writtenAt)).toBeGreaterThanOrEqual(before - 1);
    expect(item!.expires_at_epoch).toBe(Math.ceil((Date.parse(String(item!.until)) + KEEP_AFTER_UNTIL_MS) / 1000));
  });

  it('a warm watcher books a checkout made after its last read, and looks up only the listed output of a busy block', async () => {
    const { chain, warm } = await watchedChain();
    await checkedOut();
    payTo(chain, stranger(), 5000n); // a mempool transaction: the warm watcher reads the whole list once
    const first = await warm.step();
    expect(first.openRead).toBeGreaterThan(0);
    expect(first.lookups).toBe(0);

    // Checkouts after that read: the warm watcher reads only what was added since (less the overlap).
    const orders = [await checkedOut(), await checkedOut()];
    mineWith(chain, 60, orders);
    chain.mineEmpty(1);
    const report = await warm.step();
    expect(report.transfers).toBeGreaterThanOrEqual(2 * 62);
    expect(report.lookups).toBe(2);
    expect(report.booked).toBe(2);
    for (const order of orders) expect((await stored(order.id)).order.status).toBe('PAID');
  });

  it('after an upgrade: until the list is complete, a payment to an invoice shown before the list began (not on it) is still booked', async () => {
    const { DeleteCommand, PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { openListStartKey } = await import('#shared/store/keys');
    const { chain, watcher } = await watchedChain();
    const order = await checkedOut();
    // Shown by the version before the list: no item of its address.
    for (const item of (await listItems()).filter((candidate) => candidate.address === order.address)) {
      await db().send(new DeleteCommand({ TableName: tableName(), Key: { PK: item.PK, SK: item.SK } }));
    }
    // The list began a minute ago (this deploy): far less than an invoice's life and its late window.
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...openListStartKey('BTC'), started_at: new Date(Date.now() - 60_000).toISOString() } }));
    try {
      payTo(chain, order.address, order.sats);
      const seen = await watcher().step(); // a new container: it reads when the list began
      expect(seen.lookups).toBeGreaterThanOrEqual(1);
      expect(seen.booked).toBe(1);
      expect((await stored(order.id)).order.status).toBe('PENDING');
    } finally {
      await openListsBeganLongAgo();
    }
    // Once the list is complete, an unlisted address is not looked up.
    const later = await checkedOut();
    for (const item of (await listItems()).filter((candidate) => candidate.address === later.address)) {
      await db().send(new DeleteCommand({ TableName: tableName(), Key: { PK: item.PK, SK: item.SK } }));
    }
    payTo(chain, later.address, later.sats);
    const unseen = await watcher().step();
    expect(unseen.lookups).toBe(0);
    expect((await stored(later.id)).order.status).toBe('NEW');
  });

  it('a payment seen in the mempool right after its checkout makes the order PENDING (a checkout racing the next look)', async () => {
    const { chain, warm } = await watchedChain();
    payTo(chain, stranger(), 5000n);
    await warm.step();
    const order = await checkedOut();
    payTo(chain, order.address, order.sats);
    const seen = await warm.step();
    expect(seen.booked).toBe(1);
    expect(seen.lookups).toBe(1);
    expect((await stored(order.id)).order.status).toBe('PENDING');
  });

  it('a cold container reads the whole list: a payment to an invoice made before it started is booked', async () => {
    const { chain, watcher } = await watchedChain();
    const order = await checkedOut();
    mineWith(chain, 20, [order]);
    chain.mineEmpty(1);
    const cold = watcher();
    const report = await cold.step();
    expect(report.openRead).toBeGreaterThanOrEqual((await listItems()).length);
    expect(report.lookups).toBe(1);
    expect((await stored(order.id)).order.status).toBe('PAID');
  });

  it('a reorganisation re-scans with the list: the payment mined again on the new branch is booked again', async () => {
    const { chain, warm } = await watchedChain();
    const order = await checkedOut();
    payTo(chain, order.address, order.sats);
    chain.mine();
    await warm.step();
    expect((await stored(order.id)).order.status).toBe('PENDING');
    // The block leaves the chain; its transaction is mined again two blocks up the new branch.
    chain.orphan(1);
    chain.mineEmpty(1);
    chain.mine();
    chain.mineEmpty(1);
    const report = await warm.step();
    expect(report.reorganisations).toBe(1);
    expect((await stored(order.id)).order.status).toBe('PAID');
  });

  it('the late window: a payment after expiry is still looked up; once the window and its day are over it is not', async () => {
    const order = await checkedOut();
    const late = Date.parse(order.until) + 3600_000;
    const { chain: lateChain, watcher: lateWatcher } = await watchedChain();
    const inWindow = lateWatcher({ clock: () => new Date(late) });
    await inWindow.step();
    mineWith(lateChain, 5, [order]);
    lateChain.mineEmpty(1);
    const booked = await inWindow.step();
    expect(booked.lookups).toBe(1);
    expect((await stored(order.id)).order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'PAID_LATE' });

    const other = await checkedOut();
    const over = Date.parse(other.until) + 7 * 86_400_000 + KEEP_AFTER_UNTIL_MS + 60_000;
    const { chain, watcher } = await watchedChain();
    const past = watcher({ clock: () => new Date(over) });
    await past.step();
    mineWith(chain, 5, [other]);
    chain.mineEmpty(1);
    const ignored = await past.step();
    expect(ignored.lookups).toBe(0);
    expect(ignored.booked).toBe(0);
    expect((await stored(other.id)).order.status).toBe('NEW');
  });
});

describe('a payment mined short of its confirmations after it was booked from the mempool', () => {
  it('is kept as a maturing payment only, and the expiry sweep finds it there: the order stays PENDING past its unconfirmed timeout', async () => {
    const chain = new UtxoChain('BTC');
    const server = await startEsploraServer(chain);
    shop.servers.push(server);
    // The production cursor (the chain's name): the sweep looks for maturing payments there.
    const watcher = new BlockWatcher(new EsploraSource({ chain: 'BTC', baseUrl: server.url }));
    await watcher.step();
    const order = await checkedOut();
    const dropped = await checkedOut();
    const tx = payTo(chain, order.address, order.sats);
    payTo(chain, dropped.address, dropped.sats);
    expect((await watcher.step()).booked).toBe(2);
    const pending = await stored(order.id);
    expect(pending.order.status).toBe('PENDING');
    // Only one of the two is mined (the other stays unconfirmed): one maturing payment, no order write.
    chain.mine([tx]);
    const mined = await watcher.step();
    expect([mined.lookups, mined.booked]).toEqual([1, 0]);
    expect((await stored(order.id)).order.version).toBe(pending.order.version);
    const sweep = new Date(Date.parse(pending.invoice!.expired_at) + 86_400_000 + 1000);
    await expireDueOrders(sweep);
    expect((await stored(order.id)).order.status).toBe('PENDING');
    expect((await stored(dropped.id)).order.status).toBe('EXPIRED');
    chain.mineEmpty(1);
    expect((await watcher.step()).matured).toBe(1);
    expect((await stored(order.id)).order.status).toBe('PAID');
  });
});

describe('reading the list incrementally', () => {
  const entry = (address = stranger()) => ({ chain: 'BTC', currency: 'BTC', address, until: new Date(Date.now() + 86_400_000).toISOString() });

  it('a write acknowledged late (its key time before the previous read began, within the budget) is still read', async () => {
    const list = new WatchList(BLOCK_CHAIN_ITEMS, 'BTC', { fillMs: 0 });
    await list.refresh(new Date());
    // The writer took its key time 9 s ago and is acknowledged now: the previous read may not have seen it.
    const slow = entry();
    const writtenAt = Date.now() - (WRITE_BUDGET_MS - 1000);
    const times = [writtenAt, writtenAt + WRITE_BUDGET_MS - 1000];
    await watchAddress(BLOCK_CHAIN_ITEMS, slow, () => times.shift() ?? Date.now());
    const read = await list.refresh(new Date());
    expect(read.full).toBe(false);
    expect(list.has(slow, new Date())).toBe(true);
    // What the next read starts from is the overlap before this one began: an older key is not read again.
    const stale = entry();
    await watchAddress(BLOCK_CHAIN_ITEMS, stale, () => Date.now() - READ_OVERLAP_MS - 60_000);
    await list.refresh(new Date());
    expect(list.has(stale, new Date())).toBe(false);
    // A cold container's first read is whole: it has it (a writer never leaves such a key: it writes again, next test).
    const cold = new WatchList(BLOCK_CHAIN_ITEMS, 'BTC', { fillMs: 0 });
    expect(await cold.refresh(new Date())).toMatchObject({ full: true });
    expect(cold.has(stale, new Date())).toBe(true);
  });

  it('a write slower than the budget is written again under a new time; three slow ones fail the checkout', async () => {
    const once = entry();
    let now = Date.now() - 60_000;
    const clock = () => {
      const at = now;
      now += WRITE_BUDGET_MS + 1; // each write "takes" longer than the budget
      return at;
    };
    await expect(watchAddress(BLOCK_CHAIN_ITEMS, once, clock)).rejects.toThrow(/took longer/);
    expect((await listItems()).filter((item) => item.address === once.address)).toHaveLength(3);

    const retried = entry();
    const times = [Date.now() - 30_000, Date.now()];
    await watchAddress(BLOCK_CHAIN_ITEMS, retried, () => times.shift() ?? Date.now());
    const items = (await listItems()).filter((item) => item.address === retried.address);
    expect(items).toHaveLength(2);
    // The second write's key time is recent: a warm reader's overlap covers it.
    expect(Math.max(...items.map((item) => Date.parse(String(item.SK).slice(OPEN_PREFIX.length, OPEN_PREFIX.length + 24))))).toBeGreaterThan(Date.now() - 10_000);
  });

  it('keeps the latest window of an address listed twice, and forgets an address a day after its window', async () => {
    const address = stranger();
    const list = new WatchList(BLOCK_CHAIN_ITEMS, 'BTC', { fillMs: 0 });
    const soon = new Date(Date.now() + 60_000).toISOString();
    const later = new Date(Date.now() + 3 * 86_400_000).toISOString();
    await watchAddress(BLOCK_CHAIN_ITEMS, { chain: 'BTC', currency: 'BTC', address, until: later });
    await watchAddress(BLOCK_CHAIN_ITEMS, { chain: 'BTC', currency: 'BTC', address, until: soon });
    await list.refresh(new Date());
    const paid = { currency: 'BTC', address };
    expect(list.has(paid, new Date(Date.parse(later) + KEEP_AFTER_UNTIL_MS))).toBe(true);
    expect(list.has(paid, new Date(Date.parse(later) + KEEP_AFTER_UNTIL_MS + 1))).toBe(false);
    // Another currency at the same address is not the invoice's (the address index keys both).
    expect(list.has({ currency: 'LTC', address }, new Date())).toBe(false);
  });
});
