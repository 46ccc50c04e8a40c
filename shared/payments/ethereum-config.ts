import { section } from '#shared/core/config';
import { ConfigError, optionalString, positiveInteger } from '#shared/core/env';

/** The mainnet contracts of the ERC-20 pay currencies (Tether's USDT, Circle's USDC). */
export const MAINNET_TOKEN_CONTRACTS = {
  USDT_ERC20: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  USDC_ERC20: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
} as const;

export type Erc20Currency = keyof typeof MAINNET_TOKEN_CONTRACTS;
export const ERC20_CURRENCIES = Object.keys(MAINNET_TOKEN_CONTRACTS) as Erc20Currency[];

type Env = Readonly<Record<string, string | undefined>>;

/** A contract address: 0x and 20 bytes in hex, either case (the checksum is not required). */
const ADDRESS = /^0x[0-9a-f]{40}$/i;

/**
 * The Ethereum settings checkout (payment URIs) and the watcher read the same way. The node's
 * URL is the watchers' chain source setting (`ETH_RPC_URL`, payments/chain-sources.ts).
 */
export interface EthereumConfig {
  /** EIP-155 chain id payment URIs name and the node must be on. `ETH_CHAIN_ID`, default 1. */
  chainId: number;
  /** The token contracts: `USDT_ERC20_CONTRACT`, `USDC_ERC20_CONTRACT`, mainnet by default. */
  contracts: Readonly<Record<Erc20Currency, string>>;
}

/**
 * Reads and checks the Ethereum variables once: a malformed contract address is a ConfigError
 * at start, never a payment watched on the wrong contract.
 */
export function ethereumConfig(env: Env): EthereumConfig {
  const chainId = positiveInteger(env, 'ETH_CHAIN_ID', 1);
  const contracts = Object.fromEntries(
    ERC20_CURRENCIES.map((code) => {
      const name = `${code}_CONTRACT`;
      const value = optionalString(env, name) ?? MAINNET_TOKEN_CONTRACTS[code];
      if (!ADDRESS.test(value)) throw new ConfigError(`environment variable ${name} must be a 0x-prefixed 20-byte address, got "${value}"`);
      return [code, value];
    }),
  ) as Record<Erc20Currency, string>;
  return { chainId, contracts };
}

/** The process's Ethereum settings (the environment read once, by shared/core/config.ts). */
export const ethereumSettings = section(ethereumConfig);
