import { ConfigError, type Env, optionalString } from '#shared/core/env';

/**
 * What tells a chain's source from one on another network: the hash of its genesis block (a
 * UTXO chain's block 0, TRON's block 0 `blockID`, Solana's `getGenesisHash`) and, where a fork
 * shares the genesis (BTC and BCH), a block after the fork. The watchers' adapters check it once
 * per process (shared/watchers/sources/chain-check.ts); a source that answers otherwise is on the
 * wrong chain and its currencies fail closed. Each chain's mainnet values live in its settings
 * (utxo.ts, tron.ts, solana.ts here).
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

/** A token pay currency's setting and the network setting it must go with (TRON's USDT, Solana's USDC). */
export interface TokenOnNetwork {
  /** The pay currency (USDT_TRC20). */
  currency: string;
  /** The token's setting (`USDT_TRC20_CONTRACT`), its value and the issuer's mainnet token. */
  tokenVariable: string;
  token: string;
  mainnetToken: string;
  /** The network's setting (`TRON_GENESIS_HASH`), its value, mainnet's, and the name of the network it is where known. */
  genesisVariable: string;
  genesisHash: string;
  mainnetGenesis: string;
  networkName?: string;
}

/**
 * Refuses a token that cannot be the currency on the configured network (issue 28): the
 * issuer's mainnet contract or mint on a test network does not exist there (a deployment left
 * with the default would offer a currency nobody can pay), and on mainnet any other token is not
 * the currency (it would book someone's look-alike token as USDT). The chain check proves the
 * network; this makes the token follow it, so a test deployment names its own test token.
 */
export function checkTokenOnNetwork(setting: TokenOnNetwork): void {
  const onMainnet = setting.genesisHash === setting.mainnetGenesis;
  if (onMainnet && setting.token !== setting.mainnetToken) {
    throw new ConfigError(
      `${setting.tokenVariable} ${setting.token} is not ${setting.currency}'s mainnet token ${setting.mainnetToken}, and ${setting.genesisVariable} is mainnet's: another token would be booked as ${setting.currency}. Leave ${setting.tokenVariable} unset on mainnet`,
    );
  }
  if (!onMainnet && setting.token === setting.mainnetToken) {
    const network = setting.networkName ?? 'another network than mainnet';
    throw new ConfigError(
      `${setting.genesisVariable} is ${network}'s, where ${setting.currency}'s mainnet token ${setting.mainnetToken} (the default of ${setting.tokenVariable}) does not exist: set ${setting.tokenVariable} to that network's token`,
    );
  }
}
