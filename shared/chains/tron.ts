import { section } from '#shared/core/config';
import { ConfigError, type Env, optionalString, positiveInteger } from '#shared/core/env';
import { isTronAddress } from '#shared/payments/addresses/tron';
import { checkTokenOnNetwork, genesisSetting, HEX_HASH } from '#shared/chains/identity';
import { httpUrl } from '#shared/chains/sources';

/** Tether's USDT on TRON (6 decimals). */
export const MAINNET_USDT_TRC20 = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

/**
 * The `blockID` of block 0 (`POST /wallet/getblockbynum {"num":0}`) on TRON's mainnet and its
 * public testnets. As published in ChainAgnostic's CAIP-2 profile of TRON
 * (github.com/ChainAgnostic/namespaces, tron/caip2.md, "Genesis Block Hash Format"), whose chain
 * ids are these ids' last 4 bytes as TIP-474 defines them (tronprotocol/tips, tip-474.md: mainnet
 * `eth_chainId` 0x2b6653dc).
 */
export const TRON_GENESIS = {
  mainnet: '00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc',
  shasta: '0000000000000000de1aa88295e1fcf982742f773e0419c5a9c134c994a9059e',
  nile: '0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc',
} as const;

/**
 * Blocks one `eth_getLogs` asks by default (TRON_MAX_BLOCK_RANGE): USDT's ~25 transfers a second
 * are ~75 logs a block, so 100 blocks stay under java-tron's 10,000 results a query
 * (LogBlockQuery.MAX_RESULT) and its default range (node.jsonrpc.maxBlockRange, 5000). A step at
 * the usual interval asks 3-4 new blocks; the size matters only when catching up.
 */
export const DEFAULT_MAX_BLOCK_RANGE = 100;

/** The networks a TRON API's genesis tells apart, named in a wrong-chain error. */
export const TRON_NETWORKS: Readonly<Record<string, string>> = {
  [TRON_GENESIS.mainnet]: 'TRON mainnet',
  [TRON_GENESIS.shasta]: 'Shasta testnet',
  [TRON_GENESIS.nile]: 'Nile testnet',
};

/**
 * USDT_TRC20 for live merchants: `TRON_API_URL` names a TronGrid-compatible API the TRON watcher
 * reads (https://api.trongrid.io, or a provider's), `TRON_API_KEY` its key when it wants one
 * (TronGrid's `TRON-PRO-API-KEY`), `USDT_TRC20_CONTRACT` the token (mainnet USDT by default),
 * `TRON_GENESIS_HASH` the network the API must serve (its block 0 `blockID`, mainnet's by
 * default: an API on Shasta or Nile is refused like an EVM node on another chain id). The two go
 * together: mainnet takes only Tether's contract, a test network needs its own (identity.ts).
 * `TRON_MAX_BLOCK_RANGE` the blocks one `eth_getLogs` asks at most (default 100; lower it for a
 * plan that caps the range, though the watcher also halves it while the API refuses one).
 * Without TRON_API_URL, live merchants' USDT_TRC20 checkouts fail closed.
 */
export function readTronConfig(env: Env) {
  const apiUrl = optionalString(env, 'TRON_API_URL');
  const contract = optionalString(env, 'USDT_TRC20_CONTRACT') ?? MAINNET_USDT_TRC20;
  if (!isTronAddress(contract)) throw new ConfigError(`environment variable USDT_TRC20_CONTRACT must be a TRON address (T...), got "${contract}"`);
  if (apiUrl !== undefined) httpUrl('TRON_API_URL', apiUrl);
  const genesisHash = genesisSetting(env, 'TRON_GENESIS_HASH', TRON_GENESIS.mainnet, HEX_HASH);
  checkTokenOnNetwork({
    currency: 'USDT_TRC20',
    tokenVariable: 'USDT_TRC20_CONTRACT',
    token: contract,
    mainnetToken: MAINNET_USDT_TRC20,
    genesisVariable: 'TRON_GENESIS_HASH',
    genesisHash,
    mainnetGenesis: TRON_GENESIS.mainnet,
    ...(TRON_NETWORKS[genesisHash] ? { networkName: TRON_NETWORKS[genesisHash] } : {}),
  });
  const maxBlockRange = positiveInteger(env, 'TRON_MAX_BLOCK_RANGE', DEFAULT_MAX_BLOCK_RANGE);
  return { apiUrl, apiKey: optionalString(env, 'TRON_API_KEY'), contract, genesisHash, maxBlockRange, watched: apiUrl !== undefined };
}

/** The process's TRON settings (the environment read once, by shared/core/config.ts). */
export const tronSettings = section(readTronConfig);
