/**
 * A local toncenter API v3 for tests, speaking the ton-indexer's JSON (github.com/toncenter/
 * ton-indexer, ton-index-go: index/models/blockchain.go, jetton.go, response.go; the routes and
 * their parameters in main.go and index/models/request.go; filters and orders in
 * index/crud/crud_transactions.go and crud_jettons.go):
 *
 * - `GET /api/v3/masterchainInfo`: `{last, first}`, masterchain blocks with `seqno`,
 *   `gen_utime` (a string), `global_id` (-239 mainnet, -3 testnet), `root_hash`...;
 * - `GET /api/v3/transactions`: `account` and `hash` repeatable (any address form; hex or
 *   base64 hashes), `start_utime`/`end_utime`, `start_lt`/`end_lt`, `limit` (at most 1,000,
 *   else 422), `offset`, `sort` (desc by default). Ordered as the indexer orders: one account by
 *   (account, lt) or (account, now, lt); several by (now, lt, account) with a time filter, by
 *   (lt, account) without; by hash when hashes are asked. Each transaction as ton-index-go writes
 *   it (`lt` a string, `description` with `credit_ph`, `compute_ph`, `action`, `bounce`,
 *   `in_msg` and `out_msgs` with `message_content {hash, body, decoded}`, addresses raw in upper
 *   case), with the `address_book` unless `X-No-Address-Book` is sent;
 * - `GET /api/v3/jetton/transfers`: `owner_address` repeatable (with `direction` in/out),
 *   `jetton_wallet`, `jetton_master`, the same windows; aborted transfers never listed (`tx_aborted
 *   is false`), ordered by `transaction_now` alone when a time is given (equal times in any order,
 *   shuffled here, as Postgres promises no order among them), by `transaction_lt` otherwise; an
 *   inline forward payload is given as null, as the indexer stores it (it reads the field with
 *   `fetch_maybe_ref`);
 * - `GET /api/v3/adjacentTransactions?hash&direction`: a transaction's children (out) or parent
 *   (in), 404 when none.
 *
 * The chain behind it is small but real: wallets hold ed25519 keys (@ton/crypto); every transfer
 * starts as an external message the sender's wallet signed (a v4-style body: signature, wallet
 * id, expiry, seqno, and the internal messages as refs), which the server verifies before it
 * "runs" it; messages and transactions are @ton/core cells (storeMessage, storeTransaction), so
 * every hash is the cell's; jetton transfers follow TEP-74 (`transfer` 0x0f8a7ea5 to the sender's
 * jetton wallet, `internal_transfer` 0x178d4519 to the recipient's, `transfer_notification`
 * 0x7362d09c to the owner when forward_ton_amount >= 1 nanoton, `excesses` 0xd53276db), the
 * comment in the forward payload (op 0 and text, inline or in a ref). Wallet and jetton wallet
 * code are stand-in cells: no TVM runs here; each transaction's outcome is what the test asks
 * (bounced, aborted, not deployed, failed). Each addition is one new masterchain block.
 *
 * Knobs: the network (`globalId`), an API key (a wrong one is 401) and rates (429 past them), and
 * a lying index (`ignoreJettonMaster`, `listAborted`) so that a source's own checks can be seen
 * to work.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  Address,
  beginCell,
  type Builder,
  Cell,
  comment as commentCell,
  contractAddress,
  Dictionary,
  type DictionaryValue,
  internal,
  loadMessage,
  loadMessageRelaxed,
  type Message,
  type MessageRelaxed,
  type StateInit,
  storeMessage,
  storeMessageRelaxed,
  storeTransaction,
  type Transaction,
  type TransactionComputePhase,
  type TransactionDescriptionGeneric,
} from '@ton/core';
import { type KeyPair, keyPairFromSeed, sign, signVerify } from '@ton/crypto';
import { type FaultyServer, startFaultyServer } from './chain-http';

/**
 * The networks' `global_id` and Tether's USDT master, written here apart from the service's own
 * constants so a wrong one there fails the tests (the global configs' `global_id`; Tether's
 * announced master).
 */
export const MAINNET_GLOBAL_ID = -239;
export const TESTNET_GLOBAL_ID = -3;
export const USDT_MASTER = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';

/** TEP-74's ops, and a plain transfer's comment op. */
export const OP = { transfer: 0x0f8a7ea5, internalTransfer: 0x178d4519, notification: 0x7362d09c, excesses: 0xd53276db, comment: 0 } as const;

/** A wallet of the test chain: its keys, address and seqno. */
export interface TestWallet {
  keys: KeyPair;
  walletId: number;
  address: Address;
  init: StateInit;
  seqno: number;
}

/** A recorded transaction: its JSON as toncenter answers it, and what the filters read. */
export interface TonTransaction {
  json: Record<string, unknown>;
  account: string;
  lt: bigint;
  now: number;
  /** base64, as the API writes it; `hex` as the service keys it. */
  hash: string;
  hex: string;
  inMessageHash?: string;
  outMessageHashes: string[];
}

interface JettonRecord {
  json: Record<string, unknown>;
  source: string;
  destination: string;
  wallet: string;
  master: string;
  lt: bigint;
  now: number;
  aborted: boolean;
}

export interface TonTransferOptions {
  from: TestWallet;
  /** The recipient, any form. */
  to: string;
  nanotons: bigint;
  comment?: string;
  /** A body of the test's own instead of the comment's. */
  body?: Cell;
  /** The message was bounceable and its processing failed: the value goes back (a bounce phase). */
  bounced?: boolean;
  /** The recipient's computation failed (a non-bounceable message stays credited). */
  aborted?: boolean;
  /** false: the recipient's wallet is not deployed (no code: compute skipped, aborted, and credited unless bounceable). */
  deployed?: boolean;
  /** The transactions' time (default: the server's clock). */
  at?: Date;
}

export interface JettonTransferOptions {
  /** The jetton master (USDT's, or a look-alike's). */
  master: string;
  /** The sending owner's wallet (default: the server's own buyer). */
  from?: TestWallet;
  /** The recipient owner, any form. */
  to: string;
  units: bigint;
  comment?: string;
  /** The comment in the transfer body itself (Either bit 0) instead of a ref. */
  inline?: boolean;
  /** The sending jetton wallet refused the transfer (not enough jettons): aborted, bounced back. */
  failed?: boolean;
  /** The owner's transaction of the transfer notification was aborted (the jettons moved anyway). */
  notificationAborted?: boolean;
  /** Nanotons forwarded with the notification (default 1: a notification is sent). */
  forwardTonAmount?: bigint;
  at?: Date;
}

/** What a test's jetton transfer made: the sending jetton wallet's transaction (the record's) and the others. */
export interface JettonTransferResult {
  /** The record's transaction (the sending jetton wallet's), hex. */
  hex: string;
  transactions: TonTransaction[];
  senderWallet: Address;
  recipientWallet: Address;
}

/** Stand-in code of the wallets and jetton wallets here (no TVM runs): what makes their addresses. */
const WALLET_CODE = beginCell().storeUint(0x7e5757, 24).storeStringTail('test wallet').endCell();
const JETTON_WALLET_CODE = beginCell().storeUint(0x7e5757, 24).storeStringTail('test jetton wallet').endCell();
const WALLET_ID = 698983191;
const SHARD = '8000000000000000';

const messageValue: DictionaryValue<Message> = {
  serialize: (src, builder) => builder.storeRef(beginCell().store(storeMessage(src))),
  parse: (slice) => loadMessage(slice.loadRef().beginParse()),
};

const raw = (address: Address): string => `${address.workChain}:${address.hash.toString('hex').toUpperCase()}`;
const b64 = (buffer: Buffer): string => buffer.toString('base64');
const cellHash = (cell: Cell): string => b64(cell.hash());

/** Any address form the indexer takes (raw, base64, base64url), as its converter reads it; undefined otherwise. */
function anyAddress(value: string): Address | undefined {
  try {
    return Address.parse(value.replace(/\+/g, '-').replace(/\//g, '_'));
  } catch {
    try {
      return Address.parse(value);
    } catch {
      return undefined;
    }
  }
}

/** A hash parameter (hex or base64/base64url) as base64, as the indexer's HashConverter reads it. */
function hashParam(value: string): string | undefined {
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(value)) return b64(Buffer.from(value.replace(/^0x/, ''), 'hex'));
  if (/^[A-Za-z0-9+/_-]{43}=$/.test(value)) return b64(Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
  return undefined;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class ToncenterTestServer {
  readonly transactions: TonTransaction[] = [];
  readonly jettonTransfers: JettonRecord[] = [];
  /** The network's id every block carries (a test may set testnet's while the server runs). */
  globalId: number;
  /** How old the newest masterchain block is, ms (a test sets a stuck index's). */
  headAgeMs = 3000;
  /** The chain's clock, ms (a test moves it with the source's). */
  clock: () => number = Date.now;
  /** A lying or buggy index: jetton transfers of every master, whatever `jetton_master` asks. */
  ignoreJettonMaster = false;
  /** A lying or buggy index: aborted jetton transfers listed too. */
  listAborted = false;
  /** Requests seen, each with its query, in order. */
  readonly log: { path: string; query: URLSearchParams }[] = [];
  /** The server's own buyer, the default sender of jettons. */
  readonly buyer: TestWallet;
  private server: FaultyServer | undefined;
  private readonly wallets = new Map<string, TestWallet>();
  private readonly accounts = new Map<string, { status: 'active' | 'uninit'; lastLt: bigint; lastHash: Buffer }>();
  private lt = 48_000_000_000_000n;
  private mcSeqno = 52_000_000;
  private readonly hits = new Map<string, number[]>();

  /**
   * @param options.network mainnet (default) or testnet: the `global_id` of its blocks.
   * @param options.apiKey the key the API takes (a request with another is 401; none: the keyless rate).
   * @param options.keyRate, options.anonRate requests a second past which it answers 429 (default: no limit).
   */
  constructor(private readonly options: { network?: 'mainnet' | 'testnet'; apiKey?: string; keyRate?: number; anonRate?: number } = {}) {
    this.globalId = options.network === 'testnet' ? TESTNET_GLOBAL_ID : MAINNET_GLOBAL_ID;
    this.buyer = this.wallet(1);
  }

  get url(): string {
    return this.server!.url;
  }

  /** Requests answered, by path (`/api/v3/transactions`...). */
  get requests(): Map<string, number> {
    return this.server!.requests;
  }

  /** Requests to paths other than masterchainInfo (what a step costs beyond its head), all paths together. */
  get reads(): number {
    return [...this.requests].filter(([path]) => path !== '/api/v3/masterchainInfo').reduce((sum, [, count]) => sum + count, 0);
  }

  async start(): Promise<this> {
    this.server = await startFaultyServer(
      (request) => this.respond(request),
      (request) => new URL(request.url ?? '/', 'http://toncenter').pathname,
    );
    return this;
  }

  fault(...args: Parameters<FaultyServer['fault']>): void {
    this.server!.fault(...args);
  }

  async close(): Promise<void> {
    await this.server?.close();
  }

  /** A wallet with the ed25519 key of a 32-byte seed (a number: that byte repeated), deployed. */
  wallet(seed: number | Buffer): TestWallet {
    const keys = keyPairFromSeed(typeof seed === 'number' ? Buffer.alloc(32, seed) : seed);
    const data = beginCell().storeUint(0, 32).storeUint(WALLET_ID, 32).storeBuffer(keys.publicKey).endCell();
    const init = { code: WALLET_CODE, data };
    const wallet: TestWallet = { keys, walletId: WALLET_ID, address: contractAddress(0, init), init, seqno: 0 };
    const known = this.wallets.get(raw(wallet.address));
    if (known) return known;
    this.wallets.set(raw(wallet.address), wallet);
    this.state(wallet.address).status = 'active';
    return wallet;
  }

  /** The jetton wallet of `owner` for `master` (its address from the stand-in code and TEP-74's data: balance, owner, master). */
  jettonWallet(master: string, owner: string | Address): Address {
    const data = beginCell()
      .storeCoins(0)
      .storeAddress(typeof owner === 'string' ? Address.parse(owner) : owner)
      .storeAddress(Address.parse(master))
      .endCell();
    return contractAddress(0, { code: JETTON_WALLET_CODE, data });
  }

  /** The external message `wallet` signs to send `messages` (as a v4 wallet: signature over wallet id, expiry, seqno, op 0 and the messages). */
  signedExternal(wallet: TestWallet, messages: readonly MessageRelaxed[], validUntil = Math.floor(this.clock() / 1000) + 60): Cell {
    const unsigned = beginCell().storeUint(wallet.walletId, 32).storeUint(validUntil, 32).storeUint(wallet.seqno, 32).storeUint(0, 8);
    for (const message of messages) unsigned.storeUint(3, 8).storeRef(beginCell().store(storeMessageRelaxed(message)));
    const signature = sign(unsigned.endCell().hash(), wallet.keys.secretKey);
    return beginCell().storeBuffer(signature).storeBuilder(unsigned).endCell();
  }

  /**
   * A TON transfer from a wallet: its signed external message, the wallet's transaction sending
   * the internal message, and the recipient's transaction (credited, bounced or aborted as
   * asked), in one new masterchain block. Returns the recipient's transaction.
   */
  addTonTransfer(options: TonTransferOptions): TonTransaction & { sender: TonTransaction } {
    const now = this.blockTime(options.at);
    const to = anyAddress(options.to);
    if (!to) throw new Error(`not an address: ${options.to}`);
    const bounce = options.bounced === true;
    const relaxed = internal({ to, value: options.nanotons, bounce, body: options.body ?? (options.comment !== undefined ? commentCell(options.comment) : Cell.EMPTY) });
    this.mcSeqno += 1;
    const [sent] = this.runWallet(options.from, this.signedExternal(options.from, [relaxed]), now);
    const deployed = options.deployed !== false;
    if (!deployed && !this.accounts.has(raw(to))) this.accounts.set(raw(to), { status: 'uninit', lastLt: 0n, lastHash: Buffer.alloc(32) });
    const compute = !deployed ? 'no-state' : options.aborted || bounce ? 'fail' : 'ok';
    const received = this.receive(sent!.message, now, { compute, bounce: bounce && compute !== 'ok', trace: sent!.tx });
    if (received.bounced) this.receive(received.bounced, now, { compute: 'ok', bounce: false, trace: sent!.tx });
    return { ...received.tx, sender: sent!.tx };
  }

  /**
   * A jetton transfer as a wallet makes it (TEP-74): the owner's signed external to its jetton
   * wallet (`transfer`), that wallet's transaction (the jetton transfer record's) sending
   * `internal_transfer` to the recipient's jetton wallet, whose transaction sends the
   * `transfer_notification` to the recipient (forward_ton_amount >= 1) and the excess back.
   */
  addJettonTransfer(options: JettonTransferOptions): JettonTransferResult {
    const now = this.blockTime(options.at);
    const owner = options.from ?? this.buyer;
    const to = anyAddress(options.to);
    if (!to) throw new Error(`not an address: ${options.to}`);
    const master = Address.parse(options.master);
    const senderWallet = this.jettonWallet(options.master, owner.address);
    const recipientWallet = this.jettonWallet(options.master, to);
    const forwardTon = options.forwardTonAmount ?? 1n;
    const queryId = BigInt(this.transactions.length + 1);
    const payload = (builder: Builder) => {
      if (options.comment === undefined) builder.storeBit(false);
      else if (options.inline) builder.storeBit(false).storeSlice(commentCell(options.comment).beginParse());
      else builder.storeBit(true).storeRef(commentCell(options.comment));
    };
    const transfer = beginCell()
      .storeUint(OP.transfer, 32)
      .storeUint(queryId, 64)
      .storeCoins(options.units)
      .storeAddress(to)
      .storeAddress(owner.address)
      .storeBit(false)
      .storeCoins(forwardTon)
      .store(payload)
      .endCell();
    this.mcSeqno += 1;
    const [sent] = this.runWallet(owner, this.signedExternal(owner, [internal({ to: senderWallet, value: 50_000_000n, bounce: true, body: transfer })]), now);
    const trace = sent!.tx;
    const transactions = [trace];
    const internalTransfer = beginCell()
      .storeUint(OP.internalTransfer, 32)
      .storeUint(queryId, 64)
      .storeCoins(options.units)
      .storeAddress(owner.address)
      .storeAddress(owner.address)
      .storeCoins(forwardTon)
      .store(payload)
      .endCell();
    this.state(senderWallet).status = 'active';
    const onSender = this.receive(sent!.message, now, {
      compute: options.failed ? 'fail' : 'ok',
      bounce: options.failed === true,
      trace,
      exitCode: options.failed ? 47 : 0,
      send: options.failed ? [] : [{ to: recipientWallet, value: 40_000_000n, bounce: true, body: internalTransfer }],
    });
    transactions.push(onSender.tx);
    this.jettonTransfers.push({
      json: {
        query_id: String(queryId),
        source: raw(owner.address),
        destination: raw(to),
        amount: String(options.units),
        source_wallet: raw(senderWallet),
        jetton_master: raw(master),
        transaction_hash: onSender.tx.hash,
        transaction_lt: String(onSender.tx.lt),
        transaction_now: now,
        transaction_aborted: options.failed === true,
        response_destination: raw(owner.address),
        custom_payload: null,
        decoded_custom_payload: null,
        forward_ton_amount: String(forwardTon),
        forward_payload: options.comment !== undefined && !options.inline ? b64(commentCell(options.comment).toBoc()) : null,
        decoded_forward_payload: null,
        trace_id: trace.hash,
      },
      source: raw(owner.address),
      destination: raw(to),
      wallet: raw(senderWallet),
      master: raw(master),
      lt: onSender.tx.lt,
      now,
      aborted: options.failed === true,
    });
    if (onSender.bounced) transactions.push(this.receive(onSender.bounced, now, { compute: 'ok', bounce: false, trace }).tx);
    if (options.failed) return { hex: onSender.tx.hex, transactions, senderWallet, recipientWallet };
    const notification = beginCell().storeUint(OP.notification, 32).storeUint(queryId, 64).storeCoins(options.units).storeAddress(owner.address).store(payload).endCell();
    const excesses = beginCell().storeUint(OP.excesses, 32).storeUint(queryId, 64).endCell();
    this.state(recipientWallet).status = 'active';
    const onRecipient = this.receive(onSender.sent[0]!, now, {
      compute: 'ok',
      bounce: false,
      trace,
      send: [...(forwardTon >= 1n ? [{ to, value: forwardTon, bounce: false, body: notification }] : []), { to: owner.address, value: 20_000_000n, bounce: false, body: excesses }],
    });
    transactions.push(onRecipient.tx);
    for (const message of onRecipient.sent) {
      const toOwner = message.info.type === 'internal' && message.info.dest.equals(to);
      transactions.push(
        this.receive(message, now, { compute: toOwner && options.notificationAborted ? 'fail' : 'ok', bounce: false, trace, exitCode: toOwner && options.notificationAborted ? 0xffff : 0 }).tx,
      );
    }
    return { hex: onSender.tx.hex, transactions, senderWallet, recipientWallet };
  }

  /** The time of a new block (s): `at`, or the clock. */
  private blockTime(at: Date | undefined): number {
    return Math.floor((at?.getTime() ?? this.clock()) / 1000);
  }

  private state(address: Address): { status: 'active' | 'uninit'; lastLt: bigint; lastHash: Buffer } {
    let state = this.accounts.get(raw(address));
    if (!state) this.accounts.set(raw(address), (state = { status: 'active', lastLt: 0n, lastHash: Buffer.alloc(32) }));
    return state;
  }

  /** A wallet's transaction of a signed external: the signature and seqno checked as a wallet does, then its messages sent. */
  private runWallet(wallet: TestWallet, body: Cell, now: number): { tx: TonTransaction; message: Message }[] {
    const slice = body.beginParse();
    const signature = slice.loadBuffer(64);
    const signed = beginCell().storeSlice(slice.clone()).endCell();
    if (!signVerify(signed.hash(), signature, wallet.keys.publicKey)) throw new Error('the external message is not signed by the wallet');
    if (slice.loadUint(32) !== wallet.walletId) throw new Error('another wallet id');
    if (slice.loadUint(32) < now) throw new Error('the external message has expired');
    if (slice.loadUint(32) !== wallet.seqno) throw new Error('another seqno');
    if (slice.loadUint(8) !== 0) throw new Error('only simple sends here');
    const relaxed: MessageRelaxed[] = [];
    while (slice.remainingRefs > 0) {
      slice.loadUint(8);
      relaxed.push(loadMessageRelaxed(slice.loadRef().beginParse()));
    }
    wallet.seqno += 1;
    const external: Message = { info: { type: 'external-in', dest: wallet.address, importFee: 0n }, body };
    const { tx, sent } = this.record(wallet.address, external, now, {
      compute: 'ok',
      bounce: false,
      send: relaxed.map((message) => ({ relaxed: message })),
    });
    return sent.map((message) => ({ tx, message }));
  }

  /** The destination's transaction of an internal message. */
  private receive(
    message: Message,
    now: number,
    outcome: { compute: 'ok' | 'fail' | 'no-state'; bounce: boolean; trace: TonTransaction; exitCode?: number; send?: { to: Address; value: bigint; bounce: boolean; body: Cell }[] },
  ): { tx: TonTransaction; sent: Message[]; bounced?: Message } {
    if (message.info.type !== 'internal') throw new Error('only internal messages are received');
    const { tx, sent, bounced } = this.record(message.info.dest, message, now, { ...outcome, send: (outcome.send ?? []).map((out) => ({ relaxed: internal(out) })) });
    return { tx, sent, ...(bounced ? { bounced } : {}) };
  }

  /** One transaction: its cell (its hash), its JSON, and the messages it sent, in the current masterchain block. */
  private record(
    address: Address,
    inMessage: Message,
    now: number,
    outcome: { compute: 'ok' | 'fail' | 'no-state'; bounce: boolean; trace?: TonTransaction; exitCode?: number; send: { relaxed: MessageRelaxed }[] },
  ): { tx: TonTransaction; sent: Message[]; bounced?: Message } {
    const state = this.state(address);
    const lt = (this.lt += 1000n);
    const origStatus = state.status;
    const value = inMessage.info.type === 'internal' ? inMessage.info.value.coins : 0n;
    const ok = outcome.compute === 'ok';
    const out: Message[] = ok
      ? outcome.send.map(({ relaxed }, index) => {
          if (relaxed.info.type !== 'internal') throw new Error('only internal messages are sent');
          return {
            info: { ...relaxed.info, src: address, ihrFee: 0n, forwardFee: 266_669n, createdLt: lt + 1n + BigInt(index), createdAt: now },
            body: relaxed.body,
            ...(relaxed.init ? { init: relaxed.init } : {}),
          } as Message;
        })
      : [];
    let bounced: Message | undefined;
    if (outcome.bounce && inMessage.info.type === 'internal') {
      const original = inMessage.body.beginParse();
      const prefix = beginCell()
        .storeUint(0xffffffff, 32)
        .storeBits(original.loadBits(Math.min(256, original.remainingBits)))
        .endCell();
      bounced = {
        info: {
          type: 'internal',
          ihrDisabled: true,
          bounce: false,
          bounced: true,
          src: address,
          dest: inMessage.info.src,
          value: { coins: value > 1_000_000n ? value - 1_000_000n : 0n },
          ihrFee: 0n,
          forwardFee: 266_669n,
          createdLt: lt + 1n,
          createdAt: now,
        },
        body: prefix,
      };
      out.push(bounced);
    }
    const compute: TransactionComputePhase =
      outcome.compute === 'no-state'
        ? { type: 'skipped', reason: 'no-state' }
        : {
            type: 'vm',
            success: ok,
            messageStateUsed: false,
            accountActivated: false,
            gasFees: 1_234_000n,
            gasUsed: 3_085n,
            gasLimit: 1_000_000n,
            mode: 0,
            exitCode: outcome.exitCode ?? (ok ? 0 : 33),
            vmSteps: 68,
            vmInitStateHash: 0n,
            vmFinalStateHash: 0n,
          };
    const credited = inMessage.info.type === 'internal';
    const description: TransactionDescriptionGeneric = {
      type: 'generic',
      creditFirst: inMessage.info.type === 'internal' ? !inMessage.info.bounce : false,
      storagePhase: { storageFeesCollected: 0n, statusChange: 'unchanged' },
      ...(credited ? { creditPhase: { credit: { coins: value } } } : {}),
      computePhase: compute,
      ...(ok
        ? {
            actionPhase: {
              success: true,
              valid: true,
              noFunds: false,
              statusChange: 'unchanged',
              totalFwdFees: 0n,
              totalActionFees: 0n,
              resultCode: 0,
              totalActions: out.length,
              specActions: 0,
              skippedActions: 0,
              messagesCreated: out.length,
              actionListHash: 0n,
              totalMessageSize: { cells: 1n, bits: 700n },
            },
          }
        : {}),
      ...(bounced ? { bouncePhase: { type: 'ok', messageSize: { cells: 1n, bits: 256n }, messageFees: 0n, forwardFees: 266_669n } } : {}),
      aborted: !ok,
      destroyed: false,
    };
    const outMessages = Dictionary.empty(Dictionary.Keys.Uint(15), messageValue);
    out.forEach((message, index) => outMessages.set(index, message));
    const endStatus = origStatus;
    const transaction = {
      address: BigInt(`0x${address.hash.toString('hex')}`),
      lt,
      prevTransactionHash: BigInt(`0x${state.lastHash.toString('hex')}`),
      prevTransactionLt: state.lastLt,
      now,
      outMessagesCount: out.length,
      oldStatus: origStatus === 'active' ? 'active' : 'uninitialized',
      endStatus: endStatus === 'active' ? 'active' : 'uninitialized',
      inMessage,
      outMessages,
      totalFees: { coins: 1_234_000n },
      stateUpdate: { oldHash: randomBytes(32), newHash: randomBytes(32) },
      description,
    } as unknown as Transaction;
    const cell = beginCell().store(storeTransaction(transaction)).endCell();
    const hash = cell.hash();
    const inJson = messageJson(inMessage);
    const outJson = out.map(messageJson);
    const json: Record<string, unknown> = {
      account: raw(address),
      hash: b64(hash),
      lt: String(lt),
      now,
      mc_block_seqno: this.mcSeqno,
      trace_id: outcome.trace?.hash ?? b64(hash),
      prev_trans_hash: b64(state.lastHash),
      prev_trans_lt: String(state.lastLt),
      orig_status: origStatus,
      end_status: endStatus,
      total_fees: '1234000',
      total_fees_extra_currencies: {},
      description: descriptionJson(description, ok, out.length),
      block_ref: { workchain: 0, shard: SHARD, seqno: this.mcSeqno + 8_000_000 },
      in_msg: inJson,
      out_msgs: outJson,
      account_state_before: accountState(origStatus),
      account_state_after: accountState(endStatus),
      emulated: false,
      finality: 'finalized',
    };
    state.lastLt = lt;
    state.lastHash = hash;
    const tx: TonTransaction = {
      json,
      account: raw(address),
      lt,
      now,
      hash: b64(hash),
      hex: hash.toString('hex'),
      inMessageHash: inJson.hash as string,
      outMessageHashes: outJson.map((message) => message.hash as string),
    };
    this.transactions.push(tx);
    return { tx, sent: bounced ? out.slice(0, -1) : out, ...(bounced ? { bounced } : {}) };
  }

  private respond(request: IncomingMessage): { status: number; body: string } {
    const url = new URL(request.url ?? '/', 'http://toncenter');
    this.log.push({ path: url.pathname, query: url.searchParams });
    try {
      this.admit(request.headers['x-api-key']);
      const noBook = request.headers['x-no-address-book'] === 'true';
      const body = this.route(url.pathname, url.searchParams, noBook);
      return { status: 200, body: JSON.stringify(body) };
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return { status: error.status, body: JSON.stringify({ error: error.message, code: error.status }) };
    }
  }

  /** The API key and the rates: a wrong key is 401; past a rate, 429. */
  private admit(header: string | string[] | undefined): void {
    const key = Array.isArray(header) ? header[0] : header;
    if (key !== undefined && key !== this.options.apiKey) throw new HttpError(401, 'API key does not exist');
    const rate = key === undefined ? this.options.anonRate : this.options.keyRate;
    if (rate === undefined) return;
    const now = Date.now();
    const bucket = (this.hits.get(key ?? '') ?? []).filter((at) => at > now - 1000);
    bucket.push(now);
    this.hits.set(key ?? '', bucket);
    if (bucket.length > rate) throw new HttpError(429, 'Ratelimit exceed');
  }

  private route(path: string, query: URLSearchParams, noBook: boolean): Record<string, unknown> {
    switch (path) {
      case '/api/v3/masterchainInfo':
        return { last: this.block(this.mcSeqno, Math.floor((this.clock() - this.headAgeMs) / 1000)), first: this.block(1, 1_573_822_385) };
      case '/api/v3/transactions': {
        const txs = this.listTransactions(query);
        return { transactions: txs.map((tx) => tx.json), address_book: noBook ? {} : this.addressBook(txs.flatMap((tx) => [tx.account])) };
      }
      case '/api/v3/jetton/transfers': {
        const records = this.listJettonTransfers(query);
        return {
          jetton_transfers: records.map((record) => record.json),
          address_book: noBook ? {} : this.addressBook(records.flatMap((record) => [record.source, record.destination, record.wallet, record.master])),
          metadata: {},
        };
      }
      case '/api/v3/adjacentTransactions': {
        const hash = hashParam(query.get('hash') ?? '');
        const tx = this.transactions.find((candidate) => candidate.hash === hash);
        const direction = query.get('direction');
        const adjacent = !tx
          ? []
          : this.transactions.filter((candidate) =>
              direction === 'in' ? candidate.outMessageHashes.includes(tx.inMessageHash ?? '') : candidate.inMessageHash !== undefined && tx.outMessageHashes.includes(candidate.inMessageHash),
            );
        if (adjacent.length === 0) throw new HttpError(404, 'adjacent transactions not found');
        return { transactions: adjacent.sort((a, b) => Number(a.lt - b.lt)).map((candidate) => candidate.json), address_book: {} };
      }
      default:
        throw new HttpError(404, 'Not Found');
    }
  }

  private listTransactions(query: URLSearchParams): TonTransaction[] {
    const accounts = this.addresses(query, 'account');
    const hashes = query.getAll('hash').map((value) => {
      const hash = hashParam(value);
      if (!hash) throw new HttpError(422, `failed to decode hash: ${value}`);
      return hash;
    });
    const window = this.window(query);
    let txs = this.transactions.filter((tx) => (accounts.length === 0 || accounts.includes(tx.account)) && (hashes.length === 0 || hashes.includes(tx.hash)) && window.holds(tx.now, tx.lt));
    const sign = window.sort === 'asc' ? 1 : -1;
    const byAccount = (a: TonTransaction, b: TonTransaction) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0);
    const byLt = (a: TonTransaction, b: TonTransaction) => sign * Number(a.lt - b.lt);
    const byNow = (a: TonTransaction, b: TonTransaction) => sign * (a.now - b.now);
    if (hashes.length > 0) txs = txs.sort((a, b) => sign * (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    else if (accounts.length === 1) txs = txs.sort((a, b) => byAccount(a, b) || (window.byTime ? byNow(a, b) : 0) || byLt(a, b));
    else txs = txs.sort((a, b) => (window.byTime ? byNow(a, b) : 0) || byLt(a, b) || byAccount(a, b));
    return txs.slice(window.offset, window.offset + window.limit);
  }

  private listJettonTransfers(query: URLSearchParams): JettonRecord[] {
    const owners = this.addresses(query, 'owner_address');
    const wallets = this.addresses(query, 'jetton_wallet');
    const [master] = this.addresses(query, 'jetton_master');
    const direction = query.get('direction');
    if (direction !== null && direction !== 'in' && direction !== 'out' && direction !== 'both') throw new HttpError(422, 'direction should be one of: in, out');
    const window = this.window(query);
    const records = this.jettonTransfers.filter((record) => {
      if (record.aborted && !this.listAborted) return false;
      if (owners.length > 0) {
        const by = direction === 'in' ? [record.destination] : direction === 'out' ? [record.source] : [record.source, record.destination];
        if (!by.some((owner) => owners.includes(owner))) return false;
      }
      if (wallets.length > 0 && !wallets.includes(record.wallet)) return false;
      if (master !== undefined && record.master !== master && !this.ignoreJettonMaster) return false;
      return window.holds(record.now, record.lt);
    });
    const sign = window.sort === 'asc' ? 1 : -1;
    // Ordered by one column: equal ones come in any order (shuffled, as Postgres may).
    const key = (record: JettonRecord) => (window.byTime ? BigInt(record.now) : record.lt);
    const sorted = records
      .map((record) => ({ record, tie: Math.random() }))
      .sort((a, b) => sign * Number(key(a.record) - key(b.record)) || a.tie - b.tie)
      .map(({ record }) => record);
    return sorted.slice(window.offset, window.offset + window.limit);
  }

  /** A repeatable address parameter, as the indexer reads it (any form; a bad one is 422). */
  private addresses(query: URLSearchParams, name: string): string[] {
    return query.getAll(name).map((value) => {
      const address = anyAddress(value);
      if (!address) throw new HttpError(422, `failed to parse ${name}: ${value}`);
      return raw(address);
    });
  }

  /** The time and lt windows, the page and the order of a query (index/crud: limitQuery, getSortOrder). */
  private window(query: URLSearchParams) {
    const number = (name: string): number | undefined => {
      const value = query.get(name);
      if (value === null) return undefined;
      if (!/^\d+$/.test(value)) throw new HttpError(422, `failed to parse ${name}`);
      return Number(value);
    };
    const bigNumber = (name: string): bigint | undefined => {
      const value = query.get(name);
      if (value === null) return undefined;
      if (!/^\d+$/.test(value)) throw new HttpError(422, `failed to parse ${name}`);
      return BigInt(value);
    };
    const limit = Math.max(1, number('limit') ?? 10);
    if (limit > 1000) throw new HttpError(422, `limit is not allowed: ${limit} > 1000`);
    const sort = (query.get('sort') ?? 'desc').toLowerCase();
    if (!['asc', 'a', 'desc', 'd'].includes(sort)) throw new HttpError(422, 'wrong value for sort parameter');
    const [startUtime, endUtime, startLt, endLt] = [number('start_utime'), number('end_utime'), bigNumber('start_lt'), bigNumber('end_lt')];
    return {
      limit,
      offset: number('offset') ?? 0,
      sort: sort.startsWith('a') ? 'asc' : 'desc',
      byTime: startUtime !== undefined || endUtime !== undefined,
      holds: (now: number, lt: bigint) =>
        (startUtime === undefined || now >= startUtime) && (endUtime === undefined || now <= endUtime) && (startLt === undefined || lt >= startLt) && (endLt === undefined || lt <= endLt),
    };
  }

  private addressBook(addresses: readonly string[]): Record<string, unknown> {
    const testnet = this.globalId !== MAINNET_GLOBAL_ID;
    return Object.fromEntries(
      [...new Set(addresses)].map((address) => [
        address,
        {
          user_friendly: Address.parseRaw(address).toString({ bounceable: !this.wallets.has(address), testOnly: testnet }),
          domain: null,
          interfaces: this.wallets.has(address) ? ['wallet_v4r2'] : [],
        },
      ]),
    );
  }

  /** A masterchain block as ton-index-go writes one (models.Block). */
  private block(seqno: number, time: number): Record<string, unknown> {
    const hash = (salt: string) => b64(beginCell().storeUint(seqno, 32).storeStringTail(`${salt}${this.globalId}`).endCell().hash());
    return {
      workchain: -1,
      shard: SHARD,
      seqno,
      root_hash: hash('root'),
      file_hash: hash('file'),
      global_id: this.globalId,
      version: 0,
      after_merge: false,
      before_split: false,
      after_split: false,
      want_merge: true,
      want_split: false,
      key_block: false,
      vert_seqno_incr: false,
      flags: 1,
      gen_utime: String(time),
      start_lt: String(this.lt),
      end_lt: String(this.lt + 1n),
      validator_list_hash_short: 0,
      gen_catchain_seqno: 0,
      min_ref_mc_seqno: seqno - 1,
      prev_key_block_seqno: seqno - 100,
      vert_seqno: 1,
      master_ref_seqno: 0,
      rand_seed: hash('seed'),
      created_by: hash('by'),
      tx_count: 0,
      masterchain_block_ref: { workchain: -1, shard: SHARD, seqno },
      prev_blocks: [{ workchain: -1, shard: SHARD, seqno: seqno - 1 }],
    };
  }
}

/** A message as ton-index-go writes it (models.Message): int64 fields as strings, addresses raw, the body a base64 BOC. */
function messageJson(message: Message): Record<string, unknown> {
  const cell = beginCell().store(storeMessage(message)).endCell();
  const body = message.body;
  const slice = body.beginParse();
  const op = slice.remainingBits >= 32 ? slice.loadUint(32) : undefined;
  let decoded: unknown = null;
  if (op === 0) {
    try {
      decoded = { type: 'text_comment', '@type': 'text_comment', comment: slice.loadStringTail() };
    } catch {
      decoded = null;
    }
  }
  const content = { hash: cellHash(body), body: b64(body.toBoc()), decoded };
  const { info } = message;
  if (info.type === 'internal') {
    return {
      hash: cellHash(cell),
      source: raw(info.src),
      destination: raw(info.dest),
      value: String(info.value.coins),
      value_extra_currencies: {},
      fwd_fee: String(info.forwardFee),
      ihr_fee: String(info.ihrFee),
      extra_flags: '0',
      created_lt: String(info.createdLt),
      created_at: String(info.createdAt),
      opcode: op === undefined ? null : `0x${op.toString(16).padStart(8, '0')}`,
      decoded_opcode: null,
      ihr_disabled: info.ihrDisabled,
      bounce: info.bounce,
      bounced: info.bounced,
      import_fee: null,
      message_content: content,
      init_state: null,
    };
  }
  if (info.type !== 'external-in') throw new Error('no external-out messages here');
  return {
    hash: cellHash(cell),
    source: null,
    destination: raw(info.dest),
    value: null,
    value_extra_currencies: null,
    fwd_fee: null,
    ihr_fee: null,
    extra_flags: null,
    created_lt: null,
    created_at: null,
    opcode: op === undefined ? null : `0x${op.toString(16).padStart(8, '0')}`,
    decoded_opcode: null,
    ihr_disabled: null,
    bounce: null,
    bounced: null,
    import_fee: String(info.importFee),
    message_content: content,
    init_state: null,
    hash_norm: cellHash(cell),
  };
}

/** A transaction's description as ton-index-go writes it (models.TransactionDescr: int64 fields as strings, phases left out when absent). */
function descriptionJson(description: TransactionDescriptionGeneric, ok: boolean, messages: number): Record<string, unknown> {
  const compute = description.computePhase;
  return {
    type: 'ord',
    aborted: description.aborted,
    destroyed: description.destroyed,
    credit_first: description.creditFirst,
    storage_ph: { storage_fees_collected: '0', status_change: 'unchanged' },
    ...(description.creditPhase ? { credit_ph: { credit: String(description.creditPhase.credit.coins) } } : {}),
    compute_ph:
      compute.type === 'skipped'
        ? { skipped: true, reason: 'no_state' }
        : {
            skipped: false,
            success: compute.success,
            msg_state_used: false,
            account_activated: false,
            gas_fees: String(compute.gasFees),
            gas_used: String(compute.gasUsed),
            gas_limit: String(compute.gasLimit),
            mode: 0,
            exit_code: compute.exitCode,
            vm_steps: compute.vmSteps,
            vm_init_state_hash: b64(Buffer.alloc(32)),
            vm_final_state_hash: b64(Buffer.alloc(32)),
          },
    ...(ok
      ? {
          action: {
            success: true,
            valid: true,
            no_funds: false,
            status_change: 'unchanged',
            total_fwd_fees: '0',
            total_action_fees: '0',
            result_code: 0,
            tot_actions: messages,
            spec_actions: 0,
            skipped_actions: 0,
            msgs_created: messages,
            action_list_hash: b64(Buffer.alloc(32)),
            tot_msg_size: { cells: '1', bits: '700' },
          },
        }
      : {}),
    ...(description.bouncePhase ? { bounce: { type: 'ok', msg_size: { cells: '1', bits: '256' }, msg_fees: '0', fwd_fees: '266669' } } : {}),
  };
}

function accountState(status: string): Record<string, unknown> {
  return { hash: b64(randomBytes(32)), balance: '1000000000', extra_currencies: {}, account_status: status, frozen_hash: null, data_hash: null, code_hash: null };
}
