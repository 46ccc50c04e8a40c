/**
 * The port every payment watcher adapter implements (issue 12/13 contract, shared by the
 * Esplora, Bitcoin Core JSON-RPC, Ethereum JSON-RPC, LND REST and Hyperion adapters).
 *
 * Two shapes of source exist:
 *
 * - {@link BlockSource}: chains scanned block by block with a stored cursor (height + hash):
 *   BTC, LTC, BCH (Esplora or Core RPC) and ETH with its ERC-20 tokens. The watcher core asks
 *   for the tip, walks forward from its cursor one block at a time, detects a reorganisation
 *   when a block's `previousHash` is not the cursor's hash, and looks every transfer's address
 *   up in the address index (in batches). Mempool transfers give PENDING early.
 * - {@link IndexedSource}: sources with their own monotonically growing index: LND's
 *   settle_index, Hyperion's global_sequence. The watcher stores the last index it booked.
 *
 * Adapters only speak their API and turn answers into these values; they never touch the
 * table or the lifecycle. Amounts are exact decimals in the currency's units (never floats):
 * adapters convert from satoshis, wei, token units or "1.0000 EOS" with the domain's money
 * functions. Garbage from a source (a missing field, a wrong type, a hash of the wrong length)
 * throws SourceError (shared/core/source-error.ts), never a wrong value.
 */
import type { Decimal } from '#shared/domain/money';

/** A block's place on its chain. */
export interface BlockRef {
  height: number;
  /** Lowercase hex as the chain writes it (no 0x for UTXO chains; 0x-prefixed for ETH). */
  hash: string;
  /**
   * When the block was made, where a tip's answer gives it (a source's tip()): how old the
   * source's view of its chain is, so a node that stopped following it is seen (tip-age.ts).
   */
  time?: Date;
}

/** One payment to one address: the unit the service books. */
export interface Transfer {
  /**
   * The chain's own key of this payment, unique forever: `txid:vout` (UTXO chains),
   * `txhash:logIndex` (ERC-20 Transfer logs), `txhash` (native ETH), the LND payment hash,
   * the Antelope global_sequence. Booking is idempotent by this key.
   */
  key: string;
  /** The transaction id shown to people (txid, tx hash, payment hash). */
  txid: string;
  /** Pay currency code as the service names it: BTC, LTC, BCH, ETH, USDT_ERC20, USDC_ERC20, LBTC, EOS. */
  currency: string;
  /**
   * The receiving address in the form the address index stores it (bech32 lowercase,
   * CashAddr with its prefix, EIP-55 checksummed ETH, the EOS account).
   */
  address: string;
  /** EOS: the transfer's memo (the invoice's memo); absent elsewhere. */
  memo?: string;
  amount: Decimal;
  /** The block it is in; absent while unconfirmed (mempool, pending). */
  block?: BlockRef;
  /**
   * Sent by the account the source reads (EOS: a merchant paying a refund from the receiving
   * account, to the buyer's account): it can only pay a refund, and one that pays none is not
   * a payment to us (never kept as unmatched).
   */
  outgoing?: true;
  /**
   * When it was paid, where the source says (LND's settle date, the EOS block's time): the
   * late-payment rule judges this, not when a watcher happened to read it.
   */
  at?: Date;
}

/** A block with every transfer it contains (the watcher keeps only those to our addresses). */
export interface Block extends BlockRef {
  previousHash: string;
  time: Date;
  transfers: Transfer[];
}

/** What a source knows of its own health beyond a step's success: its chain check and currencies failing alone. */
export interface SourceHealthNote {
  /** Whether the source is on the configured chain; undefined when this kind does not check. */
  chainOk?: boolean;
  /** Currencies the source cannot read now while the others go on (a token contract that does not answer), with why. */
  currencyErrors: Record<string, string>;
  /** A per-address source's newest final block (sources/head-check.ts); block sources report their tip themselves. */
  tipHeight?: number;
  /** False while a per-address source's newest final block is too old: its lag grows as a block chain's behind its tip. */
  caughtUp?: boolean;
}

/** The transfers of `candidates` that may pay an open invoice (the watcher's open-address list, read when called). */
export type TransferFilter = (candidates: readonly Transfer[]) => Promise<readonly Transfer[]>;

/** A chain read block by block. */
export interface BlockSource {
  /** BTC, LTC, BCH or ETH: the chain (its cursor's name). */
  readonly chain: string;
  tip(): Promise<BlockRef>;
  /** The hash of the block at `height` on the current best chain. */
  blockHash(height: number): Promise<string>;
  block(height: number): Promise<Block>;
  /**
   * Optional: the blocks from `from` up to at most `to` read together, in a few requests where
   * {@link block} makes several per block (EVM networks: one `eth_getLogs` over the range, the
   * blocks in one JSON-RPC batch). Oldest first, consecutive from `from`, each linked to the
   * one before by its hash; at least one, maybe fewer than asked (the provider's range cap).
   * `listed` is called once with every candidate transfer, after the blocks were read and
   * before anything is read about single transfers (receipts): the blocks carry only the
   * transfers it kept, so what is read per transfer grows with payments to open invoices, not
   * with the chain's traffic. The watcher uses it when present.
   */
  blocks?(from: number, to: number, listed: TransferFilter): Promise<Block[]>;
  /**
   * Unconfirmed transfers. `known` holds the txids already seen, so an adapter may skip
   * fetching them again (the work grows with new mempool transactions, not with invoices).
   */
  mempool(known: ReadonlySet<string>): Promise<Transfer[]>;
  /** Its chain check and the currencies failing on their own (sources without either leave it out). */
  health?(): SourceHealthNote;
  /**
   * One transaction's transfers as {@link block} reports them (with its block when mined on the
   * best chain; without while unconfirmed), undefined when the source does not know the id: a
   * merchant's reported refund is checked with it (shared/watchers/refund-check.ts).
   */
  transaction?(txid: string): Promise<Transfer[] | undefined>;
}

/** A source with its own growing index (LND settle_index, Hyperion global_sequence). */
export interface IndexedSource {
  readonly chain: string;
  /**
   * Transfers after `cursor` (exclusive), oldest first, at most `limit`; `next` is the new cursor.
   * `more: false` says the source is caught up although its cursor moved (TRON's cursor is a
   * block, which moves every step): the watcher then waits its interval instead of stepping again.
   */
  after(cursor: string | undefined, limit: number): Promise<{ transfers: Transfer[]; next: string | undefined; more?: boolean }>;
  /** Its chain check (TRON, Solana); sources without one leave it out. */
  health?(): SourceHealthNote;
  /**
   * The last `after`'s transfers are booked: a source that keeps its place in memory (Solana's
   * newest signature per account) moves it only now, so a step whose booking failed is read again.
   */
  booked?(): void;
}
