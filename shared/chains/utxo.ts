import { section } from '#shared/core/config';
import { ConfigError, type Env, optionalString } from '#shared/core/env';
import { type ChainIdentity, type Checkpoint, genesisSetting, HEX_HASH } from '#shared/chains/identity';

/** The UTXO chains whose nodes (Esplora or Bitcoin Core-style RPC) are checked for their chain. */
export const UTXO_CHAINS = ['BTC', 'LTC', 'BCH'] as const;
export type UtxoChainCode = (typeof UTXO_CHAINS)[number];

const BITCOIN_GENESIS = '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f';

/**
 * Mainnet. Bitcoin Cash split from Bitcoin on 2017-08-01 after block 478558 (their last
 * common block): from 478559 on each has its own blocks, so that height tells them apart.
 * Hashes as in Bitcoin Core's and Bitcoin Cash Node's chain parameters (docs/operator-guide.md "Configuration").
 */
export const MAINNET_IDENTITIES: Readonly<Record<UtxoChainCode, ChainIdentity>> = {
  BTC: { genesisHash: BITCOIN_GENESIS, checkpoint: { height: 478_559, hash: '00000000000000000019f112ec0a9982926f1258cdcc558dd7c3b7e5dc7fa148' } },
  BCH: { genesisHash: BITCOIN_GENESIS, checkpoint: { height: 478_559, hash: '000000000000000000651ef99cb9fcbe0dadde1d424bd9f15ff20136191a5eec' } },
  LTC: { genesisHash: '12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2' },
};

/**
 * The chain each UTXO source must be on: `<CHAIN>_GENESIS_HASH` (mainnet's by default) and
 * `<CHAIN>_CHECKPOINT` (`<height>:<hash>`, or `none`; by default mainnet's where the genesis is
 * mainnet's, else none), for BTC, LTC and BCH. A node whose answers differ (testnet, regtest,
 * another coin) is refused like an EVM node on another chain id: its currency fails closed.
 */
export function readUtxoChainConfig(env: Env): Record<UtxoChainCode, ChainIdentity> {
  const identities = {} as Record<UtxoChainCode, ChainIdentity>;
  for (const chain of UTXO_CHAINS) {
    const mainnet = MAINNET_IDENTITIES[chain];
    const genesisHash = genesisSetting(env, `${chain}_GENESIS_HASH`, mainnet.genesisHash, HEX_HASH);
    const checkpointName = `${chain}_CHECKPOINT`;
    const text = optionalString(env, checkpointName);
    let checkpoint: Checkpoint | undefined = genesisHash === mainnet.genesisHash ? mainnet.checkpoint : undefined;
    if (text === 'none') checkpoint = undefined;
    else if (text !== undefined) {
      const match = /^(\d{1,9}):([0-9a-fA-F]{64})$/.exec(text);
      if (!match || Number(match[1]) === 0) throw new ConfigError(`environment variable ${checkpointName} must be "<height>:<block hash>" (height above 0) or "none", got "${text}"`);
      checkpoint = { height: Number(match[1]), hash: match[2]!.toLowerCase() };
    }
    identities[chain] = { genesisHash, ...(checkpoint ? { checkpoint } : {}) };
  }
  return identities;
}

/** The process's UTXO chain identities (the environment read once). */
export const utxoChainSettings = section(readUtxoChainConfig);
