import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';

// TON and Stellar have a source in this file's environment: live merchants with a wallet may check
// out in TON, USDT_TON and USDC_XLM, and checkout puts each merchant's account on its watcher's list.
vi.hoisted(() => {
  process.env.TON_API_URL = 'http://127.0.0.1:9/';
  process.env.STELLAR_HORIZON_URL = 'http://127.0.0.1:9/';
});

import { Keypair, Memo, Operation } from '@stellar/stellar-base';
import { client, newMerchant, startApi } from '../support/api';
import { signedInUser } from '../support/portal';
import { stored } from '../support/watchers';
import { reportHealthy } from '../support/source-health';
import { type TestWallet, ToncenterTestServer, USDT_MASTER } from '../support/toncenter-server';
import { CIRCLE_USDC_ISSUER, HorizonTestServer, PUBLIC_PASSPHRASE, USDC } from '../support/horizon-server';
import { canonicalTonAddress } from '#shared/payments/addresses/ton';
import { parseMuxed } from '#shared/payments/addresses/stellar';
import { SANDBOX_TON_WALLET, SANDBOX_XLM_ACCOUNT } from '#shared/payments/payment-methods';
import { TonTransfers } from '#shared/watchers/sources/toncenter';
import { StellarPayments } from '#shared/watchers/sources/horizon';
import { walletWatcher } from '#shared/watchers/indexed-watcher';
import { PER_ADDRESS_ITEMS, WatchList } from '#shared/store/watch-list';
import { listUnmatchedPayments } from '#shared/store/unmatched-payments';

/**
 * TON, USDT on TON and USDC on Stellar end to end: the API's checkout gives the merchant's own
 * wallet (TON) with a comment, or a muxed address of the merchant's account with its id as the
 * MEMO_ID (Stellar); a buyer's real transfer is made on a local toncenter or Horizon (signed
 * messages and cells, signed XDR); the watcher, built as the service builds it but for its
 * servers, reads the merchant's account (never the invoice), finds the invoice by account and
 * comment or memo, and books it: PAID. A transfer whose comment matches no invoice is kept as
 * an unmatched payment.
 */

let ton: ToncenterTestServer;
let horizon: HorizonTestServer;
let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let token: string;
let merchantId: number;
let origin: string;
let buyer: TestWallet;
let tonWallet: string;
const buyerXlm = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 41));
const merchantXlm = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 42)).publicKey();

beforeAll(async () => {
  ton = await new ToncenterTestServer().start();
  horizon = await new HorizonTestServer().start();
  buyer = ton.wallet(77);
  tonWallet = canonicalTonAddress(ton.wallet(78).address.toString())!;
  for (const account of [buyerXlm.publicKey(), merchantXlm]) horizon.createAccount(account, '10000');
  horizon.trust(buyerXlm.publicKey(), USDC, { balance: '100000' });
  horizon.trust(merchantXlm, USDC);
  api = await startApi();
  call = client(api.url);
  await reportHealthy('TON', 'toncenter');
  await reportHealthy('STELLAR', 'horizon');
  // The merchant gives its wallet in the bounceable form: kept in the canonical one.
  const bounceable = ton.wallet(78).address.toString({ bounceable: true, urlSafe: true });
  const shop = await newMerchant(false, 'TON and Stellar Shop', { wallets: { TON: bounceable, XLM: merchantXlm } });
  ({ api_token: token, user_id: merchantId } = shop);
  origin = `http://localhost:${new URL(api.url).port}`;
  Object.assign(process.env, { PORTAL_ORIGIN: origin });
});

/** What the merchant's portal lists of payments no invoice took (a viewer reads it), every page. */
async function portalUnmatched(userId = merchantId) {
  const { browser } = await signedInUser(api.url, origin, userId, 'viewer');
  const payments: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const page = await browser.call('GET', `/v1/portal/unmatched-payments?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status, page.text).toBe(200);
    payments.push(...page.body.payments);
    cursor = page.body.next_cursor;
  } while (cursor);
  return payments;
}

afterAll(async () => {
  await api?.close();
  await ton?.close();
  await horizon?.close();
});

/** A NEW order checked out in `currency` (30 USD), its invoice as Get Order answers it. */
async function checkedOut(currency: string, as = token) {
  const created = await call('POST', '/v1/orders', { token: as, body: { price_amount: 30, price_currency: 'USD', pay_currency: currency } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  const { invoice } = (await call('GET', `/v1/orders/${id}`, { token: as })).body;
  return { id, invoice };
}

/** The TON watcher on the local toncenter, with a cursor of its own (unmatched payments are kept under its name). */
function tonWatcher(cursorName = `TON-test-${randomUUID()}`) {
  const list = new WatchList(PER_ADDRESS_ITEMS, 'TON');
  const source = new TonTransfers({ url: ton.url, usdtMaster: USDT_MASTER, watched: (now) => list.current(now), minIntervalMs: 0, timeoutMs: 2000 });
  const watcher = walletWatcher(source, list, { cursorName });
  return () => watcher.step();
}

function stellarWatcher() {
  const list = new WatchList(PER_ADDRESS_ITEMS, 'STELLAR');
  const source = new StellarPayments({
    url: horizon.url,
    issuer: CIRCLE_USDC_ISSUER,
    networkPassphrase: PUBLIC_PASSPHRASE,
    currency: 'USDC_XLM',
    decimals: 7,
    watched: (now) => list.current(now),
    timeoutMs: 2000,
  });
  const watcher = walletWatcher(source, list, { cursorName: `STELLAR-test-${randomUUID()}` });
  return () => watcher.step();
}

/** Steps until the source says it is caught up. */
async function drain(step: () => Promise<{ behind: number }>) {
  for (let i = 0; i < 20; i += 1) if ((await step()).behind === 0) return;
  throw new Error('the watcher never caught up');
}

/** The buyer's Stellar transaction with `operations` and a memo, signed and sent. */
function sendXlm(operations: ReturnType<typeof Operation.payment>[], memo?: Memo) {
  const builder = horizon.builder(buyerXlm);
  for (const operation of operations) builder.addOperation(operation);
  if (memo) builder.addMemo(memo);
  const tx = builder.build();
  tx.sign(buyerXlm);
  return horizon.send(tx);
}

describe('TON and USDT on TON: the merchant wallet and a comment per invoice', () => {
  it('answers the canonical wallet, a comment of its own per invoice (payment_memo) and the ton://transfer links', async () => {
    const [a, b] = [await checkedOut('TON'), await checkedOut('TON')];
    expect(a.invoice.payment_address).toBe(tonWallet);
    expect(a.invoice.payment_memo).toMatch(/^[1-9]\d{15}$/);
    expect(a.invoice.memo).toBe(a.invoice.payment_memo);
    expect(a.invoice.payment_memo).not.toBe(b.invoice.payment_memo);
    // 30 USD at the demo rate (5 USD a toncoin): 6 TON.
    expect(a.invoice.payment_uri).toBe(`ton://transfer/${tonWallet}?amount=6000000000&text=${a.invoice.payment_memo}`);
    const usdt = await checkedOut('USDT_TON');
    expect(usdt.invoice.payment_uri).toBe(`ton://transfer/${tonWallet}?jetton=${USDT_MASTER}&amount=30000000&text=${usdt.invoice.payment_memo}`);
  });

  it('a TON transfer carrying the comment is booked: PAID', async () => {
    const step = tonWatcher();
    const order = await checkedOut('TON');
    ton.addTonTransfer({ from: buyer, to: tonWallet, nanotons: 6_000_000_000n, comment: order.invoice.payment_memo });
    await drain(step);
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toEqual([expect.objectContaining({ amount: '6' })]);
  });

  it('a USDT jetton transfer carrying the comment in its forward payload is booked: PAID', async () => {
    const step = tonWatcher();
    const order = await checkedOut('USDT_TON');
    ton.addJettonTransfer({ master: USDT_MASTER, from: buyer, to: tonWallet, units: 30_000_000n, comment: order.invoice.payment_memo });
    await drain(step);
    expect((await stored(order.id)).order.status).toBe('PAID');
  });

  it("a transfer whose comment matches no invoice, or that has none, is kept as unmatched and shown in the merchant's portal, never dropped; the order stays NEW", async () => {
    const name = `TON-test-${randomUUID()}`;
    const step = tonWatcher(name);
    const order = await checkedOut('TON');
    const sent = ton.addTonTransfer({ from: buyer, to: tonWallet, nanotons: 6_000_000_000n, comment: 'order 1234 thanks' });
    const bare = ton.addJettonTransfer({ master: USDT_MASTER, from: buyer, to: tonWallet, units: 7_000_000n });
    await drain(step);
    expect((await stored(order.id)).order.status).toBe('NEW');
    const unmatched = await listUnmatchedPayments(name);
    expect(unmatched).toContainEqual(expect.objectContaining({ address: tonWallet, memo: 'order 1234 thanks', amount: '6', txid: expect.any(String) }));
    expect(unmatched.some((item) => item.txid === sent.hex || item.txid === sent.hash)).toBe(true);
    const shown = await portalUnmatched();
    expect(shown).toContainEqual({
      currency: 'TON',
      amount: '6',
      txid: sent.hex,
      address: tonWallet,
      memo: 'order 1234 thanks',
      reason: 'NO_INVOICE',
      seen_at: expect.any(String),
      explorer_url: `https://tonviewer.com/transaction/${sent.hex}`,
    });
    expect(shown).toContainEqual(expect.objectContaining({ currency: 'USDT_TON', amount: '7', txid: bare.hex, reason: 'NO_INVOICE' }));
    expect(shown.find((payment) => payment.txid === bare.hex)).not.toHaveProperty('memo');
    // Newest first, each once, across pages.
    expect(new Set(shown.map((payment) => payment.txid)).size).toBe(shown.length);
    expect(shown.map((payment) => payment.seen_at)).toEqual(
      shown
        .map((payment) => payment.seen_at)
        .sort()
        .reverse(),
    );
    // Another merchant's portal never sees them.
    const other = await newMerchant(false, 'Another TON shop');
    expect(await portalUnmatched(other.user_id)).toEqual([]);
  });

  it('a sandbox merchant without a wallet gets the sandbox wallet; a live one without gets PAYMENT_NOT_AVAILABLE', async () => {
    const sandbox = await newMerchant(true, 'Sandbox without TON wallet');
    expect((await checkedOut('USDT_TON', sandbox.api_token)).invoice.payment_address).toBe(SANDBOX_TON_WALLET);
    const live = await newMerchant(false, 'Live without TON wallet');
    const created = await call('POST', '/v1/orders', { token: live.api_token, body: { price_amount: 30, price_currency: 'USD' } });
    const refused = await call('POST', `/v1/orders/${created.body.order.order_id}/checkout`, { token: live.api_token, body: { pay_currency: 'TON' } });
    expect(refused.body).toMatchObject({ status: 400, error_code: 'PAYMENT_NOT_AVAILABLE' });
  });
});

describe('USDC on Stellar: a muxed address and its id as MEMO_ID', () => {
  it("answers the muxed address of the merchant's account and the invoice's id, and a SEP-7 link to the account with the MEMO_ID", async () => {
    const { invoice } = await checkedOut('USDC_XLM');
    expect(parseMuxed(invoice.payment_address)).toEqual({ account: merchantXlm, id: invoice.payment_memo });
    expect(invoice.payment_uri).toBe(`web+stellar:pay?destination=${merchantXlm}&amount=30.000000&asset_code=USDC&asset_issuer=${CIRCLE_USDC_ISSUER}&memo=${invoice.payment_memo}&memo_type=MEMO_ID`);
  });

  it('a payment to the muxed address and one to the plain account with the MEMO_ID each pay their invoice: PAID', async () => {
    const step = stellarWatcher();
    const [muxed, memo] = [await checkedOut('USDC_XLM'), await checkedOut('USDC_XLM')];
    sendXlm([Operation.payment({ destination: muxed.invoice.payment_address, asset: USDC, amount: '30' })]);
    sendXlm([Operation.payment({ destination: merchantXlm, asset: USDC, amount: '30' })], Memo.id(memo.invoice.payment_memo));
    horizon.closeLedger();
    await drain(step);
    for (const order of [muxed, memo]) {
      const now = await stored(order.id);
      expect(now.order.status).toBe('PAID');
      expect(now.invoice!.payments).toEqual([expect.objectContaining({ amount: '30' })]);
    }
  });

  it("a payment to the account with a memo no invoice has is kept as unmatched and shown in the merchant's portal", async () => {
    const step = stellarWatcher();
    await checkedOut('USDC_XLM');
    const sent = sendXlm([Operation.payment({ destination: merchantXlm, asset: USDC, amount: '12.5' })], Memo.id('424242'));
    horizon.closeLedger();
    await drain(step);
    expect(await portalUnmatched()).toContainEqual(expect.objectContaining({ currency: 'USDC_XLM', amount: '12.5', address: merchantXlm, memo: '424242', reason: 'NO_INVOICE', txid: sent.hash }));
  });

  it('the payment page is told the plain account to pay with the memo', async () => {
    const { id, invoice } = await checkedOut('USDC_XLM');
    const page = await call('GET', `/v1/pay/${id}`);
    expect(page.body.invoice).toMatchObject({ payment_address: invoice.payment_address, memo: invoice.payment_memo, account: merchantXlm });
  });

  it('a sandbox merchant without an account gets the sandbox account', async () => {
    const sandbox = await newMerchant(true, 'Sandbox without Stellar account');
    expect(parseMuxed((await checkedOut('USDC_XLM', sandbox.api_token)).invoice.payment_address)?.account).toBe(SANDBOX_XLM_ACCOUNT);
  });
});
