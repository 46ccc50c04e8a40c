import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';

// TRON has a source in this file's environment: live merchants may check out in USDT_TRC20 and
// checkout puts each invoice's address on the TRON watcher's list.
vi.hoisted(() => {
  process.env.TRON_API_URL = 'http://127.0.0.1:9/';
});

import { client, newMerchant, startApi } from '../support/api';
import { stored, testXpub } from '../support/watchers';
import { reportHealthy } from '../support/source-health';
import { signedTrc20Transfer, TronGridTestServer, tronAddressOfKey } from '../support/trongrid-server';
import { decimalFromNumber, formatDecimal } from '#shared/domain/money';
import { deriveAddress } from '#shared/payments/addresses/index';
import { tronHex } from '#shared/payments/addresses/tron';
import { SourceError } from '#shared/core/source-error';
import { TronGridClient, TronTransfers } from '#shared/watchers/sources/tron';
import type { WatchEntry } from '#shared/watchers/sources/per-address';
import { IndexedWatcher } from '#shared/watchers/indexed-watcher';
import { listWatchedAddresses, PER_ADDRESS_ITEMS, type WatchedAddress, WatchList } from '#shared/store/watch-list';
import { readIndexCursor } from '#shared/store/index-cursors';
import type { Transfer } from '#shared/watchers/sources/port';
import { BUYER_KEY } from '#infra/devnet/chain';

/**
 * USDT on TRON end to end: checkout derives the invoice's address from the TRON key and puts it
 * on the watch list; the buyer signs a real TRC-20 transfer (tronweb, offline, as a wallet
 * does); a local TronGrid checks and runs it and answers in TronGrid's format; the TRON
 * watcher books it, only once solidified, through the lifecycle into the real table. The
 * wrong-token attacks (issue 22, item 4) are sent for real and must leave the order NEW.
 */

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
// Another contract with USDT's name, symbol and decimals: what a forger deploys.
const FAKE = 'TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj';
const BUYER = BUYER_KEY.slice(2);

let tron: TronGridTestServer;
let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let token: string;

beforeAll(async () => {
  tron = await new TronGridTestServer(
    [
      { address: USDT, symbol: 'USDT', name: 'Tether USD', decimals: 6 },
      { address: FAKE, symbol: 'USDT', name: 'Tether USD', decimals: 6 },
    ],
    'test-api-key',
  ).start();
  api = await startApi();
  call = client(api.url);
  // Live checkouts in USDT_TRC20 are offered only while the TRON source reports healthy.
  await reportHealthy('TRON', 'trongrid');
  token = (await newMerchant(true, 'TRON Shop')).api_token;
});

afterAll(async () => {
  await api?.close();
  await tron?.close();
});

/** A NEW order checked out in USDT_TRC20 (30 USD: 30 USDT at the demo rates). */
async function checkedOut(as = token) {
  const created = await call('POST', '/v1/orders', { token: as, body: { price_amount: 30, price_currency: 'USD', pay_currency: 'USDT_TRC20' } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  const { invoice } = (await call('GET', `/v1/orders/${id}`, { token: as })).body;
  return { id, address: invoice.payment_address as string, uri: invoice.payment_uri as string, amount: formatDecimal(decimalFromNumber(invoice.pay_amount)) };
}

const FAST = { timeoutMs: 1000, attempts: 1, backoffMs: 10 };

/**
 * The TRON watcher on the local TronGrid, with a cursor of its own (none yet: its first step
 * starts at the oldest watched invoice) and its container's watch list (read whole at its first step).
 */
function watcher(options: { apiKey?: string; list?: WatchList<WatchedAddress>; cursorName?: string } = {}) {
  const list = options.list ?? new WatchList(PER_ADDRESS_ITEMS, 'TRON');
  const source = new TronTransfers({
    url: tron.url,
    apiKey: options.apiKey ?? 'test-api-key',
    contract: USDT,
    currency: 'USDT_TRC20',
    decimals: 6,
    watched: (now) => list.current(now),
    http: FAST,
  });
  const indexed = new IndexedWatcher(source, { cursorName: options.cursorName ?? `TRON-test-${randomUUID()}` });
  return () => indexed.step();
}

/** The provider's requests by kind since `before` (a copy of `tron.requests`). */
const requestsSince = (before: Map<string, number>) => Object.fromEntries([...tron.requests].map(([name, n]) => [name, n - (before.get(name) ?? 0)]).filter(([, n]) => (n as number) > 0));

const pay = (to: string, units: bigint, options: { contract?: string; extra?: string } = {}) => tron.send(signedTrc20Transfer(BUYER, options.contract ?? USDT, to, units, options));

describe('USDT_TRC20 checkout', () => {
  it('derives a TRON address from the key, names the token and amount in the URI, and watches the address', async () => {
    const order = await checkedOut();
    expect(order.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(order.uri).toBe(`tron:${order.address}?token=${USDT}&amount=30.000000`);
    const watched = await listWatchedAddresses(PER_ADDRESS_ITEMS, 'TRON', new Date());
    expect(watched).toContainEqual(expect.objectContaining({ address: order.address, currency: 'USDT_TRC20' }));
  });

  it("a live merchant's invoice address is its own TRON key's (m/44'/195'/0'); without a TRON key, PAYMENT_NOT_AVAILABLE", async () => {
    const key = testXpub("m/44'/195'/0'");
    const live = await newMerchant(false, 'Live TRON', { xpubs: { TRX: key } });
    const order = await checkedOut(live.api_token);
    expect(order.address).toBe(deriveAddress('TRX', key, 0));
    const keyless = await newMerchant(false, 'Live without TRON key');
    const created = await call('POST', '/v1/orders', { token: keyless.api_token, body: { price_amount: 30, price_currency: 'USD' } });
    const refused = await call('POST', `/v1/orders/${created.body.order.order_id}/checkout`, { token: keyless.api_token, body: { pay_currency: 'USDT_TRC20' } });
    expect(refused.body).toMatchObject({ status: 400, error_code: 'PAYMENT_NOT_AVAILABLE' });
  });

  it('is not offered to live merchants while the TRON source fails on it, and is again once it reports healthy', async () => {
    const live = await newMerchant(false, 'Live TRON, source down', { xpubs: { TRX: testXpub("m/44'/195'/0'") } });
    const created = await call('POST', '/v1/orders', { token: live.api_token, body: { price_amount: 30, price_currency: 'USD' } });
    const checkout = () => call('POST', `/v1/orders/${created.body.order.order_id}/checkout`, { token: live.api_token, body: { pay_currency: 'USDT_TRC20' } });
    await reportHealthy('TRON', 'trongrid', { currency_errors: { USDT_TRC20: 'the USDT contract answered nothing' } });
    try {
      const refused = await checkout();
      expect(refused.body).toMatchObject({ status: 400, error_code: 'PAYMENT_NOT_AVAILABLE' });
      expect(refused.body.error).toMatch(/USDT_TRC20 is not available right now: its payment source is failing/);
    } finally {
      await reportHealthy('TRON', 'trongrid');
    }
    expect((await checkout()).status).toBe(200);
  });
});

describe('the TRON watcher on a local TronGrid with real signed transactions', () => {
  it('books a transfer only once solidified: PAID, keyed by the transaction and address, the amount from the contract log', async () => {
    const step = watcher();
    const order = await checkedOut();
    const sent = pay(order.address, 30_000_000n);
    expect((await step()).booked).toBe(0); // in a block, not solidified: not counted
    expect((await stored(order.id)).order.status).toBe('NEW');
    tron.solidify();
    const report = await step();
    expect(report.booked).toBe(1);
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toEqual([expect.objectContaining({ key: `${sent.tx.txID}:${order.address}`, txid: sent.tx.txID, amount: '30' })]);
    // Seen again by the next step: nothing changes.
    await step();
    expect((await stored(order.id)).order.version).toBe(paid.order.version);
  });

  it('a warm watcher polls a checkout made after its previous step', async () => {
    const list = new WatchList(PER_ADDRESS_ITEMS, 'TRON');
    const step = watcher({ list });
    await step();
    const order = await checkedOut();
    pay(order.address, 30_000_000n);
    tron.solidify();
    // (Earlier tests' payments are seen again and booked idempotently: the order says what this step did.)
    expect((await step()).booked).toBeGreaterThanOrEqual(1);
    expect((await stored(order.id)).order.status).toBe('PAID');
    // Its reads after the first are incremental (what they read: watch-list.test.ts).
    expect((await list.refresh(new Date())).full).toBe(false);
  });

  it('one unit (0.000001 USDT) short is UNDERPAID', async () => {
    const step = watcher();
    const order = await checkedOut();
    pay(order.address, 29_999_999n);
    tron.solidify();
    await step();
    const now = await stored(order.id);
    expect(now.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
    expect(now.invoice!.payments).toEqual([expect.objectContaining({ amount: '29.999999' })]);
  });

  it('sends the API key TronGrid wants; a wrong key is an error of the step, not a payment', async () => {
    await expect(watcher({ apiKey: 'wrong' })()).rejects.toThrow(SourceError);
  });

  it('a source answering garbage fails the step and books nothing; the next step books once', async () => {
    const step = watcher();
    const order = await checkedOut();
    pay(order.address, 30_000_000n);
    tron.solidify();
    tron.fault({ kind: 'garbage', times: 1, match: /eth_getLogs/, body: '{"jsonrpc":"2.0","id":1,"result":[{"transactionHash":"zz"}]}' });
    await expect(step()).rejects.toThrow(/transactionHash/);
    expect((await stored(order.id)).order.status).toBe('NEW');
    await step();
    expect((await stored(order.id)).order.status).toBe('PAID');
  });
});

describe('wrong-token attacks on TRON (each leaves the order NEW)', () => {
  it('a token with the same name, symbol and decimals from another contract', async () => {
    const step = watcher();
    const order = await checkedOut();
    pay(order.address, 30_000_000n, { contract: FAKE });
    tron.solidify();
    await step();
    const now = await stored(order.id);
    expect([now.order.status, now.invoice!.payments ?? []]).toEqual(['NEW', []]);
  });

  it('a transfer to another address that mentions ours in its call data, even when the index lists it under ours', async () => {
    const step = watcher();
    const order = await checkedOut();
    const elsewhere = tronAddressOfKey('1'.repeat(64));
    const sent = pay(elsewhere, 30_000_000n, { extra: `${'0'.repeat(24)}${tronHex(order.address).slice(2)}` });
    // A lying (or buggy) index: a row says it paid our address; the contract's log says otherwise.
    tron.misindexed.push({ address: order.address, txid: sent.tx.txID });
    tron.solidify();
    await step();
    const now = await stored(order.id);
    expect([now.order.status, now.invoice!.payments ?? []]).toEqual(['NEW', []]);
  });

  it('a call to the USDT contract that is not a transfer (reverted) pays nothing', async () => {
    const step = watcher();
    const order = await checkedOut();
    const sent = pay(order.address, 30_000_000n);
    // The same signed transfer, but it reverted (out of energy, say): no Transfer log. The index
    // still lists it as paying us; the receipt's REVERT and the missing log say otherwise.
    sent.success = false;
    sent.log = undefined;
    tron.misindexed.push({ address: order.address, txid: sent.tx.txID });
    tron.solidify();
    await step();
    const now = await stored(order.id);
    expect([now.order.status, now.invoice!.payments ?? []]).toEqual(['NEW', []]);
  });
});

describe('the TronGrid client', () => {
  it("reads a range's Transfer events of the contract only, in the chain's order, as java-tron writes them", async () => {
    const to = tronAddressOfKey('2'.repeat(64));
    const first = pay(to, 1n);
    pay(to, 2n, { contract: FAKE });
    const [third, fourth] = tron.sendBlock([signedTrc20Transfer(BUYER, USDT, to, 3n), signedTrc20Transfer(BUYER, USDT, to, 4n)]);
    const client = new TronGridClient({ url: tron.url, apiKey: 'test-api-key' });
    const logs = await client.transferLogs(USDT, first.block, third!.block);
    const account = tronHex(to).slice(2).toLowerCase();
    expect(logs).toEqual([first, third, fourth].map((m, i) => ({ txid: m!.tx.txID, block: m!.block, to: account, value: BigInt([1, 3, 4][i]!) })));
  });
});

describe('reading by block: the provider is asked per block, not per invoice', () => {
  /** A source on the local TronGrid watching `targets` (an in-memory list: the count is what is measured). */
  const sourceOf = (targets: WatchEntry[], options: { maxBlockRange?: number } = {}) =>
    new TronTransfers({ url: tron.url, apiKey: 'test-api-key', contract: USDT, currency: 'USDT_TRC20', decimals: 6, http: FAST, watched: async () => targets, ...options });
  /** An entry as the watch list has it: open for `openFor` ms (negative: past its invoice, in its late window). */
  const target = (address: string, openFor = 3_600_000): WatchEntry & { open_until: string } => ({
    address,
    currency: 'USDT_TRC20',
    since: new Date(Date.now() - 1000).toISOString(),
    open_until: new Date(Date.now() + openFor).toISOString(),
  });
  const paidAs = (transfer: Transfer) => ({ key: transfer.key, amount: formatDecimal(transfer.amount) });
  const stranger = () => tronAddressOfKey(randomUUID().replaceAll('-', '').padEnd(64, '7'));
  /** Blocks of other people's USDT transfers (USDT moves ~25 times a second). */
  const traffic = (blocks: number) => {
    for (let i = 0; i < blocks; i += 1) tron.sendBlock([0, 1, 2].map((n) => signedTrc20Transfer(BUYER, USDT, stranger(), BigInt(n + 1))));
  };

  it('a step costs the same requests with 2, 40 and 200 addresses watched: the solid head and one range of events (and a receipt per payment to us)', async () => {
    const perStep: Record<string, number>[] = [];
    for (const count of [2, 40, 200]) {
      const targets = Array.from({ length: count }, () => target(stranger()));
      const source = sourceOf(targets);
      const { next } = await source.after(undefined, 100);
      traffic(3);
      tron.solidify();
      let before = new Map(tron.requests);
      const quiet = await source.after(next, 100);
      expect(quiet.transfers).toEqual([]);
      perStep.push(requestsSince(before));
      // A payment to one of them: one receipt more, whatever the count.
      const paid = pay(targets[count - 1]!.address, 5_000_000n);
      traffic(1);
      tron.solidify();
      before = new Map(tron.requests);
      const found = await source.after(quiet.next, 100);
      expect(found.transfers.map(paidAs)).toEqual([{ key: `${paid.tx.txID}:${targets[count - 1]!.address}`, amount: '5' }]);
      expect(found.more).toBe(false);
      perStep.push(requestsSince(before));
    }
    const quiet = { '/walletsolidity/getnowblock': 1, eth_getLogs: 1 };
    const paying = { ...quiet, '/walletsolidity/gettransactioninfobyid': 1 };
    expect(perStep).toEqual([quiet, paying, quiet, paying, quiet, paying]);
  });

  it('an address past its invoice but in its late window is matched at every step like an open one, at no cost', async () => {
    const late = target(stranger(), -60_000);
    const open = target(stranger());
    const source = sourceOf([late, open]);
    const { next } = await source.after(undefined, 100);
    const paidLate = pay(late.address, 7_000_000n);
    tron.solidify();
    const before = new Map(tron.requests);
    const found = await source.after(next, 100);
    expect(found.transfers.map(paidAs)).toEqual([{ key: `${paidLate.tx.txID}:${late.address}`, amount: '7' }]);
    expect(requestsSince(before)).toEqual({ '/walletsolidity/getnowblock': 1, eth_getLogs: 1, '/walletsolidity/gettransactioninfobyid': 1 });
  });

  it('a damaged entry (its since not a time) is left out, and the others are still watched from their own invoices', async () => {
    const damaged = { ...target(stranger()), since: 'not a time' };
    const open = target(stranger());
    const source = sourceOf([damaged, open]);
    const { next } = await source.after(undefined, 100);
    const toDamaged = pay(damaged.address, 1_000_000n);
    const toOpen = pay(open.address, 2_000_000n);
    tron.solidify();
    const found = await source.after(next, 100);
    expect(found.transfers.map(paidAs)).toEqual([{ key: `${toOpen.tx.txID}:${open.address}`, amount: '2' }]);
    expect(found.transfers.map((transfer) => transfer.txid)).not.toContain(toDamaged.tx.txID);
  });

  it("a transfer to an address no invoice watches is not ours: not reported (it is someone else's USDT)", async () => {
    const source = sourceOf([target(stranger())]);
    const { next } = await source.after(undefined, 100);
    pay(stranger(), 9_000_000n);
    tron.solidify();
    const before = new Map(tron.requests);
    expect((await source.after(next, 100)).transfers).toEqual([]);
    expect(requestsSince(before)).not.toHaveProperty('/walletsolidity/gettransactioninfobyid');
  });

  it("a block the receipt API does not have yet (a node behind the event API's): the cursor stops before it and the next step books it", async () => {
    const open = target(stranger());
    const source = sourceOf([open]);
    const { next } = await source.after(undefined, 100);
    const paid = pay(open.address, 4_000_000n);
    traffic(2);
    tron.solidify();
    paid.solid = false;
    const held = await source.after(next, 100);
    expect(held).toEqual({ transfers: [], next: String(paid.block - 1), more: false });
    paid.solid = true;
    const found = await source.after(held.next, 100);
    expect(found.transfers.map(paidAs)).toEqual([{ key: `${paid.tx.txID}:${open.address}`, amount: '4' }]);
    expect(found.next).toBe(String(tron.solidHeight));
  });

  it('a transfer to a watched address made before its invoice (less a minute) is not a payment of it', async () => {
    const open = target(stranger());
    const source = sourceOf([open]);
    const { next } = await source.after(undefined, 100);
    tron.sendBlock([signedTrc20Transfer(BUYER, USDT, open.address, 6_000_000n)], Date.parse(open.since) - 61_000);
    tron.solidify();
    expect((await source.after(next, 100)).transfers).toEqual([]);
  });

  it('nothing watched: no event is read and the cursor stays', async () => {
    const source = sourceOf([]);
    const before = new Map(tron.requests);
    expect(await source.after('123', 100)).toEqual({ transfers: [], next: '123', more: false });
    expect(requestsSince(before)).not.toHaveProperty('eth_getLogs');
  });

  it('a provider capping the range at 5 blocks: the range is halved until it is taken, and the payment in the last block is found', async () => {
    const open = target(stranger());
    const source = sourceOf([open]);
    const { next } = await source.after(undefined, 100);
    tron.maxBlockRange = 5;
    try {
      traffic(30);
      const paid = pay(open.address, 3_000_000n);
      tron.solidify();
      const found: string[] = [];
      let cursor = next;
      for (let step = 0; step < 20 && Number(cursor) < tron.solidHeight; step += 1) {
        const result = await source.after(cursor, 100);
        found.push(...result.transfers.map((transfer) => transfer.key));
        cursor = result.next;
      }
      expect(found).toEqual([`${paid.tx.txID}:${open.address}`]);
      expect(Number(cursor)).toBe(tron.solidHeight);
      // java-tron's rule: toBlock - fromBlock <= the cap.
      expect(source.maxBlockRange - 1).toBeLessThanOrEqual(5);
    } finally {
      tron.maxBlockRange = 5000;
    }
  });

  it('a large range that fails otherwise (a provider slow while catching up) fails the step; the next asks half, and the range grows back after successes', async () => {
    const open = target(stranger());
    const source = sourceOf([open], { maxBlockRange: 40 });
    const { next } = await source.after(undefined, 100);
    traffic(29);
    const paid = pay(open.address, 2_000_000n);
    tron.solidify();
    tron.fault({ kind: 'error', times: 1, match: /eth_getLogs/ });
    await expect(source.after(next, 100)).rejects.toThrow(SourceError);
    expect(source.maxBlockRange).toBe(15);
    const found = await source.after(next, 100);
    expect(found.transfers.map(paidAs)).toEqual([{ key: `${paid.tx.txID}:${open.address}`, amount: '2' }]);
    expect(found).toMatchObject({ next: String(tron.solidHeight), more: false });
    expect(source.maxBlockRange).toBe(30);
  });

  it("a source listing another contract's Transfer as the one asked for fails the step: nothing is booked", async () => {
    const source = sourceOf([target(stranger())]);
    const { next } = await source.after(undefined, 100);
    traffic(1);
    tron.solidify();
    const forged = {
      address: `0x${tronHex(FAKE).slice(2)}`,
      topics: [`0x${'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'}`, `0x${'0'.repeat(64)}`, `0x${'0'.repeat(64)}`],
      data: `0x${'0'.repeat(63)}1`,
      blockNumber: `0x${tron.solidHeight.toString(16)}`,
      blockHash: `0x${'0'.repeat(64)}`,
      transactionHash: `0x${'a'.repeat(64)}`,
      transactionIndex: '0x0',
      logIndex: '0x0',
      removed: false,
    };
    tron.fault({ kind: 'garbage', times: 1, match: /eth_getLogs/, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: [forged] }) });
    await expect(source.after(next, 100)).rejects.toThrow(/is not the contract's/);
  });
});

describe('the cursor: restarts and first starts', () => {
  it('a restarted watcher goes on from the cursor in the table: a payment made while it was down is booked, no start looked up', async () => {
    const cursorName = `TRON-test-${randomUUID()}`;
    await watcher({ cursorName })();
    const stopped = await readIndexCursor(cursorName);
    expect(stopped?.position).toBe(String(tron.solidHeight));
    const order = await checkedOut();
    const sent = pay(order.address, 30_000_000n);
    tron.solidify();
    const before = new Map(tron.requests);
    await watcher({ cursorName })();
    expect((await stored(order.id)).invoice!.payments).toEqual([expect.objectContaining({ key: `${sent.tx.txID}:${order.address}` })]);
    // Block 0 only (a new process checks the network once): no block is looked up to find where to start.
    expect(requestsSince(before)['/wallet/getblockbynum']).toBe(1);
    expect((await readIndexCursor(cursorName))?.position).toBe(String(tron.solidHeight));
  });

  it('a first start without a cursor (the upgrade from reading per address) reads from the oldest watched invoice: a payment made before it, blocks back, is booked', async () => {
    const order = await checkedOut();
    const sent = pay(order.address, 30_000_000n);
    for (let i = 0; i < 250; i += 1) tron.sendBlock([]);
    tron.solidify();
    const step = watcher();
    let report = await step();
    for (let i = 0; i < 20 && report.behind > 0; i += 1) report = await step();
    expect(report.behind).toBe(0);
    expect((await stored(order.id)).order.status).toBe('PAID');
    expect((await stored(order.id)).invoice!.payments).toEqual([expect.objectContaining({ key: `${sent.tx.txID}:${order.address}` })]);
  });
});
