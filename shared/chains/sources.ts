import { section } from '#shared/core/config';
/**
 * Which chain sources are configured, from the environment (the same names locally and in
 * CDK context; docs/operator-guide.md "Configuration"):
 *
 * - `BTC_ESPLORA_URL`, `LTC_ESPLORA_URL`: an Esplora REST API base.
 * - `BTC_RPC_URL`, `LTC_RPC_URL`, `BCH_RPC_URL`: a Bitcoin Core-style JSON-RPC endpoint
 *   (bitcoind, litecoind, Bitcoin Cash Node), credentials in the URL
 *   (`http://user:password@host:8332/`). In AWS the URL is a secret: the function gets
 *   `<CHAIN>_RPC_URL_PARAMETER`, the name of an SSM SecureString holding it.
 * - `ETH_RPC_URL` (or `ETH_RPC_URL_PARAMETER`): an Ethereum JSON-RPC endpoint; the other EVM
 *   networks likewise: `ARBITRUM_RPC_URL`, `BASE_RPC_URL`, `POLYGON_RPC_URL`, `BSC_RPC_URL`,
 *   `CELO_RPC_URL` (one watcher each, shared/domain/networks.ts).
 *
 * A chain with both prefers its own node (RPC) over Esplora. A currency whose chain has no
 * source cannot be seen paid: live merchants' checkouts in it fail closed.
 */
import { ConfigError, optionalString } from '#shared/core/env';
import { EVM_NETWORKS, evmCurrencies } from '#shared/domain/networks';

/**
 * The kinds of chain source. Each has an adapter: the watchers' SOURCE_FACTORIES
 * (watchers/sources/factories.ts) is typed to hold one per kind, so a kind added here without
 * its adapter does not compile, and availability may count every kind as watched.
 */
export const SOURCE_KINDS = ['esplora', 'core-rpc', 'ethereum-rpc'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export interface ChainSourceConfig {
  chain: string;
  kind: SourceKind;
  /** The endpoint itself (locally; Esplora everywhere: it is public). */
  url?: string;
  /** The SSM parameter holding the endpoint (AWS, for URLs with credentials). */
  urlParameter?: string;
}

/** Each chain the watchers know, the source kinds it can be read with (in order of preference), and its currencies. */
export const CHAINS: Readonly<Record<string, { kinds: readonly SourceKind[]; currencies: readonly string[] }>> = {
  BTC: { kinds: ['core-rpc', 'esplora'], currencies: ['BTC'] },
  LTC: { kinds: ['core-rpc', 'esplora'], currencies: ['LTC'] },
  BCH: { kinds: ['core-rpc'], currencies: ['BCH'] },
  // Ethereum and every other EVM network: ETH, ARBITRUM, BASE, POLYGON, BSC, CELO.
  ...Object.fromEntries(EVM_NETWORKS.map((network) => [network.chain, { kinds: ['ethereum-rpc'] as const, currencies: evmCurrencies(network) }])),
};

const VARIABLE: Record<SourceKind, string> = { esplora: 'ESPLORA_URL', 'core-rpc': 'RPC_URL', 'ethereum-rpc': 'RPC_URL' };

/** `value` of the variable `name` if it is an absolute http(s) URL, else a ConfigError naming it. */
export function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`environment variable ${name} must be an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`environment variable ${name} must be an http(s) URL`);
  return value;
}

/** The configured source of each chain that has one. */
export function chainSources(env: NodeJS.ProcessEnv): ChainSourceConfig[] {
  const sources: ChainSourceConfig[] = [];
  for (const [chain, { kinds }] of Object.entries(CHAINS)) {
    for (const kind of kinds) {
      const name = `${chain}_${VARIABLE[kind]}`;
      const url = optionalString(env, name);
      const urlParameter = kind === 'esplora' ? undefined : optionalString(env, `${name}_PARAMETER`);
      if (url === undefined && urlParameter === undefined) continue;
      if (urlParameter !== undefined && !/^\/[A-Za-z0-9_.\-/]{1,1010}$/.test(urlParameter)) {
        throw new ConfigError(`environment variable ${name}_PARAMETER must be an SSM parameter name starting with "/"`);
      }
      sources.push({ chain, kind, ...(url !== undefined ? { url: httpUrl(name, url) } : {}), ...(urlParameter ? { urlParameter } : {}) });
      break;
    }
  }
  return sources;
}

/**
 * The pay currencies whose chain has a source with an adapter (live merchants may be checked
 * out in these). `adapted` names the source kinds that have an adapter (watchers/sources/factories.ts).
 */
export function watchedCurrencies(sources: readonly ChainSourceConfig[], adapted: (kind: SourceKind) => boolean): ReadonlySet<string> {
  return new Set(sources.filter((source) => adapted(source.kind)).flatMap((source) => CHAINS[source.chain]!.currencies));
}

/** The process's chain sources (the environment read once, by shared/core/config.ts). */
export const chainSourcesConfig = section((env) => ({ sources: chainSources(env) }));
