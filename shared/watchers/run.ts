/**
 * Running the watchers: which ones this process runs (the configured chain sources, LBTC, EOS,
 * TRON and Solana), each one's watcher built from its configuration with its step hooks
 * ({@link chainStepper}), and the local runtime's polling run ({@link watchChainRun}). In AWS an
 * idle chain gets {@link idleRun}, and a chain in demand is stepped one invocation at a time
 * (shared/watchers/stepped.ts).
 */
import { watchConfig } from '#shared/core/config';
import { eosConfig, type readEosConfig } from '#shared/chains/eos';
import { lightningConfig, type readLightningConfig } from '#shared/chains/lightning';
import { logger } from '#shared/core/logger';
import { publishValue } from '#shared/core/metrics';
import { formatDecimal } from '#shared/domain/money';
import { chainSourcesConfig } from '#shared/chains/sources';
import { lndConfig } from '#shared/payments/lightning/lnd-config';
import type { ChainSourceConfig } from '#shared/chains/sources';
import { HyperionTransfers } from '#shared/watchers/sources/hyperion';
import { LndSettlements } from '#shared/watchers/sources/lnd-settlements';
import { type readTronConfig, tronSettings } from '#shared/chains/tron';
import { TronTransfers } from '#shared/watchers/sources/tron';
import { type readSolanaConfig, solanaSettings } from '#shared/chains/solana';
import { SolanaTransfers } from '#shared/watchers/sources/solana';
import { type readTonConfig, tonSettings } from '#shared/chains/ton';
import { readSecret } from '#shared/aws/parameters';
import { TonTransfers } from '#shared/watchers/sources/toncenter';
import { type readStellarConfig, stellarSettings } from '#shared/chains/stellar';
import { StellarPayments } from '#shared/watchers/sources/horizon';
import { currency } from '#shared/domain/currencies';
import { PER_ADDRESS_ITEMS, type WatchedAddress, WatchList } from '#shared/store/watch-list';
import { createBlockSource } from '#shared/watchers/sources/factories';
import type { BlockSource } from '#shared/watchers/sources/port';
import { BlockWatcher, type StepReport } from '#shared/watchers/block-watcher';
import { type IndexedStepReport, IndexedWatcher, walletWatcher } from '#shared/watchers/indexed-watcher';
import { type PollOptions, type PollSummary, pollChain, type Progress, type Stepper } from '#shared/watchers/watch-loop';
import { HealthReporter } from '#shared/watchers/health-reports';
import { tipAgeSettings } from '#shared/chains/tip-age';
import { watchingNeeded } from '#shared/store/watch-demand';

/** Reads a secret (the SSM parameter holding a node's URL with its credentials, in AWS). */
export type SecretReader = (name: string) => Promise<string>;

/** The kind of source each indexed chain reads. */
const INDEXED_SOURCE = { LBTC: 'lnd', EOS: 'hyperion', TRON: 'trongrid', SOLANA: 'solana-rpc', TON: 'toncenter', STELLAR: 'horizon' } as const;

/** A watcher this process can run: its chain and the kind of source it reads. */
export interface RunnableWatcher {
  chain: string;
  source: string;
}

/**
 * The watchers this process can run: every chain with a configured source (one whose endpoint
 * is an SSM parameter only when a secret reader is given: locally a node's URL is given
 * directly), then LBTC and EOS when configured.
 */
export function runnableWatchers(readSecret?: SecretReader): RunnableWatcher[] {
  const blocks = chainSourcesConfig().sources.filter((config) => readSecret !== undefined || config.url !== undefined);
  return [
    ...blocks.map((config) => ({ chain: config.chain, source: config.kind })),
    ...indexedChains().map((chain) => ({ chain, source: INDEXED_SOURCE[chain] })),
  ];
}

/** The watcher of one configured chain; the endpoint read from its SSM parameter when it has one. */
export async function watcherFor(config: ChainSourceConfig, readSecret?: SecretReader): Promise<BlockWatcher> {
  return new BlockWatcher(await blockSourceFor(config, readSecret));
}

/** The source of one configured chain; the endpoint read from its SSM parameter when it has one. */
export async function blockSourceFor(config: ChainSourceConfig, readSecret?: SecretReader): Promise<BlockSource> {
  let url = config.url;
  if (url === undefined && config.urlParameter !== undefined) {
    if (!readSecret) throw new Error(`${config.chain}: ${config.urlParameter} is an SSM parameter and no reader was given`);
    url = (await readSecret(config.urlParameter)).trim();
  }
  if (!url) throw new Error(`${config.chain}: no endpoint configured`);
  return createBlockSource(config, url);
}

/** Sources read by their own cursor, not by the block watcher: Lightning settlements, EOS transfers, TRON's Transfer events by solid block. */
export type IndexedChain = 'LBTC' | 'EOS' | 'TRON' | 'SOLANA' | 'TON' | 'STELLAR';

/** The configured indexed sources: LBTC with `LND_REST_URL`, EOS with `EOS_ACCOUNT` and `EOS_HISTORY_URL`, TRON with `TRON_API_URL`. */
export function indexedChains(
  lightning: ReturnType<typeof readLightningConfig> = lightningConfig(),
  eos: ReturnType<typeof readEosConfig> = eosConfig(),
  tron: ReturnType<typeof readTronConfig> = tronSettings(),
  solana: ReturnType<typeof readSolanaConfig> = solanaSettings(),
  ton: ReturnType<typeof readTonConfig> = tonSettings(),
  stellar: ReturnType<typeof readStellarConfig> = stellarSettings(),
): IndexedChain[] {
  const chains: IndexedChain[] = [];
  if (lightning.restUrl !== undefined) chains.push('LBTC');
  if (eos.watched) chains.push('EOS');
  if (tron.watched) chains.push('TRON');
  if (solana.watched) chains.push('SOLANA');
  if (ton.watched) chains.push('TON');
  if (stellar.watched) chains.push('STELLAR');
  return chains;
}

/** Horizon's paging token moves with every ledger of the network: its cursor is written once a minute while nothing is booked. */
export const STELLAR_CURSOR_EVERY_MS = 60_000;

/**
 * The watcher of an indexed source, from the process's configuration: LND's settlements (its
 * macaroon and certificate read from SSM, a file or the environment on first use) or the EOS
 * account's transfers from Hyperion, TRON's, Solana's, TON's and Stellar's. Every one but
 * Lightning keeps unmatched payments in the table (a Lightning node may also serve other
 * applications, whose settled invoices are not ours); TON's and Stellar's also under the
 * merchant whose own wallet was paid.
 */
export function indexedWatcherFor(chain: IndexedChain): IndexedWatcher {
  if (chain === 'LBTC') {
    const { client } = lndConfig();
    if (!client) throw new Error('LBTC: LND_REST_URL is not configured');
    return new IndexedWatcher(new LndSettlements(client), { keepUnmatched: false });
  }
  // Solidified TRON transfers, finalized Solana ones and irreversible EOS ones are final: booked confirmed at once.
  if (chain === 'TRON') return new IndexedWatcher(tronTransfers(watchListOf('TRON')), { keepUnmatched: true });
  if (chain === 'SOLANA') return new IndexedWatcher(solanaTransfers(watchListOf('SOLANA')), { keepUnmatched: true });
  // TON and Stellar: what the indexer or Horizon serves is final. A transfer to a merchant's
  // account whose comment or memo matches no invoice is kept as unmatched (the merchant's portal shows it).
  if (chain === 'TON' || chain === 'STELLAR') {
    const list = new WatchList(PER_ADDRESS_ITEMS, chain);
    const watched = (now: Date) => list.current(now);
    const source = chain === 'TON' ? tonTransfers(watched) : stellarPayments(watched);
    return walletWatcher(source, list, chain === 'STELLAR' ? { cursorEveryMs: STELLAR_CURSOR_EVERY_MS } : {});
  }
  return new IndexedWatcher(hyperionTransfers(), { keepUnmatched: true });
}

/** TRON's source, configured (TRON_API_URL), watching `watched`. */
export function tronTransfers(watched: (now: Date) => Promise<WatchedAddress[]>): TronTransfers {
  const { apiUrl, apiKey, contract, genesisHash, maxBlockRange, watched: configured } = tronSettings();
  if (!configured) throw new Error('TRON: TRON_API_URL is not configured');
  return new TronTransfers({
    url: apiUrl!,
    ...(apiKey ? { apiKey } : {}),
    contract,
    genesisHash,
    maxBlockRange,
    currency: 'USDT_TRC20',
    decimals: currency('USDT_TRC20').precision,
    watched,
  });
}

/** Solana's source, configured (SOLANA_RPC_URL), watching `watched`. */
export function solanaTransfers(watched: (now: Date) => Promise<WatchedAddress[]>): SolanaTransfers {
  const { rpcUrl, tokens, genesisHash, watched: configured } = solanaSettings();
  if (!configured) throw new Error('SOLANA: SOLANA_RPC_URL is not configured');
  // USDC_SOL and PYUSD: one source, one watch list, each token's accounts derived with its program.
  return new SolanaTransfers({ url: rpcUrl!, tokens: tokens.map((token) => ({ ...token, decimals: currency(token.currency).precision })), genesisHash, watched });
}

/** TON's source, configured (TON_API_URL), watching `watched` (merchants' wallets). */
export function tonTransfers(watched: (now: Date) => Promise<WatchedAddress[]>): TonTransfers {
  const { apiUrl, apiKey, usdtMaster, watched: configured } = tonSettings();
  if (!configured) throw new Error('TON: TON_API_URL is not configured');
  // The key is a secret (an SSM parameter in AWS): read on the first request, then kept.
  return new TonTransfers({ url: apiUrl!, ...(apiKey ? { apiKey: async () => (await readSecret(apiKey)).toString('utf8').trim() } : {}), usdtMaster, watched });
}

/** Stellar's source, configured (STELLAR_HORIZON_URL), watching `watched` (merchants' accounts). */
export function stellarPayments(watched: (now: Date) => Promise<WatchedAddress[]>): StellarPayments {
  const { horizonUrl, issuer, passphrase, watched: configured } = stellarSettings();
  if (!configured) throw new Error('STELLAR: STELLAR_HORIZON_URL is not configured');
  return new StellarPayments({ url: horizonUrl!, issuer, networkPassphrase: passphrase, currency: 'USDC_XLM', decimals: 7, watched });
}

/** The EOS account's transfers from Hyperion, configured (EOS_ACCOUNT and EOS_HISTORY_URL). */
export function hyperionTransfers(): HyperionTransfers {
  const { account, historyUrl, watched } = eosConfig();
  if (!watched) throw new Error('EOS: EOS_ACCOUNT and EOS_HISTORY_URL are not both configured');
  return new HyperionTransfers({ url: historyUrl!, account: account! });
}

/**
 * A per-address source's watch list, kept by its watcher (one per container, like a block
 * chain's in its BlockWatcher): read whole at the first step, then only what was added.
 */
function watchListOf(chain: 'TRON' | 'SOLANA' | 'TON' | 'STELLAR'): (now: Date) => Promise<WatchedAddress[]> {
  const list = new WatchList(PER_ADDRESS_ITEMS, chain);
  return (now) => list.current(now);
}

/** Polls a watcher every WATCH_INTERVAL_SECONDS until `signal` (the shared loop, configured). */
function watchUntil<R extends Progress>(
  watcher: Stepper<R>,
  signal: AbortSignal,
  hooks: Pick<PollOptions<R>, 'onStep' | 'onError'> = {},
): Promise<PollSummary<R>> {
  return pollChain(watcher, { intervalMs: watchConfig().watchIntervalSeconds * 1000, signal, ...hooks });
}

/** One watcher per chain and container (a warm Lambda, the local runtime): it keeps the mempool transactions it examined across runs. */
const blockWatchers = new Map<string, Promise<BlockWatcher>>();
const indexedWatchers = new Map<IndexedChain, IndexedWatcher>();
const reporters = new Map<string, HealthReporter>();

/** The health reporter of `chain`'s source (one per process, so its writes are spaced across runs). */
function reporterOf(chain: string, kind: string): HealthReporter {
  let reporter = reporters.get(chain);
  // A block chain's tip is judged by its time too (chains/tip-age.ts); indexed sources say it themselves.
  if (!reporter) reporters.set(chain, (reporter = new HealthReporter(chain, kind, undefined, chain in INDEXED_SOURCE ? 0 : (tipAgeSettings()[chain] ?? 0))));
  return reporter;
}

/** The first failure of a streak, then every tenth: an unreachable node is one line a while. */
const onError = (chain: string) => (error: unknown, inARow: number) => {
  if (inARow === 1 || inARow % 10 === 0) logger.warn('chain watcher step failed', { chain, inARow, error: error as Error });
};

/** A chain's watcher with what each of its steps reports (health, logs), for a polling loop or a stepped run. */
export interface ChainStepper {
  watcher: Stepper<StepReport | IndexedStepReport>;
  onStep: (report: StepReport | IndexedStepReport) => Promise<void>;
  /** `inARow`: the steps that failed in a row, this one included (the log keeps to the first and every tenth). */
  onError: (error: unknown, inARow: number) => Promise<void>;
}

/** A block chain (BTC, LTC, BCH, ETH): blocks behind the tip, payments kept on decided orders. */
async function blockStepper(chain: string, readSecret: SecretReader | undefined): Promise<ChainStepper> {
  const config = chainSourcesConfig().sources.find((candidate) => candidate.chain === chain);
  if (!config) throw new Error(`${chain}: no source configured for this watcher`);
  const reporter = reporterOf(chain, config.kind);
  let pending = blockWatchers.get(chain);
  if (!pending) {
    pending = watcherFor(config, readSecret).catch((error: unknown) => {
      blockWatchers.delete(chain);
      throw error;
    });
    blockWatchers.set(chain, pending);
  }
  let watcher: BlockWatcher;
  try {
    watcher = await pending;
  } catch (error) {
    await reporter.failed(error);
    throw error;
  }
  return {
    watcher: watcher as Stepper<StepReport | IndexedStepReport>,
    onStep: async (step) => {
      const report = step as StepReport;
      if (report.blocks > 0 || report.booked > 0 || report.retracted > 0) logger.info('chain watched', { ...report, kept: undefined });
      for (const kept of report.kept) logger.error('a decided order kept a payment whose block left the chain', { chain, ...kept });
      // Kept as unmatched (its order gone, or its invoice refuses it): the operator's to return, as an indexed source's.
      if (report.unmatched > 0) publishValue('UnmatchedPayments', report.unmatched);
      await reporter.succeeded({ tipHeight: report.tip.height, tipTime: report.tip.time, cursorHeight: report.cursor.height, caughtUp: report.behind === 0, note: watcher.source.health?.() });
    },
    onError: async (error, inARow) => {
      onError(chain)(error, inARow);
      await reporter.failed(error);
    },
  };
}

/**
 * LBTC (LND settlements), EOS (Hyperion transfers), TRON and Solana (transfers to watched
 * addresses): caught up once the cursor stops moving (the health report's lag). A payment that
 * finds no invoice is logged; but for LBTC (a shared node's other invoices) it is counted
 * (UnmatchedPayments, the unmatched-payment alarm's metric) and kept in the table for an operator.
 */
function indexedStepper(chain: IndexedChain): ChainStepper {
  if (!indexedChains().includes(chain)) throw new Error(`${chain}: no source configured for this watcher`);
  let watcher = indexedWatchers.get(chain);
  if (!watcher) indexedWatchers.set(chain, (watcher = indexedWatcherFor(chain)));
  const reporter = reporterOf(chain, INDEXED_SOURCE[chain]);
  const source = watcher.source;
  return {
    watcher,
    onStep: async (step) => {
      const report = step as IndexedStepReport;
      await reporter.succeeded({ caughtUp: report.behind === 0, note: source.health?.() });
      const fresh = report.unmatched.filter((found) => found.first);
      // The operator's to return: not another application's settled invoice (LBTC), nor money in a merchant's own wallet (its portal shows it).
      const operators = fresh.filter(({ owned }) => !owned && chain !== 'LBTC');
      // Only when there are some: a series published all the time is billed all the time.
      if (operators.length > 0) publishValue('UnmatchedPayments', operators.length);
      if (report.booked > 0) logger.info('payments watched', { ...report, unmatched: report.unmatched.length });
      for (const { transfer, reason, owned } of fresh) {
        const details = { chain, reason, key: transfer.key, txid: transfer.txid, address: transfer.address, memo: transfer.memo, amount: formatDecimal(transfer.amount) };
        if (chain === 'LBTC') logger.info('a settled invoice is not one of ours', details);
        else if (owned) logger.warn("a payment to a merchant's own wallet matches no invoice: listed in its portal", details);
        else logger.error('a payment matches no invoice: return it to its sender', details);
      }
    },
    onError: async (error, inARow) => {
      onError(chain)(error, inARow);
      await reporter.failed(error);
    },
  };
}

/**
 * `chain`'s watcher (one per container: it lives as long as the process) and its step hooks:
 * each step reports its source's health (the health alarm's metric) and logs what it booked,
 * kept or could not match.
 */
export function chainStepper(chain: string, readSecret?: SecretReader): Promise<ChainStepper> {
  return chain in INDEXED_SOURCE ? Promise.resolve().then(() => indexedStepper(chain as IndexedChain)) : blockStepper(chain, readSecret);
}

/**
 * One run of `chain`'s watcher that polls until `signal` (the local runtime: once per chain of
 * {@link runnableWatchers}, until it stops). In AWS a chain is stepped instead, one invocation a
 * step (shared/watchers/stepped.ts).
 */
export async function watchChainRun(chain: string, signal: AbortSignal, readSecret?: SecretReader): Promise<PollSummary<StepReport | IndexedStepReport>> {
  const { watcher, onStep, onError } = await chainStepper(chain, readSecret);
  return watchUntil(watcher, signal, { onStep, onError });
}

/**
 * A run that did not step a chain in demand: nothing needs the chain (it looked once, or
 * `rested`: it had looked within WATCH_IDLE_LOOK_SECONDS).
 */
export type IdleSummary = PollSummary<StepReport | IndexedStepReport> & { idle: true; rested?: true };

/**
 * When this container last looked at each idle chain successfully. Scheduled runs come every
 * minute; an idle chain's look (source requests, the cursor and health writes) is most of an
 * idle run's bill, and its health needs one only every few minutes (SOURCE_MAX_SILENCE_SECONDS).
 * Forgotten once the chain is needed again, so the next idle spell starts with a look.
 */
const lastIdleLook = new Map<string, number>();

/**
 * Pay-per-use: when no open invoice needs `chain` and no payment is maturing on it, one idle
 * look (block chains: the tip, the cursor moves there; indexed sources: one step, which for
 * TRON and Solana with no watched address is a Query of the watch list that finds nothing new)
 * and its health report, at most every WATCH_IDLE_LOOK_SECONDS (the runs between check the
 * demand only). Undefined when the chain is needed: the caller steps it
 * (shared/watchers/stepped.ts). An idle run is one Lambda invocation of a few hundred ms.
 */
export async function idleRun(chain: string, now: Date, readSecret?: SecretReader): Promise<IdleSummary | undefined> {
  if (await watchingNeeded(chain, now)) {
    lastIdleLook.delete(chain);
    return undefined;
  }
  const looked = lastIdleLook.get(chain);
  // Looked at recently (this container): its health report is fresh, the demand was all this run had to check.
  if (looked !== undefined && now.getTime() - looked < watchConfig().idleLookSeconds * 1000) return { steps: 0, failures: 0, idle: true, rested: true };
  const look = await idleLook(chain, readSecret);
  if (look.steps > 0) lastIdleLook.set(chain, now.getTime());
  return { ...look, idle: true };
}

/** One look at an idle chain's source, reported as its health (caught up: nothing is owed). */
async function idleLook(chain: string, readSecret: SecretReader | undefined): Promise<PollSummary<StepReport | IndexedStepReport>> {
  const indexed = chain in INDEXED_SOURCE ? (chain as IndexedChain) : undefined;
  const config = indexed ? undefined : chainSourcesConfig().sources.find((candidate) => candidate.chain === chain);
  const reporter = reporterOf(chain, indexed ? INDEXED_SOURCE[indexed] : (config?.kind ?? 'unknown'));
  try {
    if (indexed) {
      // Indexed sources read only what reached our node or account, TRON and Solana only their
      // watched addresses (none: the step is one Query of the watch list): a step is already cheap.
      let watcher = indexedWatchers.get(indexed);
      if (!watcher) indexedWatchers.set(indexed, (watcher = indexedWatcherFor(indexed)));
      const report = await watcher.step();
      await reporter.succeeded({ caughtUp: true, note: watcher.source.health?.() });
      return { steps: 1, failures: 0, last: report };
    }
    if (!config) throw new Error(`${chain}: no source configured for this watcher`);
    let pending = blockWatchers.get(chain);
    if (!pending) blockWatchers.set(chain, (pending = watcherFor(config, readSecret)));
    const watcher = await pending.catch((error: unknown) => {
      blockWatchers.delete(chain);
      throw error;
    });
    const look = await watcher.idleLook();
    await reporter.succeeded({ tipHeight: look.tip.height, tipTime: look.tip.time, cursorHeight: look.cursor.height, caughtUp: true, note: watcher.source.health?.() });
    return { steps: 1, failures: 0 };
  } catch (error) {
    await reporter.failed(error);
    return { steps: 0, failures: 1 };
  }
}
