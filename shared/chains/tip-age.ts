import { section } from '#shared/core/config';
import { type Env, nonNegativeInteger } from '#shared/core/env';
import { EVM_NETWORKS } from '#shared/domain/networks';
import { CHAINS } from '#shared/chains/sources';
import { evmNetworkConfig } from '#shared/chains/evm';
import { MAINNET_IDENTITIES, readUtxoChainConfig, UTXO_CHAINS } from '#shared/chains/utxo';

/**
 * How old a block chain source's newest block may be while it counts as following its chain
 * (issue 28): a node that stopped (stuck on a bad block, out of disk, cut off from its peers)
 * still answers its own old tip, and its watcher, at that tip, would look caught up. The tip's
 * time comes with the tip (sources/port.ts `BlockRef.time`); the health reporter counts a tip
 * older than this as not caught up, so the source's lag grows until it is `lagging`
 * (SOURCE_MAX_LAG_SECONDS later) and its currencies fail closed, until a new block comes.
 *
 * `<CHAIN>_MAX_TIP_AGE_SECONDS` per chain (BTC, LTC, BCH, ETH, ARBITRUM, ...); 0 turns the check
 * off. The defaults are set from mainnet's block intervals so that a healthy node never trips:
 *
 * - Proof-of-work blocks come as a Poisson process: with a mean interval τ, P(no block for T) =
 *   e^(-T/τ). BTC (τ 600 s, 52,560 blocks a year): 3 h = 18 τ, e^-18 = 1.5e-8 a block, one such
 *   gap in about 1,300 years; 25% slower blocks after a hash-rate drop still make it one in
 *   about 40 years, and the source is `lagging` only SOURCE_MAX_LAG_SECONDS (900 s) after that.
 *   LTC (τ 150 s, 210,240 a year): 45 min = 18 τ, one in about 300 years (with the 900 s:
 *   24 τ). BCH (τ 600 s): 4 h = 24 τ, since its small share of SHA-256 miners comes and goes
 *   (profit switching) and its blocks run slow for hours at a time; even at τ 900 s it is
 *   e^-16 a block.
 * - Proof-of-stake and sequencer chains make a block every slot (Ethereum 12 s, about 1% of
 *   slots missed, independently: 25 missed in a row never happens while the network runs) or
 *   every second or so (Arbitrum, Base, Polygon, BNB Smart Chain, Celo; Arbitrum whenever a
 *   transaction comes, many a second). Their default is 25 block intervals and at least 120 s,
 *   which leaves room for a provider's load-balanced nodes a few blocks apart and for clocks
 *   that differ: ETH 300 s, the others 120 s. A network that halts (a sequencer outage) trips
 *   it, rightly: nothing paid there is confirmed meanwhile.
 *
 * The defaults hold only where the chain is its mainnet (the configured genesis hash or chain
 * id is mainnet's): a testnet's blocks are irregular (BTC testnet's difficulty resets, gaps of
 * hours), and a local chain (regtest, the devnet in tests, which mines on demand) has an old
 * tip whenever it is quiet. There the check is off unless its setting is given.
 */

/** Mainnet's default for each proof-of-work chain, in seconds. */
const UTXO_DEFAULTS: Readonly<Record<(typeof UTXO_CHAINS)[number], number>> = { BTC: 3 * 3600, LTC: 45 * 60, BCH: 4 * 3600 };

/** Mainnet's default of an EVM network: 25 block intervals, at least 120 s. */
const evmDefault = (blockSeconds: number): number => Math.max(120, Math.round(25 * blockSeconds));

/** Each chain's mainnet default, in seconds. */
export const MAX_TIP_AGE_DEFAULTS: Readonly<Record<string, number>> = {
  ...UTXO_DEFAULTS,
  ...Object.fromEntries(EVM_NETWORKS.map((network) => [network.chain, evmDefault(network.blockSeconds)])),
};

/** The variable setting a chain's limit. */
export const maxTipAgeVariable = (chain: string): string => `${chain}_MAX_TIP_AGE_SECONDS`;

/** Whether the chain is configured on its mainnet (genesis hash, chain id), where the defaults hold. */
function onMainnet(env: Env, chain: string): boolean {
  if ((UTXO_CHAINS as readonly string[]).includes(chain)) {
    const utxo = chain as (typeof UTXO_CHAINS)[number];
    return readUtxoChainConfig(env)[utxo].genesisHash === MAINNET_IDENTITIES[utxo].genesisHash;
  }
  const network = EVM_NETWORKS.find((candidate) => candidate.chain === chain);
  return network !== undefined && evmNetworkConfig(env, network).chainId === network.chainId;
}

/** Each block chain's limit in seconds (0: not checked), from `<CHAIN>_MAX_TIP_AGE_SECONDS` or the default. */
export function readTipAgeConfig(env: Env): Readonly<Record<string, number>> {
  return Object.fromEntries(Object.keys(CHAINS).map((chain) => [chain, nonNegativeInteger(env, maxTipAgeVariable(chain), onMainnet(env, chain) ? (MAX_TIP_AGE_DEFAULTS[chain] ?? 0) : 0)]));
}

/** The process's limits (the environment read once, by shared/core/config.ts). */
export const tipAgeSettings = section(readTipAgeConfig);
