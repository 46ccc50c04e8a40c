import { section } from '#shared/core/config';
import { ConfigError, optionalString, positiveInteger } from '#shared/core/env';
import { EVM_NETWORKS, type EvmNetwork, evmNetwork } from '#shared/domain/networks';

/** The mainnet contracts of the ERC-20 pay currencies on Ethereum (Tether's USDT, Circle's USDC). */
export const MAINNET_TOKEN_CONTRACTS = evmNetwork('ETH')!.tokens as Readonly<Record<'USDT_ERC20' | 'USDC_ERC20', string>>;

type Env = Readonly<Record<string, string | undefined>>;

/** A contract address: 0x and 20 bytes in hex, either case (the checksum is not required). */
const ADDRESS = /^0x[0-9a-f]{40}$/i;

/**
 * One EVM network's settings, as checkout (payment URIs) and its watcher read them. The node's
 * URL is the watchers' chain source setting (`<NETWORK>_RPC_URL`, chains/sources.ts).
 */
export interface EvmNetworkConfig {
  /** ETH, ARBITRUM, BASE, POLYGON, BSC, CELO. */
  chain: string;
  /** The network's name as the page shows it (Arbitrum One). */
  name: string;
  /** EIP-155 chain id payment URIs name and the node must be on. `<NETWORK>_CHAIN_ID`, default the mainnet's. */
  chainId: number;
  /** The pay currency of the network's coin, where it is one (ETH, ETH_ARB, ETH_BASE). */
  native?: string;
  /** The token contracts: `<CODE>_CONTRACT`, the official mainnet contract by default. */
  contracts: Readonly<Record<string, string>>;
  /**
   * Blocks the watcher reads in one range (one `eth_getLogs`): `<NETWORK>_BLOCK_RANGE`, unset:
   * the source's default. Set it to the provider plan's cap (QuickNode's free plan: 5); a lower
   * cap not set is learned from the first refused range, one wasted call per container.
   */
  blockRange?: number;
}

/** Every EVM network's settings, by chain. */
export type EvmSettings = Readonly<Record<string, EvmNetworkConfig>>;

/**
 * Reads and checks one network's variables: a malformed contract address is a ConfigError at
 * start, never a payment watched on the wrong contract.
 */
export function evmNetworkConfig(env: Env, network: EvmNetwork): EvmNetworkConfig {
  const chainId = positiveInteger(env, `${network.chain}_CHAIN_ID`, network.chainId);
  const contracts = Object.fromEntries(
    Object.entries(network.tokens).map(([code, official]) => {
      const name = `${code}_CONTRACT`;
      const value = optionalString(env, name) ?? official;
      if (!ADDRESS.test(value)) throw new ConfigError(`environment variable ${name} must be a 0x-prefixed 20-byte address, got "${value}"`);
      return [code, value];
    }),
  );
  const blockRange = optionalString(env, `${network.chain}_BLOCK_RANGE`) === undefined ? undefined : positiveInteger(env, `${network.chain}_BLOCK_RANGE`, 1);
  return {
    chain: network.chain,
    name: network.name,
    chainId,
    ...(network.native ? { native: network.native } : {}),
    contracts,
    ...(blockRange === undefined ? {} : { blockRange }),
  };
}

/** Every EVM network's settings (each network has defaults: its mainnet). */
export function evmConfig(env: Env): EvmSettings {
  return Object.fromEntries(EVM_NETWORKS.map((network) => [network.chain, evmNetworkConfig(env, network)]));
}

/** The process's EVM settings (the environment read once, by shared/core/config.ts). */
export const evmSettings = section(evmConfig);
