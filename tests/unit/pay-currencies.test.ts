import { describe, expect, it, vi } from 'vitest';

// This file's process: BTC has a platform key and a source, LTC a source only, ETH a source
// only (merchants may bring their own ETH key), LND is configured, EOS has an account but no
// history API (nothing would see its payments).
vi.hoisted(() => {
  Object.assign(process.env, {
    PLATFORM_XPUB_BTC: 'xpub6C1HVMz946r433QEjZGpYYWYcspxXXBPys5PBGkmQboRXE6RLfFiStEkKbWKCZaPgDrzZh9nUEunxuiuy6MNdw23du2Ek7GoKYMJVH8eK5E',
    BTC_ESPLORA_URL: 'https://esplora.example/api',
    LTC_ESPLORA_URL: 'https://esplora.example/ltc/api',
    ETH_RPC_URL: 'https://eth.example/',
    LND_REST_URL: 'https://lnd.example:8080',
    LND_MACAROON: 'ab',
    EOS_ACCOUNT: 'shopreceive1',
    // The stack's list of gateways with credentials: WECHAT only.
    LIVE_GATEWAYS: 'WECHAT',
  });
});

import type { MerchantProfile } from '#shared/domain/merchant';
import { canBePaidIn } from '#shared/payments/availability';
import { offeredCurrencies } from '#shared/schemas/pay';
import { SANDBOX_CURRENCIES } from '../support/pay-currencies';

const merchant = (overrides: Partial<MerchantProfile>): MerchantProfile => ({
  user_id: 1,
  name: 'Shop',
  sandbox: false,
  receive_currency: 'USD',
  gateways: [],
  created_at: '2026-11-23T00:00:00.000Z',
  ...overrides,
});
const offered = (profile: MerchantProfile) => offeredCurrencies(profile, (code) => canBePaidIn(profile, code));

describe('the currencies the payment page offers', () => {
  it('a live merchant: a currency with a receiving key and a watcher, LBTC with a node, EOS only with its history API, its own gateways', () => {
    expect(offered(merchant({ gateways: ['WECHAT'] }))).toEqual(['BTC', 'LBTC', 'WECHAT']);
  });

  it('a gateway the merchant has enabled but the platform has no credentials for is not offered (checkout would fail closed)', () => {
    expect(offered(merchant({ gateways: ['ALIPAY', 'WECHAT'] }))).toEqual(['BTC', 'LBTC', 'WECHAT']);
    expect(canBePaidIn(merchant({ gateways: ['ALIPAY'] }), 'ALIPAY')).toBe(false);
    expect(canBePaidIn(merchant({ sandbox: true }), 'ALIPAY')).toBe(true);
  });

  it("a merchant's own key opens its chain's currencies where a source watches them (ETH and its tokens), not where none does (BCH)", () => {
    const eth = 'xpub6C1HVMz946r433QEjZGpYYWYcspxXXBPys5PBGkmQboRXE6RLfFiStEkKbWKCZaPgDrzZh9nUEunxuiuy6MNdw23du2Ek7GoKYMJVH8eK5E';
    expect(offered(merchant({ xpubs: { ETH: eth, BCH: eth } }))).toEqual(['BTC', 'ETH', 'USDT_ERC20', 'USDC_ERC20', 'LBTC']);
  });

  it('a sandbox merchant: everything (its payments are simulated)', () => {
    expect(offered(merchant({ sandbox: true }))).toEqual(SANDBOX_CURRENCIES);
  });
});
