import { receivingConfig, section } from '#shared/core/config';
import { eosConfig } from '#shared/chains/eos';
import { lightningConfig } from '#shared/chains/lightning';
import { optionalString, secretVariables } from '#shared/core/env';
import { GATEWAY_CURRENCIES, isGateway, keyOf } from '#shared/domain/currencies';
import type { MerchantProfile } from '#shared/domain/merchant';
import { WALLET_NETWORK_OF, type WalletNetwork } from '#shared/domain/networks';
import type { AddressCurrency } from '#shared/payments/addresses/types';
import { chainSourcesConfig, SOURCE_KINDS, watchedCurrencies } from '#shared/chains/sources';
import { tronSettings } from '#shared/chains/tron';
import { solanaSettings } from '#shared/chains/solana';
import { TON_CURRENCIES, tonSettings } from '#shared/chains/ton';
import { stellarSettings } from '#shared/chains/stellar';

/**
 * Which pay currencies a merchant can be paid in, from the configuration alone (no keys
 * derived, no node asked): what the payment page offers. It follows the rules checkout applies
 * (payment-methods.ts), so a live buyer is not offered a currency that then answers
 * PAYMENT_NOT_AVAILABLE. Sandbox merchants can be "paid" in everything.
 */

let watched: ReadonlySet<string> | undefined;

/** The pay currencies whose chain has a source with an adapter (their payments can be seen). */
export const liveWatchedCurrencies = (): ReadonlySet<string> =>
  (watched ??= new Set([
    ...watchedCurrencies(chainSourcesConfig().sources, (kind) => SOURCE_KINDS.includes(kind)),
    // Sources asked per address (store/watch-list.ts): TRON with TRON_API_URL.
    ...(tronSettings().watched ? ['USDT_TRC20'] : []),
    // Solana with SOLANA_RPC_URL (references, watch-list.ts too).
    ...(solanaSettings().watched ? solanaSettings().tokens.map((token) => token.currency) : []),
    // TON with TON_API_URL and Stellar with STELLAR_HORIZON_URL (merchant accounts, watch-list.ts too).
    ...(tonSettings().watched ? TON_CURRENCIES : []),
    ...(stellarSettings().watched ? ['USDC_XLM'] : []),
  ]));

/** The platform's wallet of a network paid to one wallet (the fallback of a merchant without its own). */
const platformWallet = (network: WalletNetwork): string | undefined => ({ SOL: solanaSettings().platformWallet, TON: tonSettings().platformWallet, XLM: stellarSettings().platformWallet })[network];

/** The platform keys of the process (the fallback of a merchant without its own). */
const platformXpub = (chain: AddressCurrency): string | undefined => receivingConfig().platformXpubs[chain];

/**
 * The gateways the platform has credentials for. In AWS only the gateway functions may know the
 * credentials' parameter names, so the stack tells every function which gateways have them
 * (`LIVE_GATEWAYS`, codes only); locally (no LIVE_GATEWAYS) they are the codes whose
 * `<CODE>_CREDENTIALS`, `_FILE` or `_PARAMETER` variable is set.
 */
export const configuredGateways = section((env) => {
  const listed = optionalString(env, 'LIVE_GATEWAYS');
  const codes =
    listed !== undefined
      ? listed.split(',').map((code) => code.trim())
      : GATEWAY_CURRENCIES.filter((code) => secretVariables(`${code}_CREDENTIALS`).some((name) => optionalString(env, name) !== undefined));
  return { codes: new Set(codes.filter((code) => (GATEWAY_CURRENCIES as readonly string[]).includes(code))) };
});

/** True when checkout would give `merchant` payment details in `code` (gateways: enabled for it and configured). */
export function canBePaidIn(merchant: Pick<MerchantProfile, 'sandbox' | 'gateways' | 'xpubs' | 'wallets'>, code: string): boolean {
  if (isGateway(code)) return merchant.sandbox || (merchant.gateways.includes(code) && configuredGateways().codes.has(code));
  if (merchant.sandbox) return true;
  if (code === 'EOS') return eosConfig().watched;
  if (code === 'LBTC') return lightningConfig().restUrl !== undefined;
  const network = WALLET_NETWORK_OF[code];
  if (network) return (merchant.wallets?.[network] ?? platformWallet(network)) !== undefined && liveWatchedCurrencies().has(code);
  const chain = keyOf(code) as AddressCurrency;
  const key = merchant.xpubs?.[chain] ?? platformXpub(chain);
  return key !== undefined && liveWatchedCurrencies().has(code);
}
