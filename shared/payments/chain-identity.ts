import { ConfigError, type Env, optionalString } from '#shared/core/env';

/**
 * What tells a chain's source from one on another network: the hash of its genesis block (a
 * UTXO chain's block 0, TRON's block 0 `blockID`, Solana's `getGenesisHash`) and, where a fork
 * shares the genesis (BTC and BCH), a block after the fork. The watchers' adapters check it once
 * per process (shared/watchers/sources/chain-check.ts); a source that answers otherwise is on the
 * wrong chain and its currencies fail closed. Each chain's mainnet values live in its settings
 * (utxo-config.ts, tron-config.ts, solana-config.ts).
 */

/** A block every node of a chain has at this height: it tells the chain from another that shares its genesis. */
export interface Checkpoint {
  height: number;
  hash: string;
}

/** What a node of the chain must answer: its genesis block's hash and, where a fork shares it, a block after the fork. */
export interface ChainIdentity {
  genesisHash: string;
  checkpoint?: Checkpoint;
}

/** How a chain writes its hashes: hex (compared in lowercase) or base58 (as it is). */
export interface HashFormat {
  valid: (value: string) => boolean;
  /** What the setting must be, for its error. */
  what: string;
  lowercase?: boolean;
}

/** 32 bytes in hex: the UTXO chains' block hashes and TRON's block ids. */
export const HEX_HASH: HashFormat = { valid: (value) => /^[0-9a-f]{64}$/.test(value), what: 'a block hash (64 hex digits)', lowercase: true };

/** The genesis hash setting `name` (`<CHAIN>_GENESIS_HASH`), checked; `mainnet` when it is not set. */
export function genesisSetting(env: Env, name: string, mainnet: string, format: HashFormat): string {
  const raw = optionalString(env, name);
  if (raw === undefined) return mainnet;
  const value = format.lowercase ? raw.toLowerCase() : raw;
  if (!format.valid(value)) throw new ConfigError(`environment variable ${name} must be ${format.what}, got "${raw}"`);
  return value;
}
