/**
 * What a block chain's watcher remembers of the mempool in its container (a warm Lambda, the
 * local runtime), both bounded (the oldest forgotten first): the txids already examined, so a
 * look at the mempool reads only new ones; and the payment keys booked unconfirmed, so that when
 * one is then mined short of its confirmations only its maturing payment is written (its
 * invoice already has it and the order is PENDING). The invoice records the block once the
 * payment is final.
 */
import type { Transfer } from '#shared/watchers/sources/port';

export class MempoolMemory {
  private readonly known = new Set<string>();
  private readonly bookedUnconfirmed = new Set<string>();

  constructor(
    /** Entries each set keeps at most. */
    private readonly limit: number,
  ) {}

  /** The mempool txids already examined (the source skips them). */
  get examined(): ReadonlySet<string> {
    return this.known;
  }

  /** Remembers the transfers' txids as examined, the newest last. */
  examine(transfers: readonly Transfer[]): void {
    for (const transfer of transfers) {
      this.known.delete(transfer.txid);
      this.known.add(transfer.txid);
    }
    forgetOldest(this.known, this.limit);
  }

  /** Remembers a payment key booked unconfirmed. */
  bookUnconfirmed(key: string): void {
    this.bookedUnconfirmed.add(key);
    forgetOldest(this.bookedUnconfirmed, this.limit);
  }

  /** Whether this container booked the payment unconfirmed (from the mempool). */
  wasBookedUnconfirmed(key: string): boolean {
    return this.bookedUnconfirmed.has(key);
  }

  /** The payment is final: its block is on its invoice now. */
  matured(key: string): void {
    this.bookedUnconfirmed.delete(key);
  }

  /** The payment's block left the chain: back in the mempool, it is examined and booked again; mined again, it is reported again. */
  takenBack(txid: string, key: string): void {
    this.known.delete(txid);
    this.bookedUnconfirmed.delete(key);
  }
}

/** A Set iterates in insertion order: the oldest go first. */
function forgetOldest(set: Set<string>, limit: number): void {
  for (const oldest of set) {
    if (set.size <= limit) break;
    set.delete(oldest);
  }
}
