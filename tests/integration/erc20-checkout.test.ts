import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { parse } from 'eth-url-parser';
import { type TestApi, useTestApi } from '../support/api';
import { createMerchant } from '#shared/services/merchants';
import { findMerchant } from '#shared/store/merchants';
import { parseDecimal } from '#shared/domain/money';
import { deriveAddress, validateAddress } from '#shared/payments/addresses/index';
import { HdPaymentMethods, SANDBOX_XPUB } from '#shared/payments/payment-methods';
import { SandboxLightningNode } from '#shared/payments/lightning/index';
import { SandboxGateway } from '#shared/payments/gateways/sandbox';
import { evmConfig, MAINNET_TOKEN_CONTRACTS } from '#shared/chains/evm';
import { chainSources, watchedCurrencies } from '#shared/chains/sources';
import { SOURCE_FACTORIES } from '#shared/watchers/sources/factories';

/**
 * USDT_ERC20 and USDC_ERC20: checkout over the API (sandbox key, demo rates at 1 USD), the
 * EIP-681 token URI read back by an independent parser, the sandbox payment, and failing
 * closed for live merchants while no Ethereum source watches the chain.
 */

let call: TestApi['call'];
let token: string;
useTestApi((api) => ({ call, token } = api));

async function checkout(payCurrency: string, as = token, price = 19.99) {
  const created = await call('POST', '/v1/orders', { token: as, body: { price_amount: price, price_currency: 'USD' } });
  const id = created.body.order.order_id as string;
  return { id, response: await call('POST', `/v1/orders/${id}/checkout`, { token: as, body: { pay_currency: payCurrency } }) };
}

/** The child index of a sandbox-key ETH address (the sandbox key's counter is shared by the run). */
function sandboxIndex(address: string): number {
  for (let i = 0; i < 100_000; i += 1) if (deriveAddress('ETH', SANDBOX_XPUB, i) === address) return i;
  throw new Error(`${address} is not a sandbox ETH address`);
}

describe('ERC-20 pay currencies for a sandbox merchant', () => {
  it.each([
    ['USDT_ERC20', MAINNET_TOKEN_CONTRACTS.USDT_ERC20],
    ['USDC_ERC20', MAINNET_TOKEN_CONTRACTS.USDC_ERC20],
  ])('%s: 1 USD a coin, an ETH address of the sandbox key, a token transfer URI', async (currency, contract) => {
    const { response } = await checkout(currency);
    expect(response.status, response.text).toBe(200);
    const invoice = response.body.invoice;
    expect(invoice).toMatchObject({ pay_currency: currency, pay_amount: 19.99, receive_amount: 19.99, receive_currency: 'USD' });
    expect(validateAddress('ETH', invoice.payment_address)).toBe(true);
    expect(sandboxIndex(invoice.payment_address)).toBeGreaterThanOrEqual(0);
    expect(parse(invoice.payment_uri)).toEqual({
      scheme: 'ethereum',
      target_address: contract,
      chain_id: '1',
      function_name: 'transfer',
      parameters: { address: invoice.payment_address, uint256: '19990000' },
    });
  });

  it('ETH and token invoices take their addresses from one counter: never the same address twice', async () => {
    const addresses: string[] = [];
    for (const currency of ['ETH', 'USDT_ERC20', 'USDC_ERC20', 'ETH', 'USDT_ERC20']) {
      const { response } = await checkout(currency);
      expect(response.status, response.text).toBe(200);
      addresses.push(response.body.invoice.payment_address);
    }
    expect(new Set(addresses).size).toBe(5);
    const indexes = addresses.map(sandboxIndex);
    expect([...indexes].sort((a, b) => a - b)).toEqual(indexes); // in order: one counter
  });

  it('a simulated payment of the full amount makes the order PAID', async () => {
    const { id } = await checkout('USDC_ERC20', token, 5);
    const paid = await call('POST', `/v1/sandbox/orders/${id}/pay`, { token, body: {} });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.order).toMatchObject({ status: 'PAID', pay_currency: 'USDC_ERC20', pay_amount: 5 });
  });

  it('an under-payment of a token invoice is UNRESOLVED, as any other currency', async () => {
    const { id } = await checkout('USDT_ERC20', token, 5);
    const paid = await call('POST', `/v1/sandbox/orders/${id}/pay`, { token, body: { amount: 4.999999 } });
    expect(paid.body.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
  });

  it('pay amounts of tokens have at most 6 decimals, rounded up', async () => {
    const created = await call('POST', '/v1/orders', { token, body: { price_amount: 0.00000001, price_currency: 'BTC' } });
    const id = created.body.order.order_id;
    const response = await call('POST', `/v1/orders/${id}/checkout`, { token, body: { pay_currency: 'USDT_ERC20' } });
    expect(response.body.invoice.pay_amount).toBe(0.00065); // 0.00000001 BTC at 65,000 USD
  });
});

describe('live merchants', () => {
  const liveXpub = 'xpub6C1HVMz946r433QEjZGpYYWYcspxXXBPys5PBGkmQboRXE6RLfFiStEkKbWKCZaPgDrzZh9nUEunxuiuy6MNdw23du2Ek7GoKYMJVH8eK5E';

  it.each(['ETH', 'USDT_ERC20', 'USDC_ERC20'])('cannot check out in %s while no ETH_RPC_URL watches the chain, even with a key', async (currency) => {
    const live = await createMerchant({ name: 'Live ETH', sandbox: false, xpubs: { ETH: liveXpub } });
    const { response } = await checkout(currency, live.api_token);
    expect(response.status, response.text).toBe(400);
    expect(response.body).toMatchObject({ error_code: 'PAYMENT_NOT_AVAILABLE' });
  });

  it('with a source configured, get the configured contract and chain in the URI, on their own key', async () => {
    const live = await createMerchant({ name: 'Live ETH watched', sandbox: false, xpubs: { ETH: liveXpub } });
    const merchant = (await findMerchant(live.user_id))!;
    const env = {
      ETH_RPC_URL: 'http://127.0.0.1:8545',
      ETH_CHAIN_ID: '31337',
      USDC_ERC20_CONTRACT: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512',
    };
    const watched = watchedCurrencies(chainSources(env), (kind) => SOURCE_FACTORIES[kind] !== undefined);
    expect([...watched]).toEqual(['ETH', 'USDT_ERC20', 'USDC_ERC20']);
    const methods = new HdPaymentMethods({
      platformXpubs: {},
      eosAccount: undefined,
      lightning: undefined,
      sandboxLightning: new SandboxLightningNode(),
      gateway: undefined,
      sandboxGateway: new SandboxGateway('http://pay.test/pay/'),
      watchedCurrencies: watched,
      evm: evmConfig(env),
    });
    const details = await methods.paymentDetails({
      merchant,
      orderId: randomUUID(),
      invoiceId: randomUUID(),
      currency: 'USDC_ERC20',
      amount: parseDecimal('12.5'),
      description: 'x',
      expiresAt: new Date(Date.now() + 60_000),
      mobile: false,
      fast: false,
      now: new Date(),
    });
    expect(parse(details.payment_uri)).toMatchObject({
      target_address: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
      chain_id: '31337',
      parameters: { address: details.payment_address, uint256: '12500000' },
    });
    // The merchant's own key (the same public test key here, on its own counter).
    expect(validateAddress('ETH', details.payment_address)).toBe(true);
  });
});
