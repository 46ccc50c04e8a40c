import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';

// Ethereum has a source in this file's environment (live merchants may check out in its
// tokens), and three confirmations keep the chains short.
vi.hoisted(() => {
  process.env.ETH_RPC_URL = 'http://127.0.0.1:9/';
  process.env.USDT_ERC20_CONFIRMATIONS = '3';
});

import { parseUnits } from 'viem';
import { stored } from '../support/watchers';
import { reportAllHealthy } from '../support/source-health';
import { type EthShop, startEthShop } from '../support/eth-shop';
import { buyer, deployer, sendToken } from '#infra/devnet/chain';
import { profileOf } from '#shared/domain/merchant';
import { createMerchant } from '#shared/services/merchants';
import { askRefund } from '#shared/services/refunds/ask';
import { setRefundAddress, refundUrl } from '#shared/services/refunds/buyer-link';
import { findMerchant } from '#shared/store/merchants';
import { findRefund } from '#shared/store/refunds';
import { listDeliveries } from '#shared/store/deliveries';
import { BlockWatcher } from '#shared/watchers/block-watcher';
import { refundTransactionCheck } from '#shared/watchers/refund-check';
import { EthereumBlockSource } from '#shared/watchers/sources/ethereum/source';

/**
 * A USDT refund on the real local EVM devnet: a live merchant's order paid in USDT, refunded to
 * the address the buyer gives, the merchant paying it with a real signed token transfer; the
 * watcher sees it (SENT at the confirmations, the order REFUNDED with its callback), and a
 * reported transaction hash is checked by its receipt.
 */

let shop: EthShop | undefined;
const actor = { who: 'test', from: '127.0.0.1' };
const liveXpub = 'xpub6C1HVMz946r433QEjZGpYYWYcspxXXBPys5PBGkmQboRXE6RLfFiStEkKbWKCZaPgDrzZh9nUEunxuiuy6MNdw23du2Ek7GoKYMJVH8eK5E';

beforeAll(async () => {
  shop = await startEthShop('Refund Devnet Shop');
  await reportAllHealthy();
});
afterAll(async () => shop?.stop());

const mine = async (blocks = 1) => {
  for (let i = 0; i < blocks; i += 1) await shop!.node.request('evm_mine');
};

const source = () => new EthereumBlockSource({ url: shop!.proxy.url, chainId: shop!.node.chainId, timeoutMs: 1000, tokens: [{ currency: 'USDT_ERC20', contract: shop!.tokens.USDT_ERC20 }] });

describe('a USDT refund on the EVM devnet', () => {
  it('paid by the merchant with a real transfer: not SENT before 3 confirmations, then SENT and the order REFUNDED with its callback; the hash checks out', async () => {
    const { clients, tokens, call } = shop!;
    const live = await createMerchant({ name: 'Live USDT refunds', sandbox: false, xpubs: { ETH: liveXpub }, callbackStatuses: 'all' });
    const profile = profileOf((await findMerchant(live.user_id))!);
    const watcher = new BlockWatcher(source(), { cursorName: `ETH-refund-${randomUUID()}` });
    await watcher.step(); // the cursor starts at the tip

    const created = await call('POST', '/v1/orders', {
      token: live.api_token,
      body: { price_amount: 30, price_currency: 'USD', pay_currency: 'USDT_ERC20', callback_url: 'https://shop.example/callback' },
    });
    expect(created.status, created.text).toBe(200);
    const id = created.body.order.order_id as string;
    const invoice = (await call('GET', `/v1/orders/${id}`, { token: live.api_token })).body.invoice;
    await sendToken(clients, buyer, tokens.USDT_ERC20, invoice.payment_address, parseUnits('30', 6));
    await mine(3);
    await watcher.step();
    expect((await stored(id)).order.status).toBe('PAID');

    const asked = await askRefund(profile, id, {}, actor, new Date());
    const refund = await setRefundAddress({ secret: new URL(await refundUrl(asked.refund!)).hash.slice('#refund='.length), address: buyer.address, now: new Date() });
    expect(refund).toMatchObject({ status: 'AWAITING_PAYMENT', currency: 'USDT_ERC20', amount: '30', address: buyer.address });

    // The merchant's wallet pays the refund; a transfer to someone else in the same block pays nothing.
    const paid = await sendToken(clients, deployer, tokens.USDT_ERC20, buyer.address, parseUnits('30', 6));
    const elsewhere = await sendToken(clients, deployer, tokens.USDT_ERC20, '0x000000000000000000000000000000000000dEaD', parseUnits('30', 6));
    await mine();
    await watcher.step();
    expect((await findRefund(id, refund.refund_id))!.status).toBe('AWAITING_PAYMENT');
    const check = refundTransactionCheck({
      block: async (chain) => (chain === 'ETH' ? source() : undefined),
      tron: () => undefined,
      solana: () => undefined,
      eos: () => undefined,
      indexed: () => undefined,
    });
    expect(await check(refund, paid)).toEqual({ found: true, key: `${paid}:0`, amount: '30', final: false });

    await mine(2);
    await watcher.step();
    expect(await findRefund(id, refund.refund_id)).toMatchObject({ status: 'SENT', txid: paid });
    expect((await stored(id)).order.status).toBe('REFUNDED');
    const callbacks = (await listDeliveries(id)).filter((delivery) => delivery.status === 'REFUNDED');
    expect(callbacks).toHaveLength(1);
    expect(JSON.parse(callbacks[0]!.payload).refunds).toEqual([expect.objectContaining({ status: 'SENT', amount: '30', address: buyer.address, txid: paid })]);

    // The hash, reported: final, what it paid; another transfer or an unknown hash are not this refund's payment.
    expect(await check(refund, paid)).toEqual({ found: true, key: `${paid}:0`, amount: '30', final: true });
    expect(await check(refund, elsewhere)).toEqual({ found: false, reason: "the transaction pays nothing in USDT_ERC20 to the refund's address" });
    expect(await check(refund, `0x${'12'.repeat(32)}`)).toMatchObject({ found: false, reason: expect.stringContaining('does not know') });
    expect(await check({ ...refund, amount: '31' }, paid)).toMatchObject({ found: true, amount: '30' });
  });
});
