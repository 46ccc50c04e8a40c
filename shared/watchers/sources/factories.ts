import { CoreRpcSource } from '#shared/watchers/sources/core-rpc';
import { EsploraSource } from '#shared/watchers/sources/esplora';
import { evmSettings } from '#shared/chains/evm';
import { type UtxoChainCode, utxoChainSettings } from '#shared/chains/utxo';
import { EthereumBlockSource, ethereumSourceOptions } from '#shared/watchers/sources/ethereum/source';
import type { ChainSourceConfig, SourceKind } from '#shared/chains/sources';
import type { BlockSource } from '#shared/watchers/sources/port';

/** Builds a chain's source from its configuration and its endpoint (the SSM parameter already read, in AWS). */
export type SourceFactory = (config: ChainSourceConfig, url: string) => BlockSource;

/**
 * The adapter of each source kind. A kind without one is not watched: its currencies stay
 * fail-closed for live merchants even when configured. The type asks for one per kind of
 * chains/sources.ts's SOURCE_KINDS, which availability counts as watched.
 */
export const SOURCE_FACTORIES: Readonly<Record<SourceKind, SourceFactory>> = {
  // The chain each must be on: <CHAIN>_GENESIS_HASH and <CHAIN>_CHECKPOINT (mainnet's by default).
  esplora: (config, url) => new EsploraSource({ chain: config.chain, baseUrl: url, identity: utxoChainSettings()[config.chain as UtxoChainCode] }),
  'core-rpc': (config, url) => new CoreRpcSource({ chain: config.chain, url, identity: utxoChainSettings()[config.chain as UtxoChainCode] }),
  // One source per EVM network: its chain id and token contracts from <NETWORK>_CHAIN_ID and <CODE>_CONTRACT.
  'ethereum-rpc': (config, url) => new EthereumBlockSource(ethereumSourceOptions(evmSettings()[config.chain]!, url)),
};

export function createBlockSource(config: ChainSourceConfig, url: string): BlockSource {
  const factory = SOURCE_FACTORIES[config.kind];
  if (!factory) throw new Error(`${config.chain}: no adapter for ${config.kind} sources`);
  return factory(config, url);
}
