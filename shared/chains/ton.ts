import { section } from '#shared/core/config';
import { ConfigError, type Env, optionalString, secretSource } from '#shared/core/env';
import { canonicalTonAddress, knownTonContract } from '#shared/payments/addresses/ton';
import { httpUrl } from '#shared/chains/sources';

/** Tether's USD₮ jetton master on TON (6 decimals), as Tether lists it. */
export const MAINNET_USDT_TON_MASTER = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';

/** The TON pay currencies: toncoin and USDT (a jetton), both watched by the one TON watcher. */
export const TON_CURRENCIES = ['TON', 'USDT_TON'] as const;
export const isTonCurrency = (code: string): boolean => (TON_CURRENCIES as readonly string[]).includes(code);

/**
 * TON and USDT_TON for live merchants: `TON_API_URL` names a toncenter API v3 (the ton-indexer:
 * https://toncenter.com, or a provider's) the TON watcher reads, `TON_API_KEY` its key
 * (`X-API-Key`: 10 requests a second on toncenter's free key, 1 without; a secret: in AWS
 * `TON_API_KEY_PARAMETER` names the SSM SecureString holding it, read on first use), and
 * `PLATFORM_WALLET_TON` the wallet live merchants without one of their own are paid to. Only
 * TON mainnet is taken: the watcher checks the API's network once per process and fails closed
 * on another (docs/merchant-guide.md "TON and USDT on TON"). Without TON_API_URL, live
 * merchants' TON and USDT_TON checkouts fail closed.
 */
export function readTonConfig(env: Env) {
  const apiUrl = optionalString(env, 'TON_API_URL');
  if (apiUrl !== undefined) httpUrl('TON_API_URL', apiUrl);
  const given = optionalString(env, 'PLATFORM_WALLET_TON');
  const platformWallet = given === undefined ? undefined : canonicalTonAddress(given);
  if (given !== undefined && platformWallet === undefined) throw new ConfigError(`environment variable PLATFORM_WALLET_TON must be a mainnet TON address, got "${given}"`);
  if (platformWallet !== undefined && knownTonContract(platformWallet)) throw new ConfigError(`environment variable PLATFORM_WALLET_TON is ${knownTonContract(platformWallet)}, not a wallet`);
  const apiKey = secretSource(env, 'TON_API_KEY');
  if (apiKey !== undefined && apiUrl === undefined) throw new ConfigError(`${apiKey.variable} is set without TON_API_URL`);
  return { apiUrl, apiKey, usdtMaster: MAINNET_USDT_TON_MASTER, platformWallet, watched: apiUrl !== undefined };
}

/** The process's TON settings (the environment read once, by shared/core/config.ts). */
export const tonSettings = section(readTonConfig);
