import { section } from '#shared/core/config';
import type { Env } from '#shared/core/env';
import { setting } from '#shared/core/settings';
import { currency as currencyInfo, isGateway } from '#shared/domain/currencies';
import { eosConfig } from '#shared/chains/eos';
import { lightningConfig } from '#shared/chains/lightning';
import { solanaSettings } from '#shared/chains/solana';
import { TON_CURRENCIES, tonSettings } from '#shared/chains/ton';
import { stellarSettings } from '#shared/chains/stellar';
import { CHAINS, chainSourcesConfig } from '#shared/chains/sources';
import { tronSettings } from '#shared/chains/tron';

/**
 * The payment sources this deployment watches and when one counts as healthy, from
 * configuration alone. The watchers report each source's health (shared/watchers/health-reports.ts
 * into shared/store/source-health.ts); shared/payments/source-health.ts decides with these
 * limits whether a source's currencies are offered.
 */

/**
 * When a payment source counts as healthy (docs/operator-guide.md "How payments are detected"): its watcher succeeded
 * within `maxSilenceSeconds` and has been caught up with the source's tip within
 * `maxLagSeconds`. A currency whose source is not healthy is not offered to live merchants'
 * buyers (checkout answers PAYMENT_NOT_AVAILABLE); invoices already open stay watched.
 */
export const readSourceHealthConfig = (env: Env) => ({
  maxSilenceSeconds: setting(env, 'SOURCE_MAX_SILENCE_SECONDS'),
  maxLagSeconds: setting(env, 'SOURCE_MAX_LAG_SECONDS'),
});
export const sourceHealthConfig = section(readSourceHealthConfig);

/** A configured source: which adapter reads it and the currencies seen through it. */
export interface ConfiguredSource {
  source: string;
  kind: string;
  currencies: readonly string[];
}

/** The sources this deployment watches (chains with a source, Lightning, EOS, TRON, Solana, TON, Stellar), from configuration alone. */
export function configuredSources(): ConfiguredSource[] {
  const sources: ConfiguredSource[] = chainSourcesConfig().sources.map(({ chain, kind }) => ({ source: chain, kind, currencies: CHAINS[chain]!.currencies }));
  if (lightningConfig().restUrl !== undefined) sources.push({ source: 'LBTC', kind: 'lnd', currencies: ['LBTC'] });
  if (eosConfig().watched) sources.push({ source: 'EOS', kind: 'hyperion', currencies: ['EOS'] });
  if (tronSettings().watched) sources.push({ source: 'TRON', kind: 'trongrid', currencies: ['USDT_TRC20'] });
  if (solanaSettings().watched) sources.push({ source: 'SOLANA', kind: 'solana-rpc', currencies: solanaSettings().tokens.map((token) => token.currency) });
  if (tonSettings().watched) sources.push({ source: 'TON', kind: 'toncenter', currencies: TON_CURRENCIES });
  if (stellarSettings().watched) sources.push({ source: 'STELLAR', kind: 'horizon', currencies: ['USDC_XLM'] });
  return sources;
}

/** The source a watched currency's payments are seen through (USDT_ERC20 -> ETH); undefined for gateways. */
export function sourceOf(code: string): string | undefined {
  if (isGateway(code)) return undefined;
  if (code === 'LBTC' || code === 'EOS') return code;
  return currencyInfo(code).chain ?? code;
}
