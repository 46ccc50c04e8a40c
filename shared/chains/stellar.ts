import { section } from '#shared/core/config';
import { ConfigError, type Env, optionalString } from '#shared/core/env';
import { isStellarAccount } from '#shared/payments/addresses/stellar';
import { checkTokenOnNetwork } from '#shared/chains/identity';
import { httpUrl } from '#shared/chains/sources';

/** Circle's USDC on Stellar: asset code USDC of this issuer, 7 decimals on the ledger. */
export const MAINNET_USDC_XLM_ISSUER = 'GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';
/** The network passphrases of Stellar's public networks (what Horizon's root answers as `network_passphrase`). */
export const STELLAR_NETWORKS = {
  mainnet: 'Public Global Stellar Network ; September 2015',
  testnet: 'Test SDF Network ; September 2015',
} as const;

const NETWORK_NAMES: Readonly<Record<string, string>> = { [STELLAR_NETWORKS.mainnet]: 'mainnet', [STELLAR_NETWORKS.testnet]: 'testnet' };

/**
 * USDC_XLM for live merchants: `STELLAR_HORIZON_URL` names a Horizon API the Stellar watcher
 * reads (SDF's https://horizon.stellar.org, or a provider's); `STELLAR_NETWORK_PASSPHRASE` the
 * network it must serve (mainnet's by default: Horizon's root must answer it, else the source is
 * on the wrong network and USDC_XLM fails closed); `USDC_XLM_ISSUER` the USDC issuer (Circle's by
 * default; mainnet takes only Circle's, another network needs its own, as TRON's and Solana's
 * tokens: identity.ts); `PLATFORM_WALLET_XLM` the account live merchants without their own are
 * paid to. Without STELLAR_HORIZON_URL, live merchants' USDC_XLM checkouts fail closed.
 */
export function readStellarConfig(env: Env) {
  const horizonUrl = optionalString(env, 'STELLAR_HORIZON_URL');
  if (horizonUrl !== undefined) httpUrl('STELLAR_HORIZON_URL', horizonUrl);
  const passphrase = optionalString(env, 'STELLAR_NETWORK_PASSPHRASE') ?? STELLAR_NETWORKS.mainnet;
  const issuer = optionalString(env, 'USDC_XLM_ISSUER') ?? MAINNET_USDC_XLM_ISSUER;
  const platformWallet = optionalString(env, 'PLATFORM_WALLET_XLM');
  for (const [name, value] of [
    ['USDC_XLM_ISSUER', issuer],
    ['PLATFORM_WALLET_XLM', platformWallet],
  ] as const) {
    if (value !== undefined && !isStellarAccount(value)) throw new ConfigError(`environment variable ${name} must be a Stellar account (G..., 56 characters), got "${value}"`);
  }
  checkTokenOnNetwork({
    currency: 'USDC_XLM',
    tokenVariable: 'USDC_XLM_ISSUER',
    token: issuer,
    mainnetToken: MAINNET_USDC_XLM_ISSUER,
    genesisVariable: 'STELLAR_NETWORK_PASSPHRASE',
    genesisHash: passphrase,
    mainnetGenesis: STELLAR_NETWORKS.mainnet,
    ...(NETWORK_NAMES[passphrase] ? { networkName: NETWORK_NAMES[passphrase] } : {}),
  });
  return { horizonUrl, passphrase, issuer, platformWallet, watched: horizonUrl !== undefined };
}

/** The process's Stellar settings (the environment read once, by shared/core/config.ts). */
export const stellarSettings = section(readStellarConfig);
