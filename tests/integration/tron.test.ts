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
import { IndexedWatcher } from '#shared/watchers/indexed-watcher';
import { listWatchedAddresses, WatchList } from '#shared/store/watch-list';
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

/** The TRON watcher on the local TronGrid, with a cursor of its own and its container's watch list (read whole at its first step). */
function watcher(options: { apiKey?: string; list?: WatchList } = {}) {
  const list = options.list ?? new WatchList('TRON');
  const source = new TronTransfers({
    url: tron.url,
    apiKey: options.apiKey ?? 'test-api-key',
    contract: USDT,
    currency: 'USDT_TRC20',
    decimals: 6,
    watched: (now) => list.current(now),
    http: { timeoutMs: 1000, attempts: 1, backoffMs: 10 },
  });
  const indexed = new IndexedWatcher(source, { cursorName: `TRON-test-${randomUUID()}` });
  return () => indexed.step();
}

const pay = (to: string, units: bigint, options: { contract?: string; extra?: string } = {}) => tron.send(signedTrc20Transfer(BUYER, options.contract ?? USDT, to, units, options));

describe('USDT_TRC20 checkout', () => {
  it('derives a TRON address from the key, names the token and amount in the URI, and watches the address', async () => {
    const order = await checkedOut();
    expect(order.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(order.uri).toBe(`tron:${order.address}?token=${USDT}&amount=30.000000`);
    const watched = await listWatchedAddresses('TRON', new Date());
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
    const list = new WatchList('TRON');
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
    tron.fault({ kind: 'garbage', times: 1, match: /trc20/, body: '{"data":[{"transaction_id":"zz"}],"success":true}' });
    await expect(step()).rejects.toThrow(/transaction_id/);
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
  it('reads every page (limit 200, fingerprint), newest first', async () => {
    const to = tronAddressOfKey('2'.repeat(64));
    for (let i = 0; i < 205; i += 1) pay(to, BigInt(i + 1));
    tron.solidify();
    const client = new TronGridClient({ url: tron.url, apiKey: 'test-api-key' });
    const rows = await client.incoming(to, USDT, 0);
    expect(rows).toHaveLength(205);
    expect(new Set(rows.map((row) => row.txid)).size).toBe(205);
    expect(rows.every((row) => row.to === to && row.contract === USDT && row.from === tronAddressOfKey(BUYER))).toBe(true);
  });
});
