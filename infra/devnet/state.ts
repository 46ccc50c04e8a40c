import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One EVM network of the devnet: its node, chain id, coin and test tokens. */
export interface DevnetNetwork {
  /** The service's chain (ETH, ARBITRUM): its settings' prefix. */
  chain: string;
  /** As the payment page names it. */
  name: string;
  rpcUrl: string;
  chainId: number;
  /** The pay currency of the network's ether (ETH, ETH_ARB). */
  native: string;
  /** Each token pay currency: its test contract and decimals. */
  tokens: Record<string, { address: `0x${string}`; decimals: number }>;
}

/** What `npm run devnet` started, for `npm run devnet:pay` (kept in the devnet's DATA_DIR). */
export interface DevnetState {
  apiUrl: string;
  buyer: `0x${string}`;
  /** Ethereum first, then the second network (Arbitrum). */
  networks: DevnetNetwork[];
}

/** The devnet's own data folder: its chain lives in memory, so its table starts afresh with it. */
export const DEVNET_DATA_DIR = '.data/devnet';

const file = (dataDir: string) => join(dataDir, 'devnet.json');

export function writeDevnetState(dataDir: string, state: DevnetState): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file(dataDir), `${JSON.stringify(state, null, 2)}\n`);
}

export function readDevnetState(dataDir: string): DevnetState {
  try {
    return JSON.parse(readFileSync(file(dataDir), 'utf8')) as DevnetState;
  } catch {
    throw new Error(`no devnet found in ${dataDir}: start one with \`npm run devnet\``);
  }
}

/** The devnet network an invoice in `currency` is paid on, and whether it is the network's ether. */
export function devnetNetworkOf(state: DevnetState, currency: string): { network: DevnetNetwork; native: boolean } | undefined {
  for (const network of state.networks) {
    if (network.native === currency) return { network, native: true };
    if (network.tokens[currency]) return { network, native: false };
  }
  return undefined;
}
