import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Keypair, Memo, Operation } from '@stellar/stellar-base';
import { Address } from '@ton/core';
import { watchedShop } from '../support/watched-shop';
import { NO_REFUND_SOURCE, watchedRefunds } from '../support/watched-refunds';
import { ToncenterTestServer, USDT_MASTER } from '../support/toncenter-server';
import { CIRCLE_USDC_ISSUER, HorizonTestServer, PUBLIC_PASSPHRASE, USDC } from '../support/horizon-server';
import { canonicalTonAddress } from '#shared/payments/addresses/ton';
import { muxedAddress } from '#shared/payments/addresses/stellar';
import { PER_ADDRESS_ITEMS, WatchList } from '#shared/store/watch-list';
import { IndexedWatcher } from '#shared/watchers/indexed-watcher';
import { refundTransactionCheck } from '#shared/watchers/refund-check';
import { StellarPayments } from '#shared/watchers/sources/horizon';
import { TonTransfers } from '#shared/watchers/sources/toncenter';

/**
 * Refunds in TON and USDC on Stellar: the buyer gives a TON address (with a comment for an
 * exchange) or a Stellar account with a MEMO_ID (or a muxed address), the address is watched as
 * setRefundAddress watches a live merchant's, the merchant pays it from its own wallet on the
 * local toncenter or Horizon (real signed transfers), and the watcher sees it: SENT; a reported
 * transaction checks out. The refunds are a sandbox merchant's (its orders paid through the
 * sandbox).
 */

const shop = watchedShop('refund-ton-stellar', 'TON Stellar Refund Shop');
const { watchedRefund, status } = watchedRefunds(shop, 'Refunding TON Stellar Shop');
const noSource = NO_REFUND_SOURCE;

describe("TON: a refund paid to the buyer's address", () => {
  it("the address is kept canonical with the exchange's comment; the merchant's transfer is seen: SENT; its hash checks out", async () => {
    const ton = await new ToncenterTestServer().start();
    try {
      const merchantWallet = ton.wallet(91);
      const buyer = ton.wallet(92);
      const buyerBounceable = buyer.address.toString({ bounceable: true, urlSafe: true });
      const refund = await watchedRefund('USDT_TON', buyerBounceable, 'deposit 7781');
      expect(refund).toMatchObject({ address: canonicalTonAddress(buyerBounceable), memo: 'deposit 7781' });
      const list = new WatchList(PER_ADDRESS_ITEMS, 'TON');
      const source = () => new TonTransfers({ url: ton.url, usdtMaster: USDT_MASTER, watched: (now) => list.current(now), minIntervalMs: 0, timeoutMs: 2000 });
      const watcher = new IndexedWatcher(source(), { cursorName: `TON-refund-${randomUUID()}` });
      const sent = ton.addJettonTransfer({ master: USDT_MASTER, from: merchantWallet, to: refund.address!, units: 30_000_000n, comment: 'deposit 7781' });
      let booked = 0;
      for (let i = 0; i < 5 && (await status(refund)).status !== 'SENT'; i += 1) booked += (await watcher.step()).refunds;
      expect(booked).toBe(1);
      expect(await status(refund)).toMatchObject({ status: 'SENT' });
      const check = refundTransactionCheck({ ...noSource, indexed: (chain) => (chain === 'TON' ? source() : undefined) });
      expect(await check(refund, sent.hex)).toMatchObject({ found: true, amount: '30', final: true });
      expect(await check({ ...refund, address: canonicalTonAddress(merchantWallet.address.toString())! }, sent.hex)).toMatchObject({ found: false });
    } finally {
      await ton.close();
    }
  });

  it('refuses a jetton master and a testnet address as the refund address', async () => {
    await expect(watchedRefund('TON', USDT_MASTER)).rejects.toThrow(/USDT jetton master, not a wallet/);
    const testnet = Address.parse('UQB3we_mCY94Qap7o--GvWAXgaKI9iJ-r9QgNAEmR1UokEKN').toString({ testOnly: true, bounceable: false, urlSafe: true });
    await expect(watchedRefund('TON', testnet)).rejects.toThrow(/testnet one/);
  });
});

describe('Stellar: a refund paid to the buyer’s account with its MEMO_ID', () => {
  it('a muxed address is kept as its account and id; the payment with that id is seen: SENT; its hash checks out', async () => {
    const horizon = await new HorizonTestServer().start();
    try {
      const merchantKeys = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 61));
      const buyer = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 62)).publicKey();
      horizon.createAccount(merchantKeys.publicKey(), '100');
      horizon.createAccount(buyer, '100');
      horizon.trust(merchantKeys.publicKey(), USDC, { balance: '1000' });
      horizon.trust(buyer, USDC);
      const refund = await watchedRefund('USDC_XLM', muxedAddress(buyer, '4242'));
      expect(refund).toMatchObject({ address: buyer, memo: '4242' });
      const list = new WatchList(PER_ADDRESS_ITEMS, 'STELLAR');
      const source = () =>
        new StellarPayments({
          url: horizon.url,
          issuer: CIRCLE_USDC_ISSUER,
          networkPassphrase: PUBLIC_PASSPHRASE,
          currency: 'USDC_XLM',
          decimals: 7,
          watched: (now) => list.current(now),
          timeoutMs: 2000,
        });
      const watcher = new IndexedWatcher(source(), { cursorName: `STELLAR-refund-${randomUUID()}` });
      const pay = (amount: string, memo: string) => {
        const builder = horizon.builder(merchantKeys);
        builder.addOperation(Operation.payment({ destination: buyer, asset: USDC, amount }));
        builder.addMemo(Memo.id(memo));
        const tx = builder.build();
        tx.sign(merchantKeys);
        const sent = horizon.send(tx);
        horizon.closeLedger();
        return sent;
      };
      // Another memo is another of the exchange's customers: not this refund.
      pay('30', '9999');
      for (let i = 0; i < 3; i += 1) await watcher.step();
      expect((await status(refund)).status).toBe('AWAITING_PAYMENT');
      const sent = pay('30', '4242');
      for (let i = 0; i < 3 && (await status(refund)).status !== 'SENT'; i += 1) await watcher.step();
      expect(await status(refund)).toMatchObject({ status: 'SENT', txid: sent.hash });
      const check = refundTransactionCheck({ ...noSource, indexed: (chain) => (chain === 'STELLAR' ? source() : undefined) });
      expect(await check(refund, sent.hash)).toMatchObject({ found: true, amount: '30', final: true });
    } finally {
      await horizon.close();
    }
  });
});
