import { describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { createKeyPairSignerFromPrivateKeyBytes, generateKeyPairSigner } from '@solana/kit';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { watchedShop } from '../support/watched-shop';
import { NO_REFUND_SOURCE, watchedRefunds } from '../support/watched-refunds';
import { signedTrc20Transfer, TronGridTestServer, tronAddressOfKey } from '../support/trongrid-server';
import { MAINNET_BETA_GENESIS_HASH, SolanaTestServer, solanaPayTransfer } from '../support/solana-server';
import { HyperionTestServer } from '../support/hyperion-server';
import { BUYER_KEY } from '#infra/devnet/chain';
import type { Refund } from '#shared/domain/refund';
import { encodeBolt11, privateKeySigner } from '#shared/payments/lightning/bolt11';
import { PER_ADDRESS_ITEMS, WatchList } from '#shared/store/watch-list';
import { IndexedWatcher } from '#shared/watchers/indexed-watcher';
import { refundTransactionCheck } from '#shared/watchers/refund-check';
import { HyperionTransfers } from '#shared/watchers/sources/hyperion';
import { SolanaTransfers } from '#shared/watchers/sources/solana';
import { TronTransfers } from '#shared/watchers/sources/tron';

/**
 * Refunds on the per-address and indexed sources: TRON (the watch list against each range's
 * Transfer events), Solana (the buyer wallet's token account, no reference), EOS (the receiving
 * account's outgoing transfers in Hyperion's history) with real signed transfers on the local
 * servers, and LBTC's proof by preimage. The refunds are a sandbox merchant's (its orders are
 * paid through the sandbox), watched as setRefundAddress watches a live merchant's.
 */

const shop = watchedShop('refund-watch-indexed', 'Indexed Refund Shop');
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const EOS_ACCOUNT = 'refundshop11';
const FAST = { timeoutMs: 1000, attempts: 1, backoffMs: 10 };
const { watchedRefund, status } = watchedRefunds(shop, 'Refunding Shop');
const noSource = NO_REFUND_SOURCE;

describe('TRON: a refund address on the watch list', () => {
  it('the merchant’s real TRC-20 transfer makes it SENT once solid; its txid checks out; another recipient’s does not', async () => {
    const tron = await new TronGridTestServer([{ address: USDT, symbol: 'USDT', name: 'Tether USD', decimals: 6 }], 'k').start();
    try {
      const buyerAddress = tronAddressOfKey(bytesToHex(randomBytes(32)));
      const refund = await watchedRefund('USDT_TRC20', buyerAddress);
      const list = new WatchList(PER_ADDRESS_ITEMS, 'TRON');
      const source = () => new TronTransfers({ url: tron.url, apiKey: 'k', contract: USDT, currency: 'USDT_TRC20', decimals: 6, watched: (now) => list.current(now), http: FAST });
      const watcher = new IndexedWatcher(source(), { cursorName: `TRON-refund-${randomUUID()}` });
      const merchantKey = BUYER_KEY.slice(2);
      const paid = tron.send(signedTrc20Transfer(merchantKey, USDT, buyerAddress, 30_000_000n));
      const elsewhere = tron.send(signedTrc20Transfer(merchantKey, USDT, tronAddressOfKey(bytesToHex(randomBytes(32))), 30_000_000n));
      await watcher.step();
      expect((await status(refund)).status).toBe('AWAITING_PAYMENT');
      tron.solidify();
      const stepped = await watcher.step();
      expect(stepped.refunds).toBe(1);
      expect(await status(refund)).toMatchObject({ status: 'SENT', txid: paid.tx.txID });

      const check = refundTransactionCheck({ ...noSource, tron: source });
      expect(await check(refund, paid.tx.txID)).toEqual({ found: true, key: `${paid.tx.txID}:${buyerAddress}`, amount: '30', final: true });
      expect(await check(refund, elsewhere.tx.txID)).toMatchObject({ found: false, reason: expect.stringContaining('pays nothing') });
      expect(await check(refund, 'ab'.repeat(32))).toMatchObject({ found: false, reason: expect.stringContaining('no solidified transaction') });
      await expect(refundTransactionCheck(noSource)(refund, paid.tx.txID)).rejects.toMatchObject({
        code: 'REFUND_CHECK_UNAVAILABLE',
        message: 'Transactions on TRON cannot be checked: this deployment reads no TRON source.',
      });
    } finally {
      await tron.close();
    }
  });
});

describe('Solana: a refund paid to the buyer’s wallet (its USDC token account, no reference)', () => {
  it('short: SHORT and not SENT; in full once finalized: SENT; the signature checks out', async () => {
    const cluster = await new SolanaTestServer(MAINNET_BETA_GENESIS_HASH).start();
    try {
      cluster.mint(USDC, 6);
      const merchantWallet = await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(11));
      const buyerWallet = (await generateKeyPairSigner()).address;
      await cluster.tokenAccount(merchantWallet.address, USDC, 1_000_000_000n);
      await cluster.tokenAccount(buyerWallet, USDC);
      const refund = await watchedRefund('USDC_SOL', buyerWallet);
      const list = new WatchList(PER_ADDRESS_ITEMS, 'SOLANA');
      const source = () =>
        new SolanaTransfers({
          url: cluster.url,
          tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }],
          genesisHash: MAINNET_BETA_GENESIS_HASH,
          timeoutMs: 1000,
          watched: (now) => list.current(now),
        });
      const watcher = new IndexedWatcher(source(), { cursorName: `SOLANA-refund-${randomUUID()}` });
      // The merchant's wallet pays from a Solana Pay request of the buyer's wallet (any reference: none is watched).
      const anyReference = (await generateKeyPairSigner()).address;
      const short = cluster.send(await solanaPayTransfer(merchantWallet, buyerWallet, 29_000_000n, anyReference, USDC));
      await watcher.step();
      expect((await status(refund)).status).toBe('AWAITING_PAYMENT');
      cluster.finalize();
      await watcher.step();
      expect(await status(refund)).toMatchObject({ status: 'AWAITING_PAYMENT', short_payments: [expect.objectContaining({ key: `${short.signature}:${buyerWallet}`, amount: '29' })] });
      const full = cluster.send(await solanaPayTransfer(merchantWallet, buyerWallet, 30_000_000n, anyReference, USDC));
      cluster.finalize();
      expect((await watcher.step()).refunds).toBe(1);
      expect(await status(refund)).toMatchObject({ status: 'SENT', txid: full.signature });

      const check = refundTransactionCheck({ ...noSource, solana: source });
      expect(await check(refund, full.signature)).toEqual({ found: true, key: `${full.signature}:${buyerWallet}`, amount: '30', final: true });
      expect(await check(refund, short.signature)).toEqual({ found: true, key: `${short.signature}:${buyerWallet}`, amount: '29', final: true });
      expect(await check({ ...refund, address: merchantWallet.address }, full.signature)).toMatchObject({ found: false, reason: expect.stringContaining('pays nothing') });
      expect(await check(refund, '1'.repeat(88))).toMatchObject({ found: false, reason: expect.stringContaining('no finalized transaction') });
    } finally {
      await cluster.close();
    }
  });
});

describe('EOS: the receiving account pays the buyer’s account with its memo', () => {
  it('seen in the account’s history as an outgoing transfer once irreversible: SENT; a transfer with another memo is nothing; the txid checks out', async () => {
    const refund = await watchedRefund('EOS', 'buyeraccount', 'deposit 42');
    // The chain's blocks from now on: after the address was set.
    const hyperion = await new HyperionTestServer({ start: Date.now() }).start();
    try {
      const source = () => new HyperionTransfers({ url: hyperion.url, account: EOS_ACCOUNT, backoffMs: 5, lookbackSeconds: 3600 });
      const watcher = new IndexedWatcher(source(), { cursorName: `EOS-refund-${randomUUID()}` });
      const quantity = `${Number(refund.amount).toFixed(4)} EOS`;
      const wrongMemo = hyperion.transfer({ from: EOS_ACCOUNT, to: 'buyeraccount', quantity, memo: 'deposit 43' });
      const paid = hyperion.transfer({ from: EOS_ACCOUNT, to: 'buyeraccount', quantity, memo: 'deposit 42' });
      await watcher.step();
      expect((await status(refund)).status).toBe('AWAITING_PAYMENT');
      hyperion.finalize();
      const stepped = await watcher.step();
      expect(stepped).toMatchObject({ refunds: 1, unmatched: [] });
      expect(await status(refund)).toMatchObject({ status: 'SENT', txid: paid.trx_id });

      const check = refundTransactionCheck({ ...noSource, eos: source });
      expect(await check(refund, paid.trx_id)).toEqual({ found: true, key: String(paid.global_sequence), amount: refund.amount, final: true });
      expect(await check(refund, wrongMemo.trx_id)).toMatchObject({ found: false, reason: expect.stringContaining('with its memo') });
      expect(await check(refund, 'cd'.repeat(32))).toMatchObject({ found: false, reason: expect.stringContaining('does not know') });
    } finally {
      await hyperion.stop();
    }
  });
});

describe('LBTC: the merchant reports the preimage of the refund invoice', () => {
  it('sha256(preimage) must be the invoice’s payment hash; the amount is the invoice’s', async () => {
    const preimage = randomBytes(32);
    const invoice = encodeBolt11(
      {
        network: 'bc',
        amountMsat: 100_000_000n,
        timestamp: Math.floor(Date.now() / 1000),
        paymentHash: sha256(preimage),
        paymentSecret: randomBytes(32),
        description: 'refund',
        expirySeconds: 86_400,
      },
      privateKeySigner(randomBytes(32)),
    );
    const refund = { currency: 'LBTC', address: invoice, amount: '0.001' } as Refund;
    const check = refundTransactionCheck(noSource);
    expect(await check(refund, bytesToHex(preimage))).toEqual({ found: true, key: bytesToHex(sha256(preimage)), amount: '0.001', final: true });
    expect(await check(refund, bytesToHex(randomBytes(32)))).toMatchObject({ found: false, reason: expect.stringContaining('payment hash') });
    expect(await check(refund, 'not a preimage')).toMatchObject({ found: false, reason: expect.stringContaining('preimage') });
  });
});
