import { section } from '#shared/core/config';
import { ConfigError, type Env, optionalString } from '#shared/core/env';
import { isSolanaAddress } from '#shared/payments/addresses/solana';
import { httpUrl } from '#shared/payments/chain-sources';

/** Circle's USDC on Solana (6 decimals). */
export const MAINNET_USDC_SOL_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** The genesis hash of Solana's mainnet-beta: a node on devnet or testnet answers another. */
export const MAINNET_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';

/**
 * USDC_SOL for live merchants: `SOLANA_RPC_URL` names a Solana JSON-RPC node the Solana watcher
 * reads; `USDC_SOL_MINT` the token (mainnet USDC by default); `SOLANA_GENESIS_HASH` the cluster
 * the node must be on (mainnet-beta by default: a node on another cluster is refused, like an
 * EVM node on another chain id); `PLATFORM_WALLET_SOL` the wallet live merchants without one of
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
  const genesisHash = optionalString(env, 'SOLANA_GENESIS_HASH') ?? MAINNET_GENESIS_HASH;
  return { rpcUrl, mint, genesisHash, platformWallet, watched: rpcUrl !== undefined };
}

/** The process's Solana settings (the environment read once, by shared/core/config.ts). */
export const solanaSettings = section(readSolanaConfig);
