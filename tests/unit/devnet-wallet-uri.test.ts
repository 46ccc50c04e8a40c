import { describe, expect, it } from 'vitest';
import { parseWalletUri, type DevnetState } from '#infra/devnet/state';
import { erc20TransferUri } from '#shared/payments/addresses/erc20-uri';
import { paymentUri } from '#shared/payments/addresses/uri';
import { parseDecimal } from '#shared/domain/money';

/** `npm run devnet:pay -- --uri` reads back exactly what the service writes for a refund on the devnet. */
const usdt = '0x5fbdb2315678afecb367f032d93f642f64180aa3' as const;
const state: DevnetState = {
  apiUrl: 'http://127.0.0.1:3000',
  buyer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  networks: [
    { chain: 'ETH', name: 'Ethereum', rpcUrl: 'http://127.0.0.1:8545', chainId: 31337, native: 'ETH', tokens: { USDT_ERC20: { address: usdt, decimals: 6 } } },
    { chain: 'ARBITRUM', name: 'Arbitrum One', rpcUrl: 'http://127.0.0.1:8547', chainId: 412346, native: 'ETH_ARB', tokens: {} },
  ],
};
const to = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('parseWalletUri', () => {
  it('a token transfer URI as the service writes it (the contract in EIP-55): the token, recipient and units', () => {
    const uri = erc20TransferUri(usdt, 31337, to, parseDecimal('12.345678'), 6);
    expect(parseWalletUri(state, uri)).toEqual({ network: state.networks[0], to, units: 12_345_678n, token: { currency: 'USDT_ERC20', address: usdt } });
  });

  it('an ether payment URI on the second network: wei, no token', () => {
    const uri = paymentUri('ETH', to, '0.5', { chainId: 412346 });
    expect(parseWalletUri(state, uri)).toEqual({ network: state.networks[1], to, units: 5n * 10n ** 17n });
  });

  it('refuses what it cannot pay, saying why', () => {
    expect(parseWalletUri(state, paymentUri('ETH', to, '1', { chainId: 1 }))).toEqual({ error: "chain 1 is none of the devnet's (Ethereum 31337, Arbitrum One 412346)" });
    expect(parseWalletUri(state, erc20TransferUri('0xdAC17F958D2ee523a2206206994597C13D831ec7', 31337, to, parseDecimal('1'), 6))).toEqual({
      error: "0xdAC17F958D2ee523a2206206994597C13D831ec7 is none of Ethereum's test tokens",
    });
    expect(parseWalletUri(state, `ethereum:${usdt}@31337/transfer?address=${to}&uint256=1.5`)).toHaveProperty('error');
    expect(parseWalletUri(state, `ethereum:${to}@31337?value=-1`)).toHaveProperty('error');
    expect(parseWalletUri(state, `bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=1`)).toHaveProperty('error');
  });
});
