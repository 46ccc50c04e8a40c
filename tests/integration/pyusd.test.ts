import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';

// Solana has a source in this file's environment: live merchants with a wallet may check out in
// USDC_SOL and PYUSD, and checkout puts each invoice's reference on the Solana watcher's list.
vi.hoisted(() => {
  process.env.SOLANA_RPC_URL = 'http://127.0.0.1:9/';
});

import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { client, newMerchant, startApi } from '../support/api';
import { stored } from '../support/watchers';
import { reportHealthy } from '../support/source-health';
import { SolanaTestServer, solanaPayTransfer, TOKEN_2022_PROGRAM } from '../support/solana-server';
import { MAINNET_GENESIS_HASH, solanaSettings } from '#shared/chains/solana';
import { SolanaTransfers } from '#shared/watchers/sources/solana';
import { IndexedWatcher } from '#shared/watchers/indexed-watcher';
import { PER_ADDRESS_ITEMS, WatchList } from '#shared/store/watch-list';
import { checkRefundAddress } from '#shared/payments/refund-addresses';

/**
 * PayPal's PYUSD on Solana end to end: a Token-2022 mint, paid as USDC_SOL is (the merchant's
 * wallet and a Solana Pay reference), to the wallet's associated token account derived with the
 * Token-2022 program's id. The buyer's wallet signs a real TransferChecked of the Token-2022
 * program (@solana/kit and @solana-program/token with Token-2022's program address); the local
 * cluster runs it with that program's accounts and names the program in each balance. The
 * source is configured from the service's own settings (both tokens in one source), so a wrong
 * mint or program there fails here. Another Token-2022 mint, a "PYUSD" of the classic program and
 * USDC with a PYUSD invoice's reference never pay it.
 */

// Written here apart from the service's constant: a wrong one there fails these tests.
const PYUSD = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
// A forger's Token-2022 mint, and a forger's classic-program mint, both with PYUSD's decimals.
const FAKE_2022 = 'FakeTwentyTwentyTwo111111111111111111111111';
const FAKE_CLASSIC = 'FakeCLassicProgram1111111111111111111111111';

let cluster: SolanaTestServer;
let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let token: string;
let buyer: KeyPairSigner;
let merchantWallet: string;

beforeAll(async () => {
  cluster = await new SolanaTestServer(MAINNET_GENESIS_HASH).start();
  cluster.mint(PYUSD, 6, TOKEN_2022_PROGRAM);
  cluster.mint(FAKE_2022, 6, TOKEN_2022_PROGRAM);
  cluster.mint(FAKE_CLASSIC, 6);
  cluster.mint(USDC, 6);
  buyer = await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(17));
  merchantWallet = (await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(19))).address;
  for (const mint of [PYUSD, FAKE_2022, FAKE_CLASSIC, USDC]) {
    await cluster.tokenAccount(buyer.address, mint, 1_000_000_000_000n);
    await cluster.tokenAccount(merchantWallet, mint);
  }
  api = await startApi();
  call = client(api.url);
  await reportHealthy('SOLANA', 'solana-rpc');
  token = (await newMerchant(true, 'PYUSD Shop', { wallets: { SOL: merchantWallet } })).api_token;
});

afterAll(async () => {
  await api?.close();
  await cluster?.close();
});

/** A NEW order checked out in PYUSD (30 USD: 30 PYUSD at the demo rates). */
async function checkedOut() {
  const created = await call('POST', '/v1/orders', { token, body: { price_amount: 30, price_currency: 'USD', pay_currency: 'PYUSD' } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  const { invoice } = (await call('GET', `/v1/orders/${id}`, { token })).body;
  return { id, wallet: invoice.payment_address as string, reference: invoice.memo as string, uri: invoice.payment_uri as string, amount: invoice.pay_amount as number };
}

/** The Solana watcher as the service configures it (its tokens from the settings), with a cursor of its own. */
function watcher() {
  const list = new WatchList(PER_ADDRESS_ITEMS, 'SOLANA');
  const source = new SolanaTransfers({ url: cluster.url, tokens: solanaSettings().tokens, genesisHash: MAINNET_GENESIS_HASH, timeoutMs: 1000, watched: (now) => list.current(now) });
  const indexed = new IndexedWatcher(source, { cursorName: `SOLANA-pyusd-${randomUUID()}` });
  return () => indexed.step();
}

const pay = async (units: bigint, reference: string, mint: string, program: string) => cluster.send(await solanaPayTransfer(buyer, merchantWallet, units, reference, mint, 6, program));

const expectNew = async (orderId: string) => {
  const now = await stored(orderId);
  expect([now.order.status, now.invoice!.payments ?? []]).toEqual(['NEW', []]);
};

describe('PYUSD checkout (Solana Pay, Token-2022)', () => {
  it("asks for PYUSD's mint in the Solana Pay request, to the merchant's wallet with a fresh reference", async () => {
    const order = await checkedOut();
    expect(order.wallet).toBe(merchantWallet);
    expect(order.amount).toBe(30);
    expect(order.uri).toBe(`solana:${merchantWallet}?amount=30.000000&spl-token=${PYUSD}&reference=${order.reference}`);
  });

  it('a Token-2022 TransferChecked of PYUSD with the reference is booked once finalized: PAID', async () => {
    const step = watcher();
    const order = await checkedOut();
    const sent = await pay(30_000_000n, order.reference, PYUSD, TOKEN_2022_PROGRAM);
    expect(sent.err).toBeNull();
    cluster.finalize();
    await step();
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toEqual([expect.objectContaining({ key: `${sent.signature}:${order.reference}`, txid: sent.signature, amount: '30' })]);
  });

  it('the classic program cannot move Token-2022 PYUSD: the transaction fails and pays nothing', async () => {
    const step = watcher();
    const order = await checkedOut();
    // The wallet derives the classic program's accounts, which do not exist for this mint.
    expect((await pay(30_000_000n, order.reference, PYUSD, TOKEN_PROGRAM_ADDRESS)).err).not.toBeNull();
    cluster.finalize();
    await step();
    await expectNew(order.id);
  });
});

describe('what never pays a PYUSD invoice (each leaves the order NEW)', () => {
  it('another Token-2022 mint with the same decimals and the right reference', async () => {
    const step = watcher();
    const order = await checkedOut();
    expect((await pay(30_000_000n, order.reference, FAKE_2022, TOKEN_2022_PROGRAM)).err).toBeNull();
    cluster.finalize();
    await step();
    await expectNew(order.id);
  });

  it('a "PYUSD" of the classic token program (another mint) with the right reference', async () => {
    const step = watcher();
    const order = await checkedOut();
    expect((await pay(30_000_000n, order.reference, FAKE_CLASSIC, TOKEN_PROGRAM_ADDRESS)).err).toBeNull();
    cluster.finalize();
    await step();
    await expectNew(order.id);
  });

  it("real USDC sent with a PYUSD invoice's reference", async () => {
    const step = watcher();
    const order = await checkedOut();
    expect((await pay(30_000_000n, order.reference, USDC, TOKEN_PROGRAM_ADDRESS)).err).toBeNull();
    cluster.finalize();
    await step();
    await expectNew(order.id);
  });
});

describe('PYUSD refund addresses', () => {
  const refund = { currency: 'PYUSD', amount: '1', sandbox: false };
  it("takes a wallet, and refuses PYUSD's mint, the Token-2022 program and a token account", async () => {
    expect(checkRefundAddress(refund, merchantWallet, undefined, new Date())).toEqual({ ok: true, address: merchantWallet });
    for (const address of [PYUSD, 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb', await cluster.tokenAccount(merchantWallet, PYUSD)]) {
      expect(checkRefundAddress(refund, address, undefined, new Date())).toMatchObject({ ok: false });
    }
  });
});
