import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';

// Solana has a source in this file's environment: live merchants with a wallet may check out in
// USDC_SOL and checkout puts each invoice's reference on the Solana watcher's list.
vi.hoisted(() => {
  process.env.SOLANA_RPC_URL = 'http://127.0.0.1:9/';
});

import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from '@solana/kit';
import { client, newMerchant, startApi } from '../support/api';
import { stored } from '../support/watchers';
import { reportHealthy } from '../support/source-health';
import { DEVNET_GENESIS_HASH, SolanaTestServer, solanaPayTransfer } from '../support/solana-server';
import { decimalFromNumber, formatDecimal } from '#shared/domain/money';
import { MAINNET_GENESIS_HASH } from '#shared/chains/solana';
import { SANDBOX_SOL_WALLET } from '#shared/payments/payment-methods';
import { WrongChainError } from '#shared/core/source-error';
import { SolanaTransfers } from '#shared/watchers/sources/solana';
import { IndexedWatcher } from '#shared/watchers/indexed-watcher';
import type { Transfer } from '#shared/watchers/sources/port';
import { listWatchedAddresses, PER_ADDRESS_ITEMS, WatchList } from '#shared/store/watch-list';
import { newSolanaReference } from '#shared/payments/addresses/solana';

/**
 * USDC on Solana end to end (Solana Pay): checkout gives the merchant's wallet and a fresh
 * reference; the buyer's wallet signs a real SPL TransferChecked with the reference (built with
 * @solana/kit, as a wallet does from the QR code); a local cluster checks and runs it and
 * answers in the JSON-RPC format; the Solana watcher lists the merchant's USDC token account (one
 * request per account per step, however many invoices are open), matches the reference among
 * the transaction's keys, only once finalized, and books the change of the merchant's USDC
 * balance. The wrong-token attacks
 * (issue 22, item 4) are sent for real and must leave the order NEW.
 */

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
// Another mint with USDC's decimals: what a forger creates (named "USD Coin" too, if it likes).
const FAKE = 'Fake1111111111111111111111111111111111111111';

let cluster: SolanaTestServer;
let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let token: string;
let buyer: KeyPairSigner;
let merchantWallet: string;

beforeAll(async () => {
  cluster = await new SolanaTestServer(MAINNET_GENESIS_HASH).start();
  cluster.mint(USDC, 6);
  cluster.mint(FAKE, 6);
  buyer = await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(7));
  merchantWallet = (await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(9))).address;
  for (const mint of [USDC, FAKE]) {
    await cluster.tokenAccount(buyer.address, mint, 1_000_000_000_000n);
    await cluster.tokenAccount(merchantWallet, mint);
  }
  api = await startApi();
  call = client(api.url);
  // Live checkouts in USDC_SOL are offered only while the Solana source reports healthy.
  await reportHealthy('SOLANA', 'solana-rpc');
  token = (await newMerchant(true, 'Solana Shop', { wallets: { SOL: merchantWallet } })).api_token;
});

afterAll(async () => {
  await api?.close();
  await cluster?.close();
});

/** A NEW order checked out in USDC_SOL (30 USD: 30 USDC at the demo rates). */
async function checkedOut(as = token) {
  const created = await call('POST', '/v1/orders', { token: as, body: { price_amount: 30, price_currency: 'USD', pay_currency: 'USDC_SOL' } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  const { invoice } = (await call('GET', `/v1/orders/${id}`, { token: as })).body;
  return { id, wallet: invoice.payment_address as string, reference: invoice.memo as string, uri: invoice.payment_uri as string, amount: formatDecimal(decimalFromNumber(invoice.pay_amount)) };
}

/** The Solana watcher on the local cluster, with a cursor of its own and its container's watch list (read whole at its first step). */
function watcher(genesisHash = MAINNET_GENESIS_HASH, url = cluster.url) {
  const list = new WatchList(PER_ADDRESS_ITEMS, 'SOLANA');
  const source = new SolanaTransfers({ url, tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }], genesisHash, timeoutMs: 1000, watched: (now) => list.current(now) });
  const indexed = new IndexedWatcher(source, { cursorName: `SOLANA-test-${randomUUID()}` });
  return () => indexed.step();
}

/** A wallet's Solana Pay transfer: TransferChecked of `units` of `mint` to `to`'s token account, the reference as a read-only account. */
async function pay(to: string, units: bigint, reference: string, mint = USDC) {
  return cluster.send(await solanaPayTransfer(buyer, to, units, reference, mint));
}

describe('USDC_SOL checkout (Solana Pay)', () => {
  it("pays the merchant's wallet with a fresh reference per invoice, in a Solana Pay transfer request, and watches the reference", async () => {
    const [a, b] = [await checkedOut(), await checkedOut()];
    expect(a.wallet).toBe(merchantWallet);
    expect(a.reference).not.toBe(b.reference);
    expect(a.uri).toBe(`solana:${merchantWallet}?amount=30.000000&spl-token=${USDC}&reference=${a.reference}`);
    expect(await listWatchedAddresses(PER_ADDRESS_ITEMS, 'SOLANA', new Date())).toContainEqual(expect.objectContaining({ address: a.reference, recipient: merchantWallet, currency: 'USDC_SOL' }));
  });

  it('a sandbox merchant without a wallet gets the sandbox wallet; a live one without a wallet gets PAYMENT_NOT_AVAILABLE', async () => {
    const sandbox = await newMerchant(true, 'Sandbox without wallet');
    expect((await checkedOut(sandbox.api_token)).wallet).toBe(SANDBOX_SOL_WALLET);
    const live = await newMerchant(false, 'Live without wallet');
    const created = await call('POST', '/v1/orders', { token: live.api_token, body: { price_amount: 30, price_currency: 'USD' } });
    const refused = await call('POST', `/v1/orders/${created.body.order.order_id}/checkout`, { token: live.api_token, body: { pay_currency: 'USDC_SOL' } });
    expect(refused.body).toMatchObject({ status: 400, error_code: 'PAYMENT_NOT_AVAILABLE' });
  });

  it('is not offered to live merchants while the Solana source is on the wrong cluster, and is again once healthy', async () => {
    const live = await newMerchant(false, 'Live Solana, wrong cluster', { wallets: { SOL: merchantWallet } });
    await reportHealthy('SOLANA', 'solana-rpc', { chain_ok: false });
    try {
      const refused = await checkedOutResponse(live.api_token);
      expect(refused.body).toMatchObject({ status: 400, error_code: 'PAYMENT_NOT_AVAILABLE' });
      expect(refused.body.error).toMatch(/USDC_SOL is not available right now: its payment source is wrong chain/);
    } finally {
      await reportHealthy('SOLANA', 'solana-rpc');
    }
    expect((await checkedOutResponse(live.api_token)).status).toBe(200);
  });
});

/** A live merchant's checkout of a new order in USDC_SOL, as answered. */
async function checkedOutResponse(as: string) {
  const created = await call('POST', '/v1/orders', { token: as, body: { price_amount: 30, price_currency: 'USD' } });
  return call('POST', `/v1/orders/${created.body.order.order_id}/checkout`, { token: as, body: { pay_currency: 'USDC_SOL' } });
}

describe('the Solana watcher on a local cluster with real signed transactions', () => {
  it("books the payment found by its reference only once finalized: PAID, the amount from the wallet's USDC balance change", async () => {
    const step = watcher();
    const order = await checkedOut();
    const sent = await pay(merchantWallet, 30_000_000n, order.reference);
    expect(sent.err).toBeNull();
    await step(); // confirmed, not finalized: not counted
    expect((await stored(order.id)).order.status).toBe('NEW');
    cluster.finalize();
    await step();
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toEqual([expect.objectContaining({ key: `${sent.signature}:${order.reference}`, txid: sent.signature, amount: '30' })]);
  });

  it('one unit (0.000001 USDC) short is UNDERPAID', async () => {
    const step = watcher();
    const order = await checkedOut();
    await pay(merchantWallet, 29_999_999n, order.reference);
    cluster.finalize();
    await step();
    const now = await stored(order.id);
    expect(now.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
    expect(now.invoice!.payments).toEqual([expect.objectContaining({ amount: '29.999999' })]);
  });

  it('a node on another cluster (devnet) is refused before anything is read, as a wrong chain', async () => {
    const devnet = await new SolanaTestServer(DEVNET_GENESIS_HASH).start();
    try {
      await expect(watcher(MAINNET_GENESIS_HASH, devnet.url)()).rejects.toThrow(WrongChainError);
      expect([...devnet.requests.keys()]).toEqual(['getGenesisHash']);
    } finally {
      await devnet.close();
    }
  });
});

describe('wrong-token attacks on Solana (each leaves the order NEW)', () => {
  const expectNew = async (orderId: string) => {
    const now = await stored(orderId);
    expect([now.order.status, now.invoice!.payments ?? []]).toEqual(['NEW', []]);
  };

  it('another mint with the same decimals, with the right reference, to the merchant', async () => {
    const step = watcher();
    const order = await checkedOut();
    expect((await pay(merchantWallet, 30_000_000n, order.reference, FAKE)).err).toBeNull();
    cluster.finalize();
    await step();
    await expectNew(order.id);
  });

  it('a transfer to another wallet that carries our reference', async () => {
    const step = watcher();
    const order = await checkedOut();
    const elsewhere = (await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(3))).address;
    await cluster.tokenAccount(elsewhere, USDC);
    expect((await pay(elsewhere, 30_000_000n, order.reference)).err).toBeNull();
    cluster.finalize();
    await step();
    await expectNew(order.id);
  });

  it('a failed transfer (more than the buyer has) that names our reference', async () => {
    const step = watcher();
    const order = await checkedOut();
    expect((await pay(merchantWallet, 10n ** 15n, order.reference)).err).not.toBeNull();
    cluster.finalize();
    await step();
    await expectNew(order.id);
  });
});

/** A clock a test moves, shared by the watcher and the cluster (block times). */
function movingClock() {
  let offset = 0;
  const now = () => Date.now() + offset;
  return { now, date: () => new Date(now()), advance: (ms: number) => (offset += ms) };
}

/** Requests by method since `before` (a copy of the cluster's counter). */
const requestsSince = (before: Map<string, number>) =>
  Object.fromEntries([...cluster.requests].map(([method, count]) => [method, count - (before.get(method) ?? 0)]).filter(([, count]) => (count as number) > 0));

/** A watched reference of `wallet`'s (no order: what the source reads, without the table). */
/** What a reported transfer says, its amount as a decimal string. */
const shown = (transfer: Transfer) => ({ key: transfer.key, address: transfer.address, memo: transfer.memo, amount: formatDecimal(transfer.amount) });

const reference = (wallet: string, since = new Date()) => ({ address: newSolanaReference(), currency: 'USDC_SOL', since: since.toISOString(), recipient: wallet });

describe('the Solana watcher follows receiving token accounts, not references', () => {
  it('one getSignaturesForAddress per merchant account per step, whatever the open references (2, 40, 200); one getTransaction per new transfer', async () => {
    const wallets = [merchantWallet, ...(await Promise.all([5, 6].map(async (fill) => (await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(fill))).address)))];
    for (const wallet of wallets.slice(1)) await cluster.tokenAccount(wallet, USDC);
    const perStep: Record<number, Record<string, number>> = {};
    for (const open of [2, 40, 200]) {
      const watched = Array.from({ length: open }, (_, i) => reference(wallets[i % wallets.length]!));
      const source = new SolanaTransfers({
        url: cluster.url,
        tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }],
        genesisHash: MAINNET_GENESIS_HASH,
        timeoutMs: 1000,
        watched: async () => watched,
      });
      await stepOf(source); // a cold start reads back to the oldest reference's creation
      const before = new Map(cluster.requests);
      await stepOf(source);
      perStep[open] = requestsSince(before);
      // A payment of one of them: one getTransaction more, and it is reported.
      const paid = await pay(watched[0]!.recipient, 1_000_000n, watched[0]!.address);
      cluster.finalize();
      const paying = new Map(cluster.requests);
      const { transfers } = await stepOf(source);
      expect(requestsSince(paying)).toEqual({ getSignaturesForAddress: Math.min(open, 3), getTransaction: 1 });
      expect(transfers.map(shown)).toEqual([{ key: `${paid.signature}:${watched[0]!.address}`, address: merchantWallet, memo: watched[0]!.address, amount: '1' }]);
    }
    expect(perStep).toEqual({ 2: { getSignaturesForAddress: 2 }, 40: { getSignaturesForAddress: 3 }, 200: { getSignaturesForAddress: 3 } });
  });

  it('a transfer to the account naming no watched reference is not ours: counted once settled, never reported; one naming a reference watched a step later is booked then', async () => {
    const time = movingClock();
    cluster.clock = time.now;
    try {
      const wallet = (await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(13))).address;
      await cluster.tokenAccount(wallet, USDC);
      const [watched, late] = [reference(wallet), reference(wallet)];
      const list = [watched];
      const source = new SolanaTransfers({
        url: cluster.url,
        tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }],
        genesisHash: MAINNET_GENESIS_HASH,
        timeoutMs: 1000,
        clock: time.date,
        watched: async () => list,
      });
      await stepOf(source);
      const other = await pay(wallet, 5n, newSolanaReference()); // the merchant's other money (a reference of nobody's)
      const early = await pay(wallet, 2_000_000n, late.address); // its checkout was acknowledged after this step's list was read
      cluster.finalize();
      expect((await stepOf(source)).transfers).toEqual([]);
      list.push(late);
      const before = new Map(cluster.requests);
      expect((await stepOf(source)).transfers.map(shown)).toEqual([{ key: `${early.signature}:${late.address}`, address: wallet, memo: late.address, amount: '2' }]);
      expect(requestsSince(before)).toEqual({ getSignaturesForAddress: 1 }); // looked at again from memory
      expect(source.notOurs).toBe(0);
      time.advance(121_000);
      await stepOf(source);
      expect(source.notOurs).toBe(1);
      expect(other.err).toBeNull();
    } finally {
      cluster.clock = Date.now;
    }
  });

  it('a step whose booking failed is read again: the source keeps its place only once the watcher says its transfers are booked', async () => {
    const wallet = (await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(14))).address;
    await cluster.tokenAccount(wallet, USDC);
    const watched = [reference(wallet)];
    const source = new SolanaTransfers({
      url: cluster.url,
      tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }],
      genesisHash: MAINNET_GENESIS_HASH,
      timeoutMs: 1000,
      watched: async () => watched,
    });
    await stepOf(source);
    const paid = await pay(wallet, 3_000_000n, watched[0]!.address);
    cluster.finalize();
    const key = `${paid.signature}:${watched[0]!.address}`;
    expect((await source.after(undefined, 10_000)).transfers.map((transfer) => transfer.key)).toEqual([key]);
    // Booking failed (the step threw): the next step reports it again, from memory.
    const before = new Map(cluster.requests);
    expect((await source.after(undefined, 10_000)).transfers.map((transfer) => transfer.key)).toEqual([key]);
    expect(requestsSince(before)).toEqual({ getSignaturesForAddress: 1 });
    source.booked();
    expect((await source.after(undefined, 10_000)).transfers).toEqual([]);
  });

  it('pages with `before` past 1,000 signatures: a payment under 1,005 later transfers is found, within the step budget over several steps', async () => {
    const wallet = (await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(11))).address;
    await cluster.tokenAccount(wallet, USDC);
    const shop = await newMerchant(true, 'Busy Solana Shop', { wallets: { SOL: wallet } });
    const order = await checkedOut(shop.api_token);
    const paid = await pay(wallet, 30_000_000n, order.reference);
    for (let i = 0; i < 1005; i += 1) await pay(wallet, 1n, newSolanaReference());
    cluster.finalize();
    const list = new WatchList(PER_ADDRESS_ITEMS, 'SOLANA');
    const source = new SolanaTransfers({
      url: cluster.url,
      tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }],
      genesisHash: MAINNET_GENESIS_HASH,
      timeoutMs: 5000,
      watched: async (now) => (await list.current(now)).filter((entry) => entry.recipient === wallet),
    });
    const indexed = new IndexedWatcher(source, { cursorName: `SOLANA-test-${randomUUID()}`, limit: 400 });
    const before = new Map(cluster.requests);
    const first = await indexed.step();
    // Two pages (1,000 and 6), then the oldest 400 transactions, the payment first.
    expect(requestsSince(before)).toMatchObject({ getSignaturesForAddress: 2, getTransaction: 400 });
    expect(first).toMatchObject({ booked: 1, cursor: undefined });
    expect((await stored(order.id)).invoice!.payments).toEqual([expect.objectContaining({ key: `${paid.signature}:${order.reference}` })]);
    await indexed.step();
    const last = await indexed.step();
    expect(requestsSince(before)).toMatchObject({ getTransaction: 1006 });
    // Read to the end: the watermark is written.
    expect(last.cursor).toMatch(/^\d+$/);
    const idle = new Map(cluster.requests);
    await indexed.step();
    expect(requestsSince(idle)).toEqual({ getSignaturesForAddress: 1 });
  });

  it('a payment in the late window is booked (UNRESOLVED PAID_LATE) at no extra request', async () => {
    const time = movingClock();
    const step = watcherAt(time.date);
    const order = await checkedOut();
    await step();
    time.advance(3_660_000); // past the invoice's hour, well within the late window
    cluster.clock = time.now;
    try {
      await pay(merchantWallet, 30_000_000n, order.reference);
      cluster.finalize();
      await step();
    } finally {
      cluster.clock = Date.now;
    }
    const now = await stored(order.id);
    expect(now.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'PAID_LATE' });
    expect(now.invoice!.payments).toHaveLength(1);
  });

  it('a restart between steps misses nothing: the new process reads back to the stored watermark, fetches only what is newer, and books nothing twice', async () => {
    const time = movingClock();
    cluster.clock = time.now;
    try {
      // A merchant of its own: the watchers below read only its references.
      const wallet = (await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(12))).address;
      await cluster.tokenAccount(wallet, USDC);
      const shop = (await newMerchant(true, 'Restarted Solana Shop', { wallets: { SOL: wallet } })).api_token;
      const cursorName = `SOLANA-test-${randomUUID()}`;
      const first = await checkedOut(shop);
      const process1 = watcherAt(time.date, cursorName, wallet);
      const paidFirst = await pay(wallet, 30_000_000n, first.reference);
      cluster.finalize();
      expect(await process1()).toMatchObject({ booked: 1, cursor: expect.stringMatching(/^\d+$/) });
      // Eleven minutes on: the watermark moves (it moves at most every ten).
      time.advance(660_000);
      const moved = await process1();
      expect(Number(moved.cursor)).toBeGreaterThan(Math.floor(time.now() / 1000) - 200);
      // The process ends; a payment meanwhile; a new process (a cold container) with the same cursor.
      const second = await checkedOut(shop);
      time.advance(5_000);
      const paidSecond = await pay(wallet, 30_000_000n, second.reference);
      cluster.finalize();
      const before = new Map(cluster.requests);
      const process2 = watcherAt(time.date, cursorName, wallet);
      expect(await process2()).toMatchObject({ booked: 1 });
      // Only the one transaction after the watermark, not the first payment before it.
      expect(requestsSince(before)).toMatchObject({ getSignaturesForAddress: 1, getTransaction: 1 });
      expect((await stored(second.id)).invoice!.payments).toEqual([expect.objectContaining({ key: `${paidSecond.signature}:${second.reference}` })]);
      // A process with no watermark (the first run after the per-reference version) reads back to the invoices' creation: the same keys, booked once.
      expect(await watcherAt(time.date, undefined, wallet)()).toMatchObject({ booked: 2 });
      expect((await stored(first.id)).invoice!.payments).toEqual([expect.objectContaining({ key: `${paidFirst.signature}:${first.reference}` })]);
      expect((await stored(second.id)).invoice!.payments).toHaveLength(1);
    } finally {
      cluster.clock = Date.now;
    }
  });
});

/** One step of a source as the watcher makes it: its transfers, then booked (no cursor: these tests read the source alone). */
async function stepOf(source: SolanaTransfers) {
  const read = await source.after(undefined, 10_000);
  source.booked();
  return read;
}

/** The Solana watcher on the local cluster on a moved clock, its own cursor unless named, the references of one wallet if given. */
function watcherAt(clock: () => Date, cursorName = `SOLANA-test-${randomUUID()}`, wallet?: string) {
  const list = new WatchList(PER_ADDRESS_ITEMS, 'SOLANA');
  const watched = async (now: Date) => (await list.current(now)).filter((entry) => wallet === undefined || entry.recipient === wallet);
  const source = new SolanaTransfers({ url: cluster.url, tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }], genesisHash: MAINNET_GENESIS_HASH, timeoutMs: 1000, clock, watched });
  const indexed = new IndexedWatcher(source, { cursorName, clock });
  return () => indexed.step();
}
