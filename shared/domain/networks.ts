import { chainOf } from '#shared/domain/currencies';

/**
 * The networks coins are paid on, as a buyer must be told them (the same address exists on
 * every EVM network, so sending on the wrong one is the easy mistake), and the facts of each
 * EVM network: its mainnet chain id and the official contracts of its tokens (the table of
 * docs/merchant-guide.md, "Networks"; each checked against the issuer's published list). The
 * settings that override them (`<NETWORK>_CHAIN_ID`, `<CODE>_CONTRACT`) are read in
 * shared/chains/evm.ts.
 */

export interface EvmNetwork {
  /** The watcher's chain and its settings' prefix: ETH_RPC_URL, ARBITRUM_RPC_URL, ... */
  readonly chain: string;
  /** The network's name as buyers know it. */
  readonly name: string;
  /** EIP-155 chain id of the network's mainnet. */
  readonly chainId: number;
  /** The pay currency of the network's own coin, where it is one (ether on Ethereum, Arbitrum and Base). */
  readonly native?: string;
  /** Each token pay currency and its official mainnet contract. */
  readonly tokens: Readonly<Record<string, string>>;
  /** Seconds between blocks (about): how many blocks a watcher reads a minute. */
  readonly blockSeconds: number;
}

export const EVM_NETWORKS: readonly EvmNetwork[] = [
  {
    chain: 'ETH',
    name: 'Ethereum',
    chainId: 1,
    native: 'ETH',
    tokens: { USDT_ERC20: '0xdAC17F958D2ee523a2206206994597C13D831ec7', USDC_ERC20: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
    blockSeconds: 12,
  },
  {
    chain: 'ARBITRUM',
    name: 'Arbitrum One',
    chainId: 42161,
    native: 'ETH_ARB',
    tokens: { USDT_ARB: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9', USDC_ARB: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831' },
    blockSeconds: 0.25,
  },
  {
    chain: 'BASE',
    name: 'Base',
    chainId: 8453,
    native: 'ETH_BASE',
    tokens: { USDC_BASE: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' },
    blockSeconds: 2,
  },
  {
    chain: 'POLYGON',
    name: 'Polygon PoS',
    chainId: 137,
    tokens: { USDC_POL: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
    blockSeconds: 2,
  },
  {
    chain: 'BSC',
    name: 'BNB Smart Chain',
    chainId: 56,
    tokens: { USDT_BNB: '0x55d398326f99059fF775485246999027B3197955' },
    blockSeconds: 0.75,
  },
  {
    chain: 'CELO',
    name: 'Celo',
    chainId: 42220,
    // USDT's own contract, not its fee adapter (0x0e2a...), which is for paying gas only.
    tokens: { USDT_CELO: '0x48065fbBE25f71C9282ddf5e1cD6D6A887483D5e', CUSD: '0x765DE816845861e75A25fCA122bb6898B8B1282a' },
    blockSeconds: 1,
  },
];

const byChain = new Map(EVM_NETWORKS.map((network) => [network.chain, network]));

/** The EVM network of a chain name (ETH, ARBITRUM, ...), or undefined for another kind of chain. */
export function evmNetwork(chain: string): EvmNetwork | undefined {
  return byChain.get(chain);
}

/** Every pay currency of an EVM network: its coin first, then its tokens. */
export function evmCurrencies(network: EvmNetwork): string[] {
  return [...(network.native ? [network.native] : []), ...Object.keys(network.tokens)];
}

/** The non-EVM networks with a name of their own. */
const OTHER_NETWORKS: Readonly<Record<string, string>> = {
  BTC: 'Bitcoin',
  LTC: 'Litecoin',
  BCH: 'Bitcoin Cash',
  LBTC: 'Lightning',
  EOS: 'EOS',
  TRON: 'TRON',
  SOLANA: 'Solana',
  TON: 'TON',
  STELLAR: 'Stellar',
};

/** The network a pay currency is sent on, by name (`Arbitrum One` for USDT_ARB), or undefined for gateways and fiat. */
export function networkName(code: string): string | undefined {
  let chain: string;
  try {
    chain = chainOf(code);
  } catch {
    return undefined;
  }
  return evmNetwork(chain)?.name ?? OTHER_NETWORKS[chain];
}

/** The networks paid to one wallet of the merchant's (each invoice told apart by a reference, comment or id). */
export const WALLET_NETWORKS = ['SOL', 'TON', 'XLM'] as const;
export type WalletNetwork = (typeof WALLET_NETWORKS)[number];

/** The wallet network each such pay currency is paid on: Solana's USDC and PYUSD, TON's coin and USDT, Stellar's USDC. */
export const WALLET_NETWORK_OF: Readonly<Record<string, WalletNetwork>> = { USDC_SOL: 'SOL', PYUSD: 'SOL', TON: 'TON', USDT_TON: 'TON', USDC_XLM: 'XLM' };
