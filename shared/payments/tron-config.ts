import { section } from '#shared/core/config';
import { ConfigError, type Env, optionalString } from '#shared/core/env';
import { isTronAddress } from '#shared/payments/addresses/tron';
import { httpUrl } from '#shared/payments/chain-sources';

/** Tether's USDT on TRON (6 decimals). */
export const MAINNET_USDT_TRC20 = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

/**
 * USDT_TRC20 for live merchants: `TRON_API_URL` names a TronGrid-compatible API the TRON watcher
 * reads (https://api.trongrid.io, or a provider's), `TRON_API_KEY` its key when it wants one
 * (TronGrid's `TRON-PRO-API-KEY`), `USDT_TRC20_CONTRACT` the token (mainnet USDT by default).
 * Without TRON_API_URL, live merchants' USDT_TRC20 checkouts fail closed.
 */
export function readTronConfig(env: Env) {
  const apiUrl = optionalString(env, 'TRON_API_URL');
  const contract = optionalString(env, 'USDT_TRC20_CONTRACT') ?? MAINNET_USDT_TRC20;
  if (!isTronAddress(contract)) throw new ConfigError(`environment variable USDT_TRC20_CONTRACT must be a TRON address (T...), got "${contract}"`);
  if (apiUrl !== undefined) httpUrl('TRON_API_URL', apiUrl);
  return { apiUrl, apiKey: optionalString(env, 'TRON_API_KEY'), contract, watched: apiUrl !== undefined };
}

/** The process's TRON settings (the environment read once, by shared/core/config.ts). */
export const tronSettings = section(readTronConfig);
