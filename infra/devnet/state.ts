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

/** What an EIP-681 wallet URI of the devnet asks to send: to whom, on which network, how many units of what. */
export interface WalletPayment {
  network: DevnetNetwork;
  to: `0x${string}`;
  /** Wei for the network's ether, else the token's smallest units. */
  units: bigint;
  /** The token transferred, or none for ether. */
  token?: { currency: string; address: `0x${string}` };
}

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Reads the two EIP-681 forms the service writes (shared/payments/addresses: an ether payment
 * `ethereum:<to>@<chain>?value=<wei>`, a token transfer
 * `ethereum:<contract>@<chain>/transfer?address=<to>&uint256=<units>`) against the devnet: the
 * chain id must be one of its networks and the contract one of that network's test tokens.
 */
export function parseWalletUri(state: DevnetState, uri: string): WalletPayment | { error: string } {
  const match = /^ethereum:(0x[0-9a-fA-F]{40})@(\d+)(\/transfer)?\?(.*)$/.exec(uri.trim());
  if (!match) return { error: `not an EIP-681 payment URI of the form the service writes: ${uri}` };
  const [, target, chainId, transfer, query] = match;
  const network = state.networks.find((candidate) => candidate.chainId === Number(chainId));
  if (!network) return { error: `chain ${chainId} is none of the devnet's (${state.networks.map((n) => `${n.name} ${n.chainId}`).join(', ')})` };
  const params = new URLSearchParams(query);
  const integer = (name: string) => (/^\d+$/.test(params.get(name) ?? '') ? BigInt(params.get(name)!) : undefined);
  if (!transfer) {
    const units = integer('value');
    return units === undefined ? { error: 'an ether payment URI needs value=<wei>' } : { network, to: target as `0x${string}`, units };
  }
  const found = Object.entries(network.tokens).find(([, token]) => token.address.toLowerCase() === target!.toLowerCase());
  if (!found) return { error: `${target} is none of ${network.name}'s test tokens` };
  const to = params.get('address') ?? '';
  const units = integer('uint256');
  if (!HEX_ADDRESS.test(to) || units === undefined) return { error: 'a token transfer URI needs address=<0x recipient>&uint256=<units>' };
  return { network, to: to as `0x${string}`, units, token: { currency: found[0], address: found[1].address } };
}
