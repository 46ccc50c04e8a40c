import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';

// Solana has a source in this file's environment: live merchants with a wallet may check out in
// USDC_SOL and checkout puts each invoice's reference on the Solana watcher's list.
vi.hoisted(() => {
  process.env.SOLANA_RPC_URL = 'http://127.0.0.1:9/';
});

import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  blockhash,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { client, newMerchant, startApi } from '../support/api';
import { stored } from '../support/watchers';
import { reportHealthy } from '../support/source-health';
import { DEVNET_GENESIS_HASH, SolanaTestServer } from '../support/solana-server';
import { decimalFromNumber, formatDecimal } from '#shared/domain/money';
import { MAINNET_GENESIS_HASH } from '#shared/payments/solana-config';
import { SANDBOX_SOL_WALLET } from '#shared/payments/payment-methods';
import { WrongChainError } from '#shared/core/source-error';
import { SolanaTransfers } from '#shared/watchers/sources/solana';
import { IndexedWatcher } from '#shared/watchers/indexed-watcher';
import { listWatchedAddresses, WatchList } from '#shared/store/watch-list';

/**
 * USDC on Solana end to end (Solana Pay): checkout gives the merchant's wallet and a fresh
 * reference; the buyer's wallet signs a real SPL TransferChecked with the reference (built with
 * @solana/kit, as a wallet does from the QR code); a local cluster checks and runs it and
 * answers in the JSON-RPC format; the Solana watcher finds it by its reference, only once
 * finalized, and books the change of the merchant's USDC balance. The wrong-token attacks
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
  const list = new WatchList('SOLANA');
  const source = new SolanaTransfers({ url, mint: USDC, currency: 'USDC_SOL', decimals: 6, genesisHash, timeoutMs: 1000, watched: (now) => list.current(now) });
  const indexed = new IndexedWatcher(source, { cursorName: `SOLANA-test-${randomUUID()}` });
  return () => indexed.step();
}

/** A wallet's Solana Pay transfer: TransferChecked of `units` of `mint` to `to`'s token account, the reference as a read-only account. */
async function pay(to: string, units: bigint, reference: string, mint = USDC) {
  const [from] = await findAssociatedTokenPda({ owner: buyer.address, mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [dest] = await findAssociatedTokenPda({ owner: address(to), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const transfer = getTransferCheckedInstruction({ source: from, mint: address(mint), destination: dest, authority: buyer, amount: units, decimals: 6 });
  const instruction = { ...transfer, accounts: [...transfer.accounts, { address: address(reference), role: AccountRole.READONLY }] };
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayerSigner(buyer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash('EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k'), lastValidBlockHeight: 1_000n }, m),
    (m) => appendTransactionMessageInstruction(instruction, m),
  );
  return cluster.send(getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message)));
}

describe('USDC_SOL checkout (Solana Pay)', () => {
  it("pays the merchant's wallet with a fresh reference per invoice, in a Solana Pay transfer request, and watches the reference", async () => {
    const [a, b] = [await checkedOut(), await checkedOut()];
    expect(a.wallet).toBe(merchantWallet);
    expect(a.reference).not.toBe(b.reference);
    expect(a.uri).toBe(`solana:${merchantWallet}?amount=30.000000&spl-token=${USDC}&reference=${a.reference}`);
    expect(await listWatchedAddresses('SOLANA', new Date())).toContainEqual(expect.objectContaining({ address: a.reference, recipient: merchantWallet, currency: 'USDC_SOL' }));
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
  it('books the payment found by its reference only once finalized: PAID, the amount from the wallet\'s USDC balance change', async () => {
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
