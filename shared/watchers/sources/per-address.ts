/**
 * What the per-address sources (TRON's TronGrid, a Solana node: tron.ts, solana.ts) share. They
 * have no block cursor a tip could leave behind, and they read for the watch list's entries
 * (shared/store/watch-list.ts), not for every block:
 *
 * - {@link PerAddressChecks}: every step, an idle one too, starts with the network (block 0's
 *   hash, once passed for the process: chain-check.ts) and looks at the newest final block (at
 *   most once a minute, or at each step that reads up to it: head-check.ts); the health the
 *   source reports is what these two found.
 * - {@link earliestWatch}: the entries of the source's currency grouped by what the source reads
 *   for them (TRON: the recipient's account; Solana: the receiving token account), each group
 *   with its oldest invoice's time: no payment before it (less a margin for clocks) is one of
 *   theirs, so that is how far back a source with no place of its own reads.
 */
import type { ChainIdentity } from '#shared/chains/identity';
import { ChainCheck, type HashAt } from '#shared/watchers/sources/chain-check';
import { HeadCheck, type SourceHead } from '#shared/watchers/sources/head-check';
import type { SourceHealthNote } from '#shared/watchers/sources/port';

export class PerAddressChecks {
  private readonly chain: ChainCheck;
  private readonly head = new HeadCheck();

  /**
   * @param label what the errors call the source (`TRON API`): no host, no URL.
   * @param networks known genesis hashes and the network each is, named in a wrong-chain error.
   * @param ask the source's block at a height (block 0 at least) and its newest final block.
   */
  constructor(
    label: string,
    identity: ChainIdentity,
    networks: Readonly<Record<string, string>>,
    private readonly ask: { hashAt: HashAt; head: () => Promise<SourceHead> },
  ) {
    this.chain = new ChainCheck(label, identity, networks);
  }

  /**
   * A step's start: the network first (once passed, for good: a WrongChainError or SourceError
   * otherwise), then, unless the step reads the head itself ({@link readHead}), whether the
   * source sees now, asked at most once a minute.
   */
  async ensure(now: Date, options: { head: boolean } = { head: true }): Promise<void> {
    await this.chain.ensure(this.ask.hashAt);
    if (options.head) await this.head.ensure(now, this.ask.head);
  }

  /** The newest final block, read now (a step that reads up to it), and taken for the health. */
  async readHead(now: Date): Promise<SourceHead> {
    const head = await this.ask.head();
    this.head.record(now, head);
    return head;
  }

  /** The source's health: its chain check and how old its newest final block was. */
  health(): SourceHealthNote {
    return { chainOk: this.chain.chainOk, currencyErrors: {}, ...this.head.note() };
  }
}

/** What a per-address source needs of a watch list entry. */
export interface WatchEntry {
  /** The invoice's address or reference. */
  address: string;
  currency: string;
  /** When its invoice was made (ISO). */
  since: string;
}

/** The entries a source can read ({@link earliestWatch}). */
export interface Watches<E extends WatchEntry> {
  /** In the list's order. */
  entries: E[];
  /** By what the source reads for them: the oldest invoice's time (ms) and its entry. */
  earliest: Map<string, { entry: E; sinceMs: number }>;
}

/**
 * The entries of `currency` the source can read, grouped by `keyOf` (undefined: an entry it
 * cannot read, such as an address not of its chain). An entry whose `since` is not a time (a
 * damaged item) is left out, never read back to the chain's first block.
 */
export function earliestWatch<E extends WatchEntry>(watched: readonly E[], currency: string, keyOf: (entry: E) => string | undefined): Watches<E> {
  const entries: E[] = [];
  const earliest = new Map<string, { entry: E; sinceMs: number }>();
  for (const entry of watched) {
    if (entry.currency !== currency) continue;
    const sinceMs = Date.parse(entry.since);
    if (!Number.isFinite(sinceMs)) continue;
    const key = keyOf(entry);
    if (key === undefined) continue;
    entries.push(entry);
    const known = earliest.get(key);
    if (!known || sinceMs < known.sinceMs) earliest.set(key, { entry, sinceMs });
  }
  return { entries, earliest };
}
