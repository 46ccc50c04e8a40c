import { CoreRpcSource } from '#shared/watchers/sources/core-rpc';
import { EsploraSource } from '#shared/watchers/sources/esplora';
import { ERC20_CURRENCIES, type EthereumConfig, ethereumSettings } from '#shared/payments/ethereum-config';
import { EthereumBlockSource, type EthereumSourceOptions } from '#shared/watchers/sources/ethereum/source';
import type { ChainSourceConfig, SourceKind } from '#shared/payments/chain-sources';
import type { BlockSource } from '#shared/watchers/sources/port';

/** The watcher's source of the node at `url`: the configured chain and both tokens. */
export function ethereumSourceOptions(config: EthereumConfig, url: string): EthereumSourceOptions {
  return {
    url,
    chainId: config.chainId,
    tokens: ERC20_CURRENCIES.map((currency) => ({ currency, contract: config.contracts[currency] })),
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
  // The chain id and token contracts come from ETH_CHAIN_ID and USDT/USDC_ERC20_CONTRACT.
  'ethereum-rpc': (_config, url) => new EthereumBlockSource(ethereumSourceOptions(ethereumSettings(), url)),
};

export function createBlockSource(config: ChainSourceConfig, url: string): BlockSource {
  return SOURCE_FACTORIES[config.kind](config, url);
}
