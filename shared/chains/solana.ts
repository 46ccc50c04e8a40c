import { section } from '#shared/core/config';
import { ConfigError, type Env, optionalString } from '#shared/core/env';
import { isSolanaAddress } from '#shared/payments/addresses/solana';
import { checkTokenOnNetwork, genesisSetting } from '#shared/chains/identity';
import { httpUrl } from '#shared/chains/sources';

/** Circle's USDC on Solana (6 decimals). */
export const MAINNET_USDC_SOL_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/**
 * The genesis hashes (`getGenesisHash`) of Solana's public clusters: a node on devnet or testnet
 * answers another than mainnet-beta's. As the Solana Foundation's gill SDK lists them
 * (github.com/gillsdk/gill, packages/gill/src/core/const.ts, GENESIS_HASH), the same as the
 * Solana Explorer's cluster table (app/entities/chain-id/lib/const.ts, GENESIS_HASHES).
 */
export const SOLANA_GENESIS = {
  mainnetBeta: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  devnet: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
  testnet: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
} as const;
export const MAINNET_GENESIS_HASH = SOLANA_GENESIS.mainnetBeta;

/** The clusters a node's genesis hash tells apart, named in a wrong-chain error. */
export const SOLANA_CLUSTERS: Readonly<Record<string, string>> = {
  [SOLANA_GENESIS.mainnetBeta]: 'mainnet-beta',
  [SOLANA_GENESIS.devnet]: 'devnet',
  [SOLANA_GENESIS.testnet]: 'testnet',
};

/**
 * USDC_SOL for live merchants: `SOLANA_RPC_URL` names a Solana JSON-RPC node the Solana watcher
 * reads; `USDC_SOL_MINT` the token (mainnet USDC by default); `SOLANA_GENESIS_HASH` the cluster
 * the node must be on (mainnet-beta by default: a node on another cluster is refused, like an
 * EVM node on another chain id; mainnet-beta takes only Circle's mint, another cluster needs its
 * own, identity.ts); `PLATFORM_WALLET_SOL` the wallet live merchants without one of
 * their own are paid to. Without SOLANA_RPC_URL, live merchants' USDC_SOL fails closed.
 */
export function readSolanaConfig(env: Env) {
  const rpcUrl = optionalString(env, 'SOLANA_RPC_URL');
  if (rpcUrl !== undefined) httpUrl('SOLANA_RPC_URL', rpcUrl);
  const mint = optionalString(env, 'USDC_SOL_MINT') ?? MAINNET_USDC_SOL_MINT;
  const platformWallet = optionalString(env, 'PLATFORM_WALLET_SOL');
  for (const [name, value] of [
    ['USDC_SOL_MINT', mint],
    ['PLATFORM_WALLET_SOL', platformWallet],
  ] as const) {
    if (value !== undefined && !isSolanaAddress(value)) throw new ConfigError(`environment variable ${name} must be a Solana address (base58, 32 bytes), got "${value}"`);
  }
  // A genesis hash is 32 bytes in base58, as an address is.
  const genesisHash = genesisSetting(env, 'SOLANA_GENESIS_HASH', MAINNET_GENESIS_HASH, { valid: isSolanaAddress, what: 'a genesis hash (base58, 32 bytes)' });
  checkTokenOnNetwork({
    currency: 'USDC_SOL',
    tokenVariable: 'USDC_SOL_MINT',
    token: mint,
    mainnetToken: MAINNET_USDC_SOL_MINT,
    genesisVariable: 'SOLANA_GENESIS_HASH',
    genesisHash,
    mainnetGenesis: MAINNET_GENESIS_HASH,
    ...(SOLANA_CLUSTERS[genesisHash] ? { networkName: SOLANA_CLUSTERS[genesisHash] } : {}),
  });
  return { rpcUrl, mint, genesisHash, platformWallet, watched: rpcUrl !== undefined };
}

/** The process's Solana settings (the environment read once, by shared/core/config.ts). */
export const solanaSettings = section(readSolanaConfig);
