import { describe, expect, it } from 'vitest';
import { ConfigError } from '#shared/core/env';
import { evmConfig, MAINNET_TOKEN_CONTRACTS } from '#shared/chains/evm';
import { ethereumSourceOptions } from '#shared/watchers/sources/ethereum/source';
import { chainOf, currency, keyOf, quoteCurrency } from '#shared/domain/currencies';
import { EVM_NETWORKS, evmCurrencies, networkName } from '#shared/domain/networks';
import { payCurrencyFor } from '#shared/domain/pay-codes';
import { chainSources, watchedCurrencies } from '#shared/chains/sources';
import { readSolanaConfig } from '#shared/chains/solana';
import { readTronConfig } from '#shared/chains/tron';

describe('Ethereum configuration', () => {
  it('defaults to mainnet: chain 1, the mainnet USDT and USDC contracts', () => {
    expect(evmConfig({}).ETH).toEqual({ chain: 'ETH', name: 'Ethereum', chainId: 1, native: 'ETH', contracts: MAINNET_TOKEN_CONTRACTS });
    expect(MAINNET_TOKEN_CONTRACTS).toEqual({
      USDT_ERC20: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      USDC_ERC20: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    });
  });

  it('builds the source of a node with the configured chain and contracts', () => {
    const config = evmConfig({
      ETH_CHAIN_ID: '31337',
      USDT_ERC20_CONTRACT: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    }).ETH!;
    expect(ethereumSourceOptions(config, 'http://user:pass@127.0.0.1:8545/')).toEqual({
      url: 'http://user:pass@127.0.0.1:8545/',
      chain: 'ETH',
      chainId: 31337,
      native: 'ETH',
      tokens: [
        { currency: 'USDT_ERC20', contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
        { currency: 'USDC_ERC20', contract: MAINNET_TOKEN_CONTRACTS.USDC_ERC20 },
      ],
    });
  });

  it('reads the range cap of each network (<NETWORK>_BLOCK_RANGE) into its source; unset: the source default; not a positive integer is refused', () => {
    const arbitrum = evmConfig({ ARBITRUM_BLOCK_RANGE: '5' }).ARBITRUM!;
    expect(arbitrum.blockRange).toBe(5);
    expect(ethereumSourceOptions(arbitrum, 'http://127.0.0.1:8545/').blockRange).toBe(5);
    expect(ethereumSourceOptions(evmConfig({}).ETH!, 'http://127.0.0.1:8545/')).not.toHaveProperty('blockRange');
    for (const bad of ['0', '-3', '2.5', 'ten']) expect(() => evmConfig({ BASE_BLOCK_RANGE: bad })).toThrow(/BASE_BLOCK_RANGE/);
  });

  it.each([
    [{ USDC_ERC20_CONTRACT: '0x1234' }, /USDC_ERC20_CONTRACT/],
    [{ USDT_ERC20_CONTRACT: 'dAC17F958D2ee523a2206206994597C13D831ec7' }, /USDT_ERC20_CONTRACT/],
    [{ ETH_CHAIN_ID: '0' }, /ETH_CHAIN_ID/],
    [{ ARBITRUM_CHAIN_ID: 'one' }, /ARBITRUM_CHAIN_ID/],
    [{ USDT_BNB_CONTRACT: '0x55d398326f99059fF775485246999027B31979' }, /USDT_BNB_CONTRACT/],
  ])('refuses %o at start', (env, message) => {
    expect(() => evmConfig(env)).toThrow(ConfigError);
    expect(() => evmConfig(env)).toThrow(message);
  });
});

describe('the other EVM networks', () => {
  it('default to their mainnets: chain ids and the official contracts (docs/merchant-guide.md, "Networks")', () => {
    const config = evmConfig({});
    expect(Object.values(config).map(({ chain, chainId, native, contracts }) => ({ chain, chainId, native, contracts }))).toEqual([
      { chain: 'ETH', chainId: 1, native: 'ETH', contracts: MAINNET_TOKEN_CONTRACTS },
      {
        chain: 'ARBITRUM',
        chainId: 42161,
        native: 'ETH_ARB',
        contracts: { USDT_ARB: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9', USDC_ARB: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831' },
      },
      { chain: 'BASE', chainId: 8453, native: 'ETH_BASE', contracts: { USDC_BASE: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' } },
      { chain: 'POLYGON', chainId: 137, native: undefined, contracts: { USDC_POL: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' } },
      { chain: 'BSC', chainId: 56, native: undefined, contracts: { USDT_BNB: '0x55d398326f99059fF775485246999027B3197955' } },
      {
        chain: 'CELO',
        chainId: 42220,
        native: undefined,
        contracts: { USDT_CELO: '0x48065fbBE25f71C9282ddf5e1cD6D6A887483D5e', CUSD: '0x765DE816845861e75A25fCA122bb6898B8B1282a' },
      },
    ]);
  });

  it('take <NETWORK>_CHAIN_ID and <CODE>_CONTRACT for one network without touching the others', () => {
    const config = evmConfig({ ARBITRUM_CHAIN_ID: '31338', USDT_ARB_CONTRACT: '0x5FbDB2315678afecb367f032d93F642f64180aa3' });
    expect(config.ARBITRUM).toMatchObject({ chainId: 31338, contracts: { USDT_ARB: '0x5FbDB2315678afecb367f032d93F642f64180aa3' } });
    expect(config.ETH!.chainId).toBe(1);
    expect(ethereumSourceOptions(config.CELO!, 'http://127.0.0.1:1/')).toEqual({
      url: 'http://127.0.0.1:1/',
      chain: 'CELO',
      chainId: 42220,
      tokens: [
        { currency: 'USDT_CELO', contract: '0x48065fbBE25f71C9282ddf5e1cD6D6A887483D5e' },
        { currency: 'CUSD', contract: '0x765DE816845861e75A25fCA122bb6898B8B1282a' },
      ],
    });
  });

  it('each <NETWORK>_RPC_URL makes its own network watched, and only that one', () => {
    const sources = chainSources({ ARBITRUM_RPC_URL: 'http://127.0.0.1:8546', BSC_RPC_URL: 'https://bsc.example/' });
    expect(sources).toEqual([
      { chain: 'ARBITRUM', kind: 'ethereum-rpc', url: 'http://127.0.0.1:8546' },
      { chain: 'BSC', kind: 'ethereum-rpc', url: 'https://bsc.example/' },
    ]);
    expect([...watchedCurrencies(sources, () => true)]).toEqual(['ETH_ARB', 'USDT_ARB', 'USDC_ARB', 'USDT_BNB']);
  });

  it('every EVM currency is paid to the ETH key on its own chain, priced as its asset, with its exact decimals', () => {
    const rows = EVM_NETWORKS.flatMap((network) =>
      evmCurrencies(network).map((code) => [code, chainOf(code), keyOf(code), quoteCurrency(code), currency(code).precision, currency(code).payPrecision, networkName(code)]),
    );
    expect(rows).toEqual([
      ['ETH', 'ETH', 'ETH', 'ETH', 18, 8, 'Ethereum'],
      ['USDT_ERC20', 'ETH', 'ETH', 'USDT', 6, 6, 'Ethereum'],
      ['USDC_ERC20', 'ETH', 'ETH', 'USDC', 6, 6, 'Ethereum'],
      ['ETH_ARB', 'ARBITRUM', 'ETH', 'ETH', 18, 8, 'Arbitrum One'],
      ['USDT_ARB', 'ARBITRUM', 'ETH', 'USDT', 6, 6, 'Arbitrum One'],
      ['USDC_ARB', 'ARBITRUM', 'ETH', 'USDC', 6, 6, 'Arbitrum One'],
      ['ETH_BASE', 'BASE', 'ETH', 'ETH', 18, 8, 'Base'],
      ['USDC_BASE', 'BASE', 'ETH', 'USDC', 6, 6, 'Base'],
      ['USDC_POL', 'POLYGON', 'ETH', 'USDC', 6, 6, 'Polygon PoS'],
      ['USDT_BNB', 'BSC', 'ETH', 'USDT', 18, 6, 'BNB Smart Chain'],
      ['USDT_CELO', 'CELO', 'ETH', 'USDT', 6, 6, 'Celo'],
      ['CUSD', 'CELO', 'ETH', 'CUSD', 18, 6, 'Celo'],
    ]);
  });

  it("USDT_ARBI (MugglePay's own example) is USDT on Arbitrum", () => {
    expect(payCurrencyFor('USDT_ARBI')).toBe('USDT_ARB');
    expect(payCurrencyFor('USDT_ARB')).toBe('USDT_ARB');
  });
});

describe('TRON configuration', () => {
  it('watches USDT_TRC20 only with TRON_API_URL; the contract defaults to mainnet USDT; a bad value refuses to start', () => {
    expect(readTronConfig({})).toEqual({
      apiUrl: undefined,
      apiKey: undefined,
      contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      genesisHash: '00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc',
      maxBlockRange: 100,
      watched: false,
    });
    expect(readTronConfig({ TRON_API_URL: 'https://api.trongrid.io', TRON_API_KEY: 'k' })).toMatchObject({ watched: true, apiKey: 'k' });
    expect(readTronConfig({ TRON_MAX_BLOCK_RANGE: '5' }).maxBlockRange).toBe(5);
    expect(() => readTronConfig({ TRON_MAX_BLOCK_RANGE: '0' })).toThrow(/TRON_MAX_BLOCK_RANGE/);
    expect(() => readTronConfig({ TRON_API_URL: 'ftp://x' })).toThrow(/TRON_API_URL/);
    expect(() => readTronConfig({ USDT_TRC20_CONTRACT: '0xdAC17F958D2ee523a2206206994597C13D831ec7' })).toThrow(/USDT_TRC20_CONTRACT/);
  });

  it("takes another network's block 0 id (TRON_GENESIS_HASH, hex in any case) for a test deployment; refuses what is not one", () => {
    const nile = '0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc';
    // With the test network's own token (issue 28: mainnet USDT does not exist there).
    expect(readTronConfig({ TRON_GENESIS_HASH: nile.toUpperCase(), USDT_TRC20_CONTRACT: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' }).genesisHash).toBe(nile);
    expect(() => readTronConfig({ TRON_GENESIS_HASH: 'nile' })).toThrow(/TRON_GENESIS_HASH must be a block hash \(64 hex digits\), got "nile"/);
    expect(() => readTronConfig({ TRON_GENESIS_HASH: `0x${nile.slice(2)}` })).toThrow(/TRON_GENESIS_HASH/);
  });
});

describe('Solana configuration', () => {
  it("expects mainnet-beta's genesis hash by default, another cluster's when SOLANA_GENESIS_HASH says so; refuses what is not a hash", () => {
    expect(readSolanaConfig({}).genesisHash).toBe('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d');
    // With the cluster's own mint (issue 28: mainnet USDC does not exist there).
    expect(readSolanaConfig({ SOLANA_GENESIS_HASH: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG', USDC_SOL_MINT: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' }).genesisHash).toBe(
      'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
    );
    expect(() => readSolanaConfig({ SOLANA_GENESIS_HASH: 'devnet' })).toThrow(/SOLANA_GENESIS_HASH must be a genesis hash \(base58, 32 bytes\), got "devnet"/);
    // Base58, but 31 bytes.
    expect(() => readSolanaConfig({ SOLANA_GENESIS_HASH: '1'.repeat(31) })).toThrow(/SOLANA_GENESIS_HASH/);
  });
});
