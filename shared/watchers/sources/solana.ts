import { fromMinorUnits } from '#shared/domain/money';
import { SourceError } from '#shared/core/source-error';
import { SOLANA_CLUSTERS } from '#shared/payments/solana-config';
import { ChainCheck } from '#shared/watchers/sources/chain-check';
import { JsonRpcClient, type JsonRpcOptions } from '#shared/watchers/sources/ethereum/json-rpc';
import type { IndexedSource, SourceHealthNote, Transfer } from '#shared/watchers/sources/port';
import { type WatchedTarget, WatchedSchedule } from '#shared/watchers/sources/watched-schedule';
import { HeadCheck, type SourceHead } from '#shared/watchers/sources/head-check';

/**
 * USDC on Solana, paid as a Solana Pay transfer request (REFERENCE "More networks"): each
 * invoice has a unique reference key that the buyer's wallet adds to the transfer, so the
 * watcher finds the payment by it over the standard JSON-RPC API, at `finalized` commitment:
 *
 * - `getSignaturesForAddress(reference)`: the transactions that name the reference;
 * - `getTransaction(signature, {encoding: "json"})` for each: it must have succeeded
 *   (`meta.err` null) and name the reference, and what counts is the change of the merchant
 *   wallet's token balance in the configured mint (`meta.preTokenBalances` /
 *   `postTokenBalances`, owner and mint), as @solana/pay's validateTransfer checks it. Another
 *   mint, another recipient or a failed transaction books nothing.
 *
 * Before anything, once per process, the node's `getGenesisHash` must be the configured
 * cluster's (mainnet-beta; chain-check.ts): a node on devnet would show payments that are worth
 * nothing, and is reported `wrong_chain`. The payment's key is
 * `<signature>:<reference>`; the time booked is the block's.
 */

export interface SolanaSourceOptions extends Pick<JsonRpcOptions, 'url' | 'timeoutMs' | 'fetch'> {
  /** The token mint (USDC: EPjF...). */
  mint: string;
  /** The pay currency of its transfers (USDC_SOL) and its decimals (6). */
  currency: string;
  decimals: number;
  /** The cluster the node must be on (its genesis hash). */
  genesisHash: string;
  /** The references to look for and the wallets they pay (the run reads them from shared/store/watch-list.ts). */
  watched: (now: Date) => Promise<WatchedTarget[]>;
  /** How often a reference past its invoice's expiry (but within the late window) is looked at again. Default 600 s. */
  lateEverySeconds?: number;
  clock?: () => Date;
}

const COMMITMENT = 'finalized';

export class SolanaTransfers implements IndexedSource {
  readonly chain = 'SOLANA';
  private readonly rpc: JsonRpcClient;
  private readonly clock: () => Date;
  private readonly check: ChainCheck;
  private readonly schedule: WatchedSchedule;
  private readonly head = new HeadCheck();
  /** Transactions already read (a finalized transaction never changes): signature -> its transfers. */
  private readonly read = new Map<string, Transfer[]>();

  constructor(private readonly options: SolanaSourceOptions) {
    this.rpc = new JsonRpcClient({ ...options, label: 'solana-rpc' });
    this.clock = options.clock ?? (() => new Date());
    this.schedule = new WatchedSchedule(options.lateEverySeconds);
    this.check = new ChainCheck('SOLANA RPC', { genesisHash: options.genesisHash }, SOLANA_CLUSTERS);
  }

  get source(): string {
    return this.rpc.source;
  }

  health(): SourceHealthNote {
    return { chainOk: this.check.chainOk, currencyErrors: {}, ...this.head.note() };
  }

  async after(_cursor: string | undefined, limit: number): Promise<{ transfers: Transfer[]; next: string | undefined }> {
    // Every step starts here, an idle one too (nothing watched): the cluster first (once passed, for good).
    await this.check.ensure(() => this.genesisHash());
    const now = this.clock();
    // Whether the node sees the cluster now (at most once a minute): its newest finalized slot's time.
    await this.head.ensure(now, () => this.finalizedHead());
    const watched = (await this.options.watched(now)).filter((entry) => entry.recipient !== undefined);
    const due = this.schedule.due(watched, this.options.currency, now, limit);
    const transfers: Transfer[] = [];
    for (const entry of due) {
      const signatures = await this.rpc.call('getSignaturesForAddress', [entry.address, { commitment: COMMITMENT, limit: 1000 }]);
      if (!Array.isArray(signatures)) throw this.error('getSignaturesForAddress did not answer a list');
      for (const item of signatures) {
        const { signature, err } = (item ?? {}) as { signature?: unknown; err?: unknown };
        if (typeof signature !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(signature)) throw this.error('a signature is not base58');
        if (err !== null && err !== undefined) continue; // failed: it moved nothing
        transfers.push(...(await this.transfers(signature, entry)));
      }
    }
    return { transfers, next: undefined };
  }

  /** The newest finalized slot and its block's time (`getSlot`, `getBlockTime`). */
  private async finalizedHead(): Promise<SourceHead> {
    const slot = await this.rpc.call('getSlot', [{ commitment: COMMITMENT }]);
    if (!Number.isSafeInteger(slot) || (slot as number) < 0) throw this.error('getSlot did not answer a slot');
    const time = await this.rpc.call('getBlockTime', [slot]);
    if (!Number.isSafeInteger(time)) throw this.error(`getBlockTime ${String(slot)} did not answer a time`);
    return { height: slot as number, time: new Date((time as number) * 1000) };
  }

  /** The cluster's genesis hash (the check asks for block 0 only: Solana's clusters share no genesis with a fork). */
  private async genesisHash(): Promise<string> {
    const hash = await this.rpc.call('getGenesisHash', []);
    if (typeof hash !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(hash)) throw this.error('getGenesisHash did not answer a base58 hash');
    return hash;
  }

  private async transfers(signature: string, entry: WatchedTarget): Promise<Transfer[]> {
    const cacheKey = `${signature}:${entry.address}`;
    const known = this.read.get(cacheKey);
    if (known) return known;
    const raw = await this.rpc.call('getTransaction', [signature, { commitment: COMMITMENT, encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    if (raw === null) return []; // not finalized yet on this node: next step
    const tx = raw as { blockTime?: unknown; transaction?: { signatures?: unknown; message?: { accountKeys?: unknown } }; meta?: Record<string, unknown> | null };
    const keys = tx.transaction?.message?.accountKeys;
    const signatures = tx.transaction?.signatures;
    if (!Array.isArray(keys) || !Array.isArray(signatures) || signatures[0] !== signature || !tx.meta) throw this.error(`transaction ${signature} is not a transaction with its meta`);
    const loaded = (tx.meta.loadedAddresses ?? {}) as { writable?: unknown[]; readonly?: unknown[] };
    const accounts = [...keys, ...(loaded.writable ?? []), ...(loaded.readonly ?? [])];
    let found: Transfer[] = [];
    if ((tx.meta.err === null || tx.meta.err === undefined) && accounts.includes(entry.address)) {
      const units = this.balance(tx.meta.postTokenBalances, entry.recipient!, signature) - this.balance(tx.meta.preTokenBalances, entry.recipient!, signature);
      if (units > 0n) {
        if (!Number.isSafeInteger(tx.blockTime)) throw this.error(`transaction ${signature} has no blockTime`);
        found = [
          {
            key: cacheKey,
            txid: signature,
            currency: this.options.currency,
            address: entry.recipient!,
            memo: entry.address,
            amount: fromMinorUnits(units, this.options.decimals),
            at: new Date((tx.blockTime as number) * 1000),
          },
        ];
      }
    }
    if (this.read.size >= 10_000) this.read.delete(this.read.keys().next().value as string);
    this.read.set(cacheKey, found);
    return found;
  }

  /** The wallet's balance in the mint over all its token accounts, in base units, from a token balance list. */
  private balance(list: unknown, owner: string, signature: string): bigint {
    if (list === undefined || list === null) return 0n;
    if (!Array.isArray(list)) throw this.error(`transaction ${signature} token balances are not a list`);
    let sum = 0n;
    for (const item of list) {
      const entry = (item ?? {}) as { mint?: unknown; owner?: unknown; uiTokenAmount?: { amount?: unknown; decimals?: unknown } };
      if (entry.mint !== this.options.mint || entry.owner !== owner) continue;
      const amount = entry.uiTokenAmount?.amount;
      if (typeof amount !== 'string' || !/^\d{1,20}$/.test(amount) || entry.uiTokenAmount?.decimals !== this.options.decimals) {
        throw this.error(`transaction ${signature} has a malformed token balance`);
      }
      sum += BigInt(amount);
    }
    return sum;
  }

  private error(message: string): SourceError {
    return new SourceError(this.rpc.source, message);
  }
}
