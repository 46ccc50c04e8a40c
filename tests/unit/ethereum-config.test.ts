import { describe, expect, it } from 'vitest';
import { ConfigError } from '#shared/core/env';
import { ethereumConfig, MAINNET_TOKEN_CONTRACTS } from '#shared/payments/ethereum-config';
import { ethereumSourceOptions } from '#shared/watchers/sources/ethereum/source';

describe('Ethereum configuration', () => {
  it('defaults to mainnet: chain 1, the mainnet USDT and USDC contracts', () => {
    expect(ethereumConfig({})).toEqual({ chainId: 1, contracts: MAINNET_TOKEN_CONTRACTS });
    expect(MAINNET_TOKEN_CONTRACTS).toEqual({
      USDT_ERC20: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      USDC_ERC20: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    });
  });

  it('builds the source of a node with the configured chain and contracts', () => {
    const config = ethereumConfig({
      ETH_CHAIN_ID: '31337',
      USDT_ERC20_CONTRACT: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    });
    expect(ethereumSourceOptions(config, 'http://user:pass@127.0.0.1:8545/')).toEqual({
      url: 'http://user:pass@127.0.0.1:8545/',
      chainId: 31337,
      tokens: [
        { currency: 'USDT_ERC20', contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
        { currency: 'USDC_ERC20', contract: MAINNET_TOKEN_CONTRACTS.USDC_ERC20 },
      ],
    });
  });

  it.each([
    [{ USDC_ERC20_CONTRACT: '0x1234' }, /USDC_ERC20_CONTRACT/],
    [{ USDT_ERC20_CONTRACT: 'dAC17F958D2ee523a2206206994597C13D831ec7' }, /USDT_ERC20_CONTRACT/],
    [{ ETH_CHAIN_ID: '0' }, /ETH_CHAIN_ID/],
  ])('refuses %o at start', (env, message) => {
    expect(() => ethereumConfig(env)).toThrow(ConfigError);
    expect(() => ethereumConfig(env)).toThrow(message);
  });
});
