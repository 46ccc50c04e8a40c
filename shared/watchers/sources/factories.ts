import { CoreRpcSource } from '#shared/watchers/sources/core-rpc';
import { EsploraSource } from '#shared/watchers/sources/esplora';
import { type EvmNetworkConfig, evmSettings } from '#shared/payments/ethereum-config';
import { EthereumBlockSource, type EthereumSourceOptions } from '#shared/watchers/sources/ethereum/source';
import type { ChainSourceConfig, SourceKind } from '#shared/payments/chain-sources';
import type { BlockSource } from '#shared/watchers/sources/port';

/** The watcher's source of one EVM network's node at `url`: its chain id, its coin and its tokens. */
export function ethereumSourceOptions(config: EvmNetworkConfig, url: string): EthereumSourceOptions {
  return {
    url,
    chain: config.chain,
    chainId: config.chainId,
    ...(config.native ? { native: config.native } : {}),
    tokens: Object.entries(config.contracts).map(([currency, contract]) => ({ currency, contract })),
  };
}

/** Builds a chain's source from its configuration and its endpoint (the SSM parameter already read, in AWS). */
export type SourceFactory = (config: ChainSourceConfig, url: string) => BlockSource;

/**
 * The adapter of each source kind (payments/chain-sources.ts's SOURCE_KINDS): one per kind,
 * checked by the type, so every configured chain can be watched.
 */
export const SOURCE_FACTORIES: Readonly<Record<SourceKind, SourceFactory>> = {
  esplora: (config, url) => new EsploraSource({ chain: config.chain, baseUrl: url }),
  'core-rpc': (config, url) => new CoreRpcSource({ chain: config.chain, url }),
  // One source per EVM network: its chain id and token contracts from <NETWORK>_CHAIN_ID and <CODE>_CONTRACT.
  'ethereum-rpc': (config, url) => new EthereumBlockSource(ethereumSourceOptions(evmSettings()[config.chain]!, url)),
};

export function createBlockSource(config: ChainSourceConfig, url: string): BlockSource {
  return SOURCE_FACTORIES[config.kind](config, url);
}
