import { describe, expect, it } from 'vitest';
import { readEosConfig } from '#shared/chains/eos';
import { readLightningConfig } from '#shared/chains/lightning';
import { ConfigError } from '#shared/core/env';
import { readSolanaConfig } from '#shared/chains/solana';
import { readTronConfig } from '#shared/chains/tron';
import { indexedChains } from '#shared/watchers/runnable';

describe('Lightning and EOS configuration (what is watched, what live merchants may be paid in)', () => {
  it('EOS is watched only with both EOS_ACCOUNT and EOS_HISTORY_URL; LBTC with LND_REST_URL', () => {
    expect(readEosConfig({ EOS_ACCOUNT: 'shop.pay' })).toEqual({ account: 'shop.pay', historyUrl: undefined, watched: false });
    expect(readEosConfig({ EOS_ACCOUNT: 'shop.pay', EOS_HISTORY_URL: 'https://eos.hyperion.example' }).watched).toBe(true);
    const chains = (env: Record<string, string>) => indexedChains(readLightningConfig(env), readEosConfig(env));
    expect(chains({})).toEqual([]);
    expect(chains({ EOS_ACCOUNT: 'shop.pay' })).toEqual([]);
    expect(chains({ LND_REST_URL: 'https://lnd:8080', EOS_ACCOUNT: 'shop.pay', EOS_HISTORY_URL: 'https://eos.example' })).toEqual(['LBTC', 'EOS']);
  });

  it('refuses a history API without an account, a malformed account and a URL that is not http(s)', () => {
    expect(() => readEosConfig({ EOS_HISTORY_URL: 'https://eos.example' })).toThrow(/EOS_HISTORY_URL is set without EOS_ACCOUNT/);
    expect(() => readEosConfig({ EOS_ACCOUNT: 'Shop-Pay' })).toThrow(ConfigError);
    expect(() => readEosConfig({ EOS_ACCOUNT: 'shop.pay', EOS_HISTORY_URL: 'eos.example' })).toThrow(/absolute URL/);
    expect(() => readEosConfig({ EOS_ACCOUNT: 'shop.pay', EOS_HISTORY_URL: 'ftp://eos.example' })).toThrow(/http\(s\)/);
  });
});

/**
 * TRON's and Solana's token goes with their network (issue 28): the chain check proves which
 * network the API or node serves, but a test deployment left with the mainnet contract or mint
 * would offer a token that does not exist there, and a mainnet one with another token would book
 * that token as USDT or USDC. Both are refused at start (and at synth, tests/infra/config.test.ts).
 */
describe("TRON's and Solana's token and network", () => {
  const TRON = {
    mainnet: '00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc',
    nile: '0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc',
    usdt: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    nileUsdt: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
  };
  const SOLANA = {
    mainnet: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
    devnet: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
    usdc: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    devnetUsdc: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  };

  it('takes mainnet with its token (the defaults) and a test network with its own', () => {
    expect(readTronConfig({ TRON_API_URL: 'https://api.trongrid.io' })).toMatchObject({ genesisHash: TRON.mainnet, contract: TRON.usdt });
    expect(readTronConfig({ TRON_GENESIS_HASH: TRON.mainnet, USDT_TRC20_CONTRACT: TRON.usdt })).toMatchObject({ contract: TRON.usdt });
    expect(readTronConfig({ TRON_GENESIS_HASH: TRON.nile, USDT_TRC20_CONTRACT: TRON.nileUsdt })).toMatchObject({ genesisHash: TRON.nile, contract: TRON.nileUsdt });
    expect(readSolanaConfig({ SOLANA_RPC_URL: 'https://solana.example/' })).toMatchObject({ genesisHash: SOLANA.mainnet, mint: SOLANA.usdc });
    expect(readSolanaConfig({ SOLANA_GENESIS_HASH: SOLANA.devnet, USDC_SOL_MINT: SOLANA.devnetUsdc })).toMatchObject({ genesisHash: SOLANA.devnet, mint: SOLANA.devnetUsdc });
  });

  it('watches PYUSD as a Token-2022 mint beside USDC on mainnet; a test cluster only with its own PYUSD_MINT', () => {
    const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
    expect(readSolanaConfig({ SOLANA_RPC_URL: 'https://solana.example/' }).tokens).toEqual([
      { currency: 'USDC_SOL', mint: SOLANA.usdc, decimals: 6, program: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' },
      { currency: 'PYUSD', mint: '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo', decimals: 6, program: TOKEN_2022 },
    ]);
    // A devnet configured before PYUSD (USDC alone) still starts, without PYUSD: it fails closed.
    expect(readSolanaConfig({ SOLANA_GENESIS_HASH: SOLANA.devnet, USDC_SOL_MINT: SOLANA.devnetUsdc }).tokens.map((token) => token.currency)).toEqual(['USDC_SOL']);
    const devnetPyusd = 'CXk2AMBfi3TwaEL2468s6zP8xq9NxTXjp9gjMgzeUynM';
    expect(readSolanaConfig({ SOLANA_GENESIS_HASH: SOLANA.devnet, USDC_SOL_MINT: SOLANA.devnetUsdc, PYUSD_MINT: devnetPyusd }).tokens.map((token) => token.mint)).toEqual([
      SOLANA.devnetUsdc,
      devnetPyusd,
    ]);
    expect(() => readSolanaConfig({ SOLANA_GENESIS_HASH: SOLANA.devnet, USDC_SOL_MINT: SOLANA.devnetUsdc, PYUSD_MINT: '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo' })).toThrow(
      /PYUSD's mainnet token/,
    );
    expect(() => readSolanaConfig({ PYUSD_MINT: SOLANA.devnetUsdc })).toThrow(/PYUSD_MINT 4zMM\w+ is not PYUSD's mainnet token/);
  });

  it('refuses a test network with the mainnet token, set or left as the default', () => {
    const nile =
      /TRON_GENESIS_HASH is Nile testnet's, where USDT_TRC20's mainnet token TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t \(the default of USDT_TRC20_CONTRACT\) does not exist: set USDT_TRC20_CONTRACT/;
    expect(() => readTronConfig({ TRON_API_URL: 'https://nile.trongrid.io', TRON_GENESIS_HASH: TRON.nile })).toThrow(nile);
    expect(() => readTronConfig({ TRON_GENESIS_HASH: TRON.nile, USDT_TRC20_CONTRACT: TRON.usdt })).toThrow(nile);
    // A network it does not know by name is still not mainnet.
    expect(() => readTronConfig({ TRON_GENESIS_HASH: 'ab'.repeat(32) })).toThrow(/TRON_GENESIS_HASH is another network than mainnet's/);
    expect(() => readSolanaConfig({ SOLANA_GENESIS_HASH: SOLANA.devnet })).toThrow(
      /SOLANA_GENESIS_HASH is devnet's, where USDC_SOL's mainnet token EPjF\w+ \(the default of USDC_SOL_MINT\) does not exist/,
    );
    expect(() => readSolanaConfig({ SOLANA_GENESIS_HASH: SOLANA.devnet, USDC_SOL_MINT: SOLANA.usdc })).toThrow(ConfigError);
  });

  it('refuses mainnet with another token: it would be booked as USDT_TRC20 or USDC_SOL', () => {
    expect(() => readTronConfig({ USDT_TRC20_CONTRACT: TRON.nileUsdt })).toThrow(
      /USDT_TRC20_CONTRACT TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf is not USDT_TRC20's mainnet token TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t, and TRON_GENESIS_HASH is mainnet's: another token would be booked as USDT_TRC20/,
    );
    expect(() => readSolanaConfig({ SOLANA_GENESIS_HASH: SOLANA.mainnet, USDC_SOL_MINT: SOLANA.devnetUsdc })).toThrow(/USDC_SOL_MINT 4zMM\w+ is not USDC_SOL's mainnet token/);
  });
});
