/**
 * A local Stellar network behind a Horizon for tests, speaking Horizon's JSON as its source
 * writes it (stellar/go-stellar-sdk protocols/horizon: Root, Transaction, Account, Balance,
 * Ledger; protocols/horizon/operations: Base, Payment, PathPayment, PathPaymentStrictSend;
 * stellar/stellar-horizon internal/resourceadapter and internal/actions):
 *
 * - `GET /`: the root (`network_passphrase`, `history_latest_ledger` and its close time,
 *   `history_elder_ledger`, `core_latest_ledger`, ...);
 * - `GET /payments?cursor=&order=&limit=&include_failed=&join=`: the network's payment-class
 *   operations (create_account, payment, both path payments, account_merge) in a HAL page
 *   (`_links` self/next/prev, `_embedded.records`), after the cursor (a paging token, `now`, or
 *   before the history: its start, as Horizon moves an ascending cursor), failed transactions
 *   only with `include_failed=true`, each record's transaction embedded with
 *   `join=transactions`; `limit` 1 to 200 (10 by default);
 * - `GET /transactions/{hash}` and `GET /transactions/{hash}/payments` (failed operations
 *   included, as Horizon gives them for one transaction);
 * - `GET /ledgers/{sequence}`: its close time, hash (SHA-256 of its header XDR, as Stellar's),
 *   410 before the history, 404 past the newest;
 * - `GET /accounts/{G}`: the account with its balances (trustlines), 404 when it does not exist.
 *
 * Errors are problem+json documents as Horizon writes them (`type`
 * https://stellar.org/horizon-errors/not_found, `title`, `status`, `detail`).
 *
 * Transactions are real: envelopes built and signed with @stellar/stellar-base. The server
 * checks each as a validator would: the signature of its source account over its hash on this
 * server's network (its passphrase), and its sequence number. It then applies its operations
 * (payment, path_payment_strict_send, path_payment_strict_receive) against its accounts and
 * trustlines: an operation that cannot apply (no trustline, an unauthorized one, too little
 * balance, a path payment under its minimum or over its maximum) fails the whole transaction,
 * which then moves nothing but its fee and sequence, with the real TransactionResult XDR of
 * either outcome. Path payments convert at the rates a test sets (the order books it plays).
 * Each transaction closes a ledger of its own unless `autoClose` is off, then `closeLedger()`
 * closes one with what was sent. Requests are counted by route.
 */
import { createHash } from 'node:crypto';
import { Account, Address, Asset, hash, Keypair, scValToNative, StrKey, type Transaction, TransactionBuilder, xdr } from '@stellar/stellar-base';
import { parseMuxed } from '#shared/payments/addresses/stellar';
import { type FaultyServer, startFaultyServer } from './chain-http';

/** Circle's USDC issuer on mainnet, written here apart from the service's own settings so a wrong one there fails the tests. */
export const CIRCLE_USDC_ISSUER = 'GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';
export const PUBLIC_PASSPHRASE = 'Public Global Stellar Network ; September 2015';
export const TESTNET_PASSPHRASE = 'Test SDF Network ; September 2015';

const STROOPS = 10_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;
/** A ledger every ~5.5 s before the server's first one. */
const LEDGER_MS = 5500;

/** Stroops as Horizon writes amounts: always 7 decimals (amount.String). */
export const amountString = (stroops: bigint): string => `${stroops / STROOPS}.${(stroops % STROOPS).toString().padStart(7, '0')}`;
const stroopsOf = (amount: string): bigint => {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole!) * STROOPS + BigInt(fraction.padEnd(7, '0'));
};
/** Go's time.Time in JSON as Horizon's close times are: RFC 3339, whole seconds, UTC. */
const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
/** An operation's or transaction's id (Horizon's TOID). */
const toid = (ledger: number, tx: number, op: number): bigint => (BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | BigInt(op);
const assetKey = (asset: Asset): string => (asset.isNative() ? 'native' : `${asset.getCode()}:${asset.getIssuer()}`);
const baseOf = (address: string): string => parseMuxed(address)?.account ?? address;

interface Trustline {
  balance: bigint;
  limit: bigint;
  authorized: boolean;
  lastModified: number;
}

interface AccountState {
  id: string;
  sequence: bigint;
  /** XLM in stroops. */
  native: bigint;
  lines: Map<string, Trustline & { asset: Asset }>;
  lastModified: number;
}

/** One operation as it applied: its JSON details (Horizon's record fields after the base ones). */
interface AppliedOperation {
  type: string;
  typeI: number;
  source: string;
  details: Record<string, unknown>;
  /** In `/payments`: the payment-class operations. */
  payment: boolean;
}

interface Applied {
  hash: string;
  ledger: number;
  /** Its place in the ledger (1-based, Horizon's application order). */
  index: number;
  tx: Transaction;
  successful: boolean;
  envelopeXdr: string;
  resultXdr: string;
  feeCharged: bigint;
  operations: AppliedOperation[];
}

interface Ledger {
  sequence: number;
  hash: string;
  prevHash: string;
  closedAt: number;
  headerXdr: string;
  txs: Applied[];
}

/** What an operation did: whether it applied, its result XDR and Horizon's details of it. */
interface Outcome {
  ok: boolean;
  result: xdr.OperationResult;
  details: Record<string, unknown>;
  /** A contract call is in `/payments` when it moved an asset (Horizon's IsPayment: a Stellar Asset Contract event). */
  payment?: boolean;
}

/** A result union's arm by its code's name (`paymentNoTrust`, ...): js-xdr makes one factory per arm. */
const arm = <T>(union: unknown, name: string): T => (union as Record<string, () => T>)[name]!();

export interface HorizonTestServerOptions {
  /** The network the server is (its root's passphrase; transactions must be signed for it). Default: mainnet's. */
  passphrase?: string;
  /** Close a ledger with each transaction sent (default), or only on {@link HorizonTestServer.closeLedger}. */
  autoClose?: boolean;
  /** The newest ledger before the first one closed here. */
  firstLedger?: number;
  /** Ledgers of history before the first one (older ones are answered 410, before the history). */
  history?: number;
  /** When the ledger before the first one closed (ms; the server's start by default): those before it ~5.5 s apart. */
  historyEndsAt?: number;
}

export class HorizonTestServer {
  /** The network this server is on (a test sets another). */
  passphrase: string;
  autoClose: boolean;
  /**
   * Serve failed transactions' payments in `/payments` although `include_failed` is not asked
   * (a Horizon that does not honour it): what the source must still refuse by `transaction_successful`.
   */
  servesFailedByDefault = false;
  /** How old the root says its newest ledger is beyond its close time (a Horizon that stopped ingesting). */
  stalledMs = 0;
  private server: FaultyServer | undefined;
  private readonly accounts = new Map<string, AccountState>();
  /** Units of `to` one unit of `from` buys, in stroops, per `from>to` (the order books tests play). */
  private readonly rates = new Map<string, bigint>();
  private readonly ledgers: Ledger[] = [];
  private readonly byHash = new Map<string, Applied>();
  private pending: { tx: Transaction; envelopeXdr: string }[] = [];
  private readonly first: number;
  private readonly elder: number;
  private readonly historyEndsAt: number;

  constructor(options: HorizonTestServerOptions = {}) {
    this.passphrase = options.passphrase ?? PUBLIC_PASSPHRASE;
    this.autoClose = options.autoClose ?? true;
    this.first = (options.firstLedger ?? 50_000_000) + 1;
    this.elder = this.first - (options.history ?? 100_000);
    this.historyEndsAt = options.historyEndsAt ?? Date.now();
  }

  get url(): string {
    return this.server!.url;
  }

  /** Requests answered, by route (`/payments`, `/transactions/:hash`, `/ledgers/:sequence`, `/accounts/:id`, `/`). */
  get requests(): Map<string, number> {
    return this.server!.requests;
  }

  /** Every request answered. */
  get requestCount(): number {
    return [...this.requests.values()].reduce((sum, n) => sum + n, 0);
  }

  fault(...args: Parameters<FaultyServer['fault']>): void {
    this.server!.fault(...args);
  }

  async start(): Promise<this> {
    this.server = await startFaultyServer(
      (request) => this.handle(new URL(request.url ?? '/', 'http://horizon.local')),
      (request) => route(new URL(request.url ?? '/', 'http://horizon.local').pathname),
    );
    return this;
  }

  close(): Promise<void> {
    return this.server?.close() ?? Promise.resolve();
  }

  /** The newest ledger closed (one before the first when none was closed here). */
  get latestLedger(): number {
    return this.ledgers.at(-1)?.sequence ?? this.first - 1;
  }

  /** A new account with `xlm` lumens (its sequence number: its creation ledger's, as Stellar starts it). */
  createAccount(keypair: Keypair | string, xlm = '100'): string {
    const id = typeof keypair === 'string' ? keypair : keypair.publicKey();
    this.accounts.set(id, { id, sequence: BigInt(this.latestLedger) << 32n, native: stroopsOf(xlm), lines: new Map(), lastModified: this.latestLedger });
    return id;
  }

  /** A trustline of `account` to `asset` (a ChangeTrust), authorized unless told, with `balance` in it (the issuer paid it before). */
  trust(account: string, asset: Asset, options: { balance?: string; authorized?: boolean; limit?: string } = {}): void {
    const state = this.accounts.get(account);
    if (!state) throw new Error(`no account ${account}`);
    state.lines.set(assetKey(asset), {
      asset,
      balance: stroopsOf(options.balance ?? '0'),
      limit: options.limit === undefined ? MAX_INT64 : stroopsOf(options.limit),
      authorized: options.authorized ?? true,
      lastModified: this.latestLedger,
    });
  }

  /** What one unit of `from` buys of `to` on the order books (path payments convert at it). */
  rate(from: Asset, to: Asset, price: string): void {
    this.rates.set(`${assetKey(from)}>${assetKey(to)}`, stroopsOf(price));
  }

  /** A balance in whole units: an asset's trustline, XLM for the native asset; undefined without a trustline. */
  balance(account: string, asset: Asset): string | undefined {
    const state = this.accounts.get(account);
    if (!state) return undefined;
    if (asset.isNative()) return amountString(state.native);
    const line = state.lines.get(assetKey(asset));
    return line ? amountString(line.balance) : undefined;
  }

  /** The account to build a transaction from (its current sequence number), as a wallet loads it. */
  sourceAccount(account: string): Account {
    const state = this.accounts.get(account);
    if (!state) throw new Error(`no account ${account}`);
    return new Account(account, (state.sequence + BigInt(this.pending.filter(({ tx }) => tx.source === account).length)).toString());
  }

  /** A transaction builder from `keypair`'s account on this network, fee 100 stroops an operation, valid 5 minutes (set its operations, memo, then build and sign). */
  builder(keypair: Keypair): TransactionBuilder {
    return new TransactionBuilder(this.sourceAccount(keypair.publicKey()), { fee: '100', networkPassphrase: this.passphrase }).setTimeout(300);
  }

  /**
   * Takes a signed transaction (or its envelope XDR) as stellar-core would: the source
   * account's signature over its hash on this network and the next sequence number. Closes a
   * ledger with it unless `autoClose` is off. Returns its hash, and whether it succeeded once its ledger closed.
   */
  send(transaction: Transaction | string): { hash: string; successful: () => boolean | undefined } {
    const envelopeXdr = typeof transaction === 'string' ? transaction : transaction.toEnvelope().toXDR('base64');
    const tx = TransactionBuilder.fromXDR(envelopeXdr, this.passphrase);
    if (!('operations' in tx) || 'innerTransaction' in tx) throw new Error('only plain transactions are taken here');
    const source = this.accounts.get(tx.source);
    if (!source) throw new Error(`tx_no_account: ${tx.source}`);
    const signed = tx.signatures.some((signature) => Keypair.fromPublicKey(tx.source).verify(tx.hash(), signature.signature()));
    if (!signed) throw new Error('tx_bad_auth: not signed by its source account on this network');
    const expected = this.sourceAccount(tx.source).sequenceNumber();
    if (BigInt(tx.sequence) !== BigInt(expected) + 1n) throw new Error(`tx_bad_seq: ${tx.sequence}, expected ${BigInt(expected) + 1n}`);
    this.pending.push({ tx, envelopeXdr });
    const txHash = tx.hash().toString('hex');
    if (this.autoClose) this.closeLedger();
    return { hash: txHash, successful: () => this.byHash.get(txHash)?.successful };
  }

  /** Closes a ledger (at `closedAt`, ms; now by default) with the transactions sent since the last, applied in order. */
  closeLedger(closedAt = Date.now()): Ledger {
    const sequence = this.latestLedger + 1;
    const previous = this.ledgers.at(-1)?.hash ?? this.syntheticHash(sequence - 1);
    const txs = this.pending.map(({ tx, envelopeXdr }, i) => this.apply(tx, envelopeXdr, sequence, i + 1));
    this.pending = [];
    const headerXdr = new xdr.LedgerHeader({
      ledgerVersion: 23,
      previousLedgerHash: Buffer.from(previous, 'hex'),
      scpValue: new xdr.StellarValue({
        txSetHash: hash(Buffer.from(txs.map((tx) => tx.hash).join(''))),
        closeTime: xdr.Uint64.fromString(String(Math.floor(closedAt / 1000))),
        upgrades: [],
        ext: xdr.StellarValueExt.stellarValueBasic(),
      }),
      txSetResultHash: hash(Buffer.from(txs.map((tx) => tx.resultXdr).join(''))),
      bucketListHash: Buffer.alloc(32),
      ledgerSeq: sequence,
      totalCoins: xdr.Int64.fromString('1054439020873472865'),
      feePool: xdr.Int64.fromString('0'),
      inflationSeq: 0,
      idPool: xdr.Uint64.fromString('0'),
      baseFee: 100,
      baseReserve: 5_000_000,
      maxTxSetSize: 1000,
      skipList: [Buffer.alloc(32), Buffer.alloc(32), Buffer.alloc(32), Buffer.alloc(32)],
      ext: new xdr.LedgerHeaderExt(0),
    }).toXDR('base64');
    const ledger: Ledger = { sequence, hash: createHash('sha256').update(Buffer.from(headerXdr, 'base64')).digest('hex'), prevHash: previous, closedAt, headerXdr, txs };
    this.ledgers.push(ledger);
    return ledger;
  }

  /** Applies a transaction in ledger `ledger` at place `index`: all its operations, or none (failed: only its fee and sequence). */
  private apply(tx: Transaction, envelopeXdr: string, ledger: number, index: number): Applied {
    const source = this.accounts.get(tx.source)!;
    const fee = BigInt(tx.fee);
    source.native -= fee;
    source.sequence = BigInt(tx.sequence);
    // On a copy: a failed operation leaves every balance as it was.
    const scratch = new Map([...this.accounts].map(([id, state]) => [id, { ...state, lines: new Map([...state.lines].map(([key, line]) => [key, { ...line }])) }]));
    const outcomes = tx.operations.map((operation) => this.operation(operation, baseOf(operation.source ?? tx.source), scratch, ledger));
    const successful = outcomes.every((outcome) => outcome.ok);
    if (successful) for (const [id, state] of scratch) this.accounts.set(id, state);
    const results = outcomes.map((outcome) => outcome.result);
    const resultXdr = new xdr.TransactionResult({
      feeCharged: xdr.Int64.fromString(fee.toString()),
      result: successful ? xdr.TransactionResultResult.txSuccess(results) : xdr.TransactionResultResult.txFailed(results),
      ext: new xdr.TransactionResultExt(0),
    }).toXDR('base64');
    const applied: Applied = {
      hash: tx.hash().toString('hex'),
      ledger,
      index,
      tx,
      successful,
      envelopeXdr,
      resultXdr,
      feeCharged: fee,
      operations: tx.operations.map((operation, i) => {
        const source = operation.source ?? tx.source;
        const kind = operationKind(operation.type);
        return { ...kind, source, details: outcomes[i]!.details, payment: outcomes[i]!.payment ?? kind.payment };
      }),
    };
    this.byHash.set(applied.hash, applied);
    return applied;
  }

  /** One operation against the scratch state: its result XDR and Horizon's details of it. */
  private operation(operation: Transaction['operations'][number], from: string, state: Map<string, AccountState>, ledger: number): Outcome {
    const muxed = (prefix: string, address: string) => {
      const parsed = parseMuxed(address);
      return parsed ? { [prefix]: parsed.account, [`${prefix}_muxed`]: address, [`${prefix}_muxed_id`]: parsed.id } : { [prefix]: address };
    };
    const asset = (value: Asset, prefix = '') =>
      value.isNative()
        ? { [`${prefix}asset_type`]: 'native' }
        : { [`${prefix}asset_type`]: value.getAssetType(), [`${prefix}asset_code`]: value.getCode(), [`${prefix}asset_issuer`]: value.getIssuer() };
    switch (operation.type) {
      case 'payment': {
        const amount = stroopsOf(operation.amount);
        const code = this.move(state, from, operation.destination, operation.asset, amount, amount, ledger);
        const details = { ...asset(operation.asset), ...muxed('from', operation.source ?? from), ...muxed('to', operation.destination), amount: amountString(amount) };
        const result = xdr.OperationResult.opInner(
          xdr.OperationResultTr.payment(code === 'Success' ? xdr.PaymentResult.paymentSuccess() : arm<xdr.PaymentResult>(xdr.PaymentResult, `payment${code}`)),
        );
        return { ok: code === 'Success', result, details };
      }
      case 'pathPaymentStrictSend': {
        const sent = stroopsOf(operation.sendAmount);
        const delivered = this.convert(operation.sendAsset, operation.destAsset, sent, 'down');
        const code =
          delivered === undefined
            ? 'TooFewOffers'
            : delivered < stroopsOf(operation.destMin)
              ? 'UnderDestmin'
              : this.move(state, from, operation.destination, operation.sendAsset, sent, delivered, ledger, operation.destAsset);
        const ok = code === 'Success';
        const details = {
          ...asset(operation.destAsset),
          ...muxed('from', operation.source ?? from),
          ...muxed('to', operation.destination),
          // Horizon: what the destination received, from the result (0 when it failed).
          amount: amountString(ok ? delivered! : 0n),
          path: operation.path.map((hop) => asset(hop)),
          source_amount: amountString(sent),
          destination_min: operation.destMin,
          ...asset(operation.sendAsset, 'source_'),
        };
        const result = ok
          ? xdr.PathPaymentStrictSendResult.pathPaymentStrictSendSuccess(
              new xdr.PathPaymentStrictSendResultSuccess({
                offers: [],
                last: new xdr.SimplePaymentResult({
                  destination: Keypair.fromPublicKey(baseOf(operation.destination)).xdrAccountId(),
                  asset: operation.destAsset.toXDRObject(),
                  amount: xdr.Int64.fromString(delivered!.toString()),
                }),
              }),
            )
          : arm<xdr.PathPaymentStrictSendResult>(xdr.PathPaymentStrictSendResult, `pathPaymentStrictSend${code}`);
        return { ok, result: xdr.OperationResult.opInner(xdr.OperationResultTr.pathPaymentStrictSend(result)), details };
      }
      case 'pathPaymentStrictReceive': {
        const received = stroopsOf(operation.destAmount);
        const needed = this.convert(operation.destAsset, operation.sendAsset, received, 'up', true);
        const code =
          needed === undefined
            ? 'TooFewOffers'
            : needed > stroopsOf(operation.sendMax)
              ? 'OverSendmax'
              : this.move(state, from, operation.destination, operation.sendAsset, needed, received, ledger, operation.destAsset);
        const ok = code === 'Success';
        const details = {
          ...asset(operation.destAsset),
          ...muxed('from', operation.source ?? from),
          ...muxed('to', operation.destination),
          amount: amountString(received),
          path: operation.path.map((hop) => asset(hop)),
          // Horizon: what the payer spent, from the result (0 when it failed).
          source_amount: amountString(ok ? needed! : 0n),
          source_max: operation.sendMax,
          ...asset(operation.sendAsset, 'source_'),
        };
        const result = ok
          ? xdr.PathPaymentStrictReceiveResult.pathPaymentStrictReceiveSuccess(
              new xdr.PathPaymentStrictReceiveResultSuccess({
                offers: [],
                last: new xdr.SimplePaymentResult({
                  destination: Keypair.fromPublicKey(baseOf(operation.destination)).xdrAccountId(),
                  asset: operation.destAsset.toXDRObject(),
                  amount: xdr.Int64.fromString(received.toString()),
                }),
              }),
            )
          : arm<xdr.PathPaymentStrictReceiveResult>(xdr.PathPaymentStrictReceiveResult, `pathPaymentStrictReceive${code}`);
        return { ok, result: xdr.OperationResult.opInner(xdr.OperationResultTr.pathPaymentStrictReceive(result)), details };
      }
      case 'invokeHostFunction':
        return this.invoke(operation, from, state, ledger);
      default:
        return { ok: false, result: xdr.OperationResult.opNotSupported(), details: {} };
    }
  }

  /**
   * A contract call: only `transfer(from, to, amount)` of a Stellar Asset Contract (an asset with
   * a trustline here, or XLM), from the operation's source (its signature stands for the
   * authorization), run as a payment; Horizon's record of it (function, parameters, and the
   * asset balance change of its transfer event: `to` the base account, a muxed destination's id
   * as `destination_muxed_id`, as CAP-67's events carry it). Anything else traps.
   */
  private invoke(operation: Extract<Transaction['operations'][number], { type: 'invokeHostFunction' }>, from: string, state: Map<string, AccountState>, ledger: number): Outcome {
    const trapped = (details: Record<string, unknown>): Outcome => ({
      ok: false,
      result: xdr.OperationResult.opInner(xdr.OperationResultTr.invokeHostFunction(xdr.InvokeHostFunctionResult.invokeHostFunctionTrapped())),
      details,
      payment: false,
    });
    if (operation.func.switch().name !== 'hostFunctionTypeInvokeContract') return trapped({ function: 'HostFunctionTypeHostFunctionTypeUploadContractWasm' });
    const call = operation.func.invokeContract();
    const args = [xdr.ScVal.scvAddress(call.contractAddress()), xdr.ScVal.scvSymbol(call.functionName()), ...call.args()];
    const details: Record<string, unknown> = {
      function: 'HostFunctionTypeHostFunctionTypeInvokeContract',
      parameters: args.map((arg) => ({ value: arg.toXDR('base64'), type: scValArm(arg) })),
      address: '',
      salt: '',
      asset_balance_changes: null,
    };
    const contract = StrKey.encodeContract(call.contractAddress().contractId() as unknown as Buffer);
    const assets = [Asset.native(), ...[...this.accounts.values()].flatMap((account) => [...account.lines.values()].map((line) => line.asset))];
    const asset = assets.find((candidate) => candidate.contractId(this.passphrase) === contract);
    if (!asset || call.functionName().toString() !== 'transfer' || call.args().length !== 3) return trapped(details);
    const [payer, payee] = call
      .args()
      .slice(0, 2)
      .map((arg) => Address.fromScVal(arg).toString());
    const amount = BigInt(scValToNative(call.args()[2]!) as bigint);
    if (payer !== from || amount <= 0n || !/^[GM]/.test(payee!)) return trapped(details);
    if (this.move(state, from, payee!, asset, amount, amount, ledger) !== 'Success') return trapped(details);
    const muxed = parseMuxed(payee!);
    details.asset_balance_changes = [
      {
        ...(asset.isNative() ? { asset_type: 'native' } : { asset_type: asset.getAssetType(), asset_code: asset.getCode(), asset_issuer: asset.getIssuer() }),
        type: 'transfer',
        from: payer,
        to: muxed?.account ?? payee,
        amount: amountString(amount),
        ...(muxed ? { destination_muxed_id: muxed.id } : {}),
      },
    ];
    const result = xdr.InvokeHostFunctionResult.invokeHostFunctionSuccess(hash(Buffer.from(xdr.ScVal.scvVoid().toXDR())));
    return { ok: true, result: xdr.OperationResult.opInner(xdr.OperationResultTr.invokeHostFunction(result)), details, payment: true };
  }

  /** `amount` of `from` converted at the test's rate (a path of the asset itself is 1:1); undefined with no rate (no offers). */
  private convert(from: Asset, to: Asset, amount: bigint, rounding: 'up' | 'down', inverse = false): bigint | undefined {
    if (assetKey(from) === assetKey(to)) return amount;
    const rate = inverse ? this.rates.get(`${assetKey(to)}>${assetKey(from)}`) : this.rates.get(`${assetKey(from)}>${assetKey(to)}`);
    if (rate === undefined) return undefined;
    // Forward: amount x rate; inverse (what buys `amount` of `from`... of the destination asset): amount / rate.
    const [numerator, denominator] = inverse ? [amount * STROOPS, rate] : [amount * rate, STROOPS];
    return rounding === 'up' ? (numerator + denominator - 1n) / denominator : numerator / denominator;
  }

  /**
   * Takes `sent` of `sendAsset` from `from` and gives `received` of `destAsset` (the same asset
   * for a payment) to `destination`: the result code's name (`Success`, `Underfunded`, `NoTrust`, ...).
   */
  private move(state: Map<string, AccountState>, from: string, destination: string, sendAsset: Asset, sent: bigint, received: bigint, ledger: number, destAsset = sendAsset): string {
    const payer = state.get(from)!;
    const payee = state.get(baseOf(destination));
    if (!payee) return 'NoDestination';
    if (sendAsset.isNative()) {
      if (payer.native < sent) return 'Underfunded';
      payer.native -= sent;
    } else if (sendAsset.getIssuer() !== from) {
      const line = payer.lines.get(assetKey(sendAsset));
      if (!line) return 'SrcNoTrust';
      if (!line.authorized) return 'SrcNotAuthorized';
      if (line.balance < sent) return 'Underfunded';
      line.balance -= sent;
      line.lastModified = ledger;
    }
    if (destAsset.isNative()) {
      payee.native += received;
    } else if (destAsset.getIssuer() !== payee.id) {
      const line = payee.lines.get(assetKey(destAsset));
      if (!line) return 'NoTrust';
      if (!line.authorized) return 'NotAuthorized';
      if (line.balance + received > line.limit) return 'LineFull';
      line.balance += received;
      line.lastModified = ledger;
    }
    payer.lastModified = ledger;
    payee.lastModified = ledger;
    return 'Success';
  }

  private syntheticHash(sequence: number): string {
    return createHash('sha256').update(`ledger ${sequence}`).digest('hex');
  }

  private handle(url: URL): { status: number; body: string; type?: string } {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/') return this.json(this.root());
    if (path === '/payments') return this.page(url, this.payments(url.searchParams.get('include_failed') === 'true' || this.servesFailedByDefault));
    let match = /^\/transactions\/([0-9a-fA-F]{64})(\/payments)?$/.exec(path);
    if (match) {
      const applied = this.byHash.get(match[1]!.toLowerCase());
      if (!applied) return this.problem(404);
      if (!match[2]) return this.json(this.transactionResource(applied));
      // One transaction's operations: failed ones too (Horizon's GetOperationsHandler with tx_id).
      return this.page(url, this.operationsOf(applied));
    }
    match = /^\/ledgers\/(\d+)$/.exec(path);
    if (match) return this.ledgerAnswer(Number(match[1]));
    match = /^\/accounts\/([A-Z2-7]{56})$/.exec(path);
    if (match) {
      const account = this.accounts.get(match[1]!);
      return account ? this.json(this.accountResource(account)) : this.problem(404);
    }
    return this.problem(404);
  }

  private root(): Record<string, unknown> {
    const latest = this.ledgers.at(-1);
    const closedAt = latest?.closedAt ?? this.syntheticTime(this.latestLedger);
    const links = (path: string, templated = false) => ({ href: `${this.url}${path}`, ...(templated ? { templated: true } : {}) });
    return {
      _links: {
        account: links('/accounts/{account_id}', true),
        accounts: links('/accounts{?signer,sponsor,asset,liquidity_pool,cursor,limit,order}', true),
        account_transactions: links('/accounts/{account_id}/transactions{?cursor,limit,order}', true),
        claimable_balances: links('/claimable_balances{?asset,sponsor,claimant,cursor,limit,order}', true),
        assets: links('/assets{?asset_code,asset_issuer,cursor,limit,order}', true),
        effects: links('/effects{?cursor,limit,order}', true),
        fee_stats: links('/fee_stats'),
        ledger: links('/ledgers/{sequence}', true),
        ledgers: links('/ledgers{?cursor,limit,order}', true),
        liquidity_pools: links('/liquidity_pools{?reserves,account,cursor,limit,order}', true),
        offer: links('/offers/{offer_id}', true),
        offers: links('/offers{?selling,buying,seller,sponsor,cursor,limit,order}', true),
        operation: links('/operations/{id}', true),
        operations: links('/operations{?cursor,limit,order,include_failed}', true),
        order_book: links('/order_book{?selling_asset_type,selling_asset_code,selling_asset_issuer,buying_asset_type,buying_asset_code,buying_asset_issuer,limit}', true),
        payments: links('/payments{?cursor,limit,order,include_failed}', true),
        self: links('/'),
        strict_receive_paths: links(
          '/paths/strict-receive{?source_assets,source_account,destination_account,destination_asset_type,destination_asset_issuer,destination_asset_code,destination_amount}',
          true,
        ),
        strict_send_paths: links('/paths/strict-send{?destination_account,destination_assets,source_asset_type,source_asset_issuer,source_asset_code,source_amount}', true),
        trade_aggregations: links(
          '/trade_aggregations?base_asset_type={base_asset_type}&base_asset_code={base_asset_code}&base_asset_issuer={base_asset_issuer}&counter_asset_type={counter_asset_type}&counter_asset_code={counter_asset_code}&counter_asset_issuer={counter_asset_issuer}',
          true,
        ),
        trades: links(
          '/trades?base_asset_type={base_asset_type}&base_asset_code={base_asset_code}&base_asset_issuer={base_asset_issuer}&counter_asset_type={counter_asset_type}&counter_asset_code={counter_asset_code}&counter_asset_issuer={counter_asset_issuer}',
          true,
        ),
        transaction: links('/transactions/{hash}', true),
        transactions: links('/transactions{?cursor,limit,order}', true),
      },
      horizon_version: '25.0.0-test',
      core_version: 'stellar-core 23.0.0 (test)',
      ingest_latest_ledger: this.latestLedger,
      history_latest_ledger: this.latestLedger,
      history_latest_ledger_closed_at: rfc3339(closedAt - this.stalledMs),
      history_elder_ledger: this.elder,
      core_latest_ledger: this.latestLedger,
      network_passphrase: this.passphrase,
      current_protocol_version: 23,
      supported_protocol_version: 23,
      core_supported_protocol_version: 23,
    };
  }

  /** A ledger before the first one closed here: ~5.5 s apart, the last at `historyEndsAt`. */
  private syntheticTime(sequence: number): number {
    return this.historyEndsAt - (this.first - 1 - sequence) * LEDGER_MS;
  }

  private ledgerAnswer(sequence: number): { status: number; body: string; type?: string } {
    if (sequence < this.elder) return this.problem(410);
    if (sequence > this.latestLedger) return this.problem(404);
    const ledger = this.ledgers.find((candidate) => candidate.sequence === sequence);
    const closedAt = ledger?.closedAt ?? this.syntheticTime(sequence);
    const ledgerHash = ledger?.hash ?? this.syntheticHash(sequence);
    const txs = ledger?.txs ?? [];
    const self = `${this.url}/ledgers/${sequence}`;
    const succeeded = txs.filter((tx) => tx.successful);
    return this.json({
      _links: {
        self: { href: self },
        transactions: { href: `${self}/transactions{?cursor,limit,order}`, templated: true },
        operations: { href: `${self}/operations{?cursor,limit,order}`, templated: true },
        payments: { href: `${self}/payments{?cursor,limit,order}`, templated: true },
        effects: { href: `${self}/effects{?cursor,limit,order}`, templated: true },
      },
      id: ledgerHash,
      paging_token: toid(sequence, 0, 0).toString(),
      hash: ledgerHash,
      prev_hash: ledger?.prevHash ?? this.syntheticHash(sequence - 1),
      sequence,
      successful_transaction_count: succeeded.length,
      failed_transaction_count: txs.length - succeeded.length,
      operation_count: succeeded.reduce((sum, tx) => sum + tx.operations.length, 0),
      tx_set_operation_count: txs.reduce((sum, tx) => sum + tx.operations.length, 0),
      closed_at: rfc3339(closedAt),
      total_coins: '105443902087.3472865',
      fee_pool: '0.0000000',
      base_fee_in_stroops: 100,
      base_reserve_in_stroops: 5000000,
      max_tx_set_size: 1000,
      protocol_version: 23,
      header_xdr: ledger?.headerXdr ?? '',
    });
  }

  /** Every payment-class operation of the network, oldest first, with the transaction it is in. */
  private payments(includeFailed: boolean): { id: bigint; applied: Applied; index: number }[] {
    return this.ledgers.flatMap((ledger) =>
      ledger.txs
        .filter((tx) => includeFailed || tx.successful)
        .flatMap((tx) => tx.operations.flatMap((op, i) => (op.payment ? [{ id: toid(ledger.sequence, tx.index, i + 1), applied: tx, index: i }] : []))),
    );
  }

  private operationsOf(applied: Applied): { id: bigint; applied: Applied; index: number }[] {
    return applied.operations.flatMap((op, i) => (op.payment ? [{ id: toid(applied.ledger, applied.index, i + 1), applied, index: i }] : []));
  }

  /** A HAL page of operation records after the cursor, as Horizon pages them (its limits and cursor rules). */
  private page(url: URL, all: { id: bigint; applied: Applied; index: number }[]): { status: number; body: string; type?: string } {
    const params = url.searchParams;
    const order = params.get('order') ?? 'asc';
    const limitText = params.get('limit') ?? '10';
    const limit = Number(limitText);
    if (order !== 'asc' && order !== 'desc') return this.problem(400, 'order', 'order: invalid value');
    if (!/^\d+$/.test(limitText) || limit < 1 || limit > 200) return this.problem(400, 'limit', 'limit must be between 1 and 200');
    let cursorText = params.get('cursor') ?? '';
    if (cursorText === 'now') cursorText = toid(this.latestLedger, 4095, 4095).toString();
    if (cursorText !== '' && !/^\d{1,19}$/.test(cursorText)) return this.problem(400, 'cursor', 'cursor: invalid value');
    let cursor = cursorText === '' ? undefined : BigInt(cursorText);
    // Horizon: an ascending read from before its history starts at its oldest ledger.
    if (order === 'asc' && (cursor === undefined || cursor <= toid(this.elder, 0, 0))) cursor = toid(this.elder - 1, 4095, 4095);
    const join = params.get('join');
    if (join !== null && join !== 'transactions') return this.problem(400, 'join', 'Accepted values: transactions');
    const ordered = order === 'asc' ? all : [...all].reverse();
    const selected = ordered.filter(({ id }) => cursor === undefined || (order === 'asc' ? id > cursor : id < cursor)).slice(0, limit);
    const records = selected.map((item) => this.operationRecord(item, join === 'transactions'));
    const self = new URL(url.toString().replace('http://horizon.local', this.url));
    self.searchParams.set('cursor', cursorText);
    self.searchParams.set('order', order);
    self.searchParams.set('limit', String(limit));
    const next = new URL(self);
    if (records.length > 0) next.searchParams.set('cursor', records.at(-1)!.paging_token as string);
    const prev = new URL(self);
    prev.searchParams.set('order', order === 'asc' ? 'desc' : 'asc');
    if (records.length > 0) prev.searchParams.set('cursor', records[0]!.paging_token as string);
    return this.json({ _links: { self: { href: self.toString() }, next: { href: next.toString() }, prev: { href: prev.toString() } }, _embedded: { records } });
  }

  /** An operation record as Horizon writes it: the base fields, then the operation's own. */
  private operationRecord({ id, applied, index }: { id: bigint; applied: Applied; index: number }, join: boolean): Record<string, unknown> {
    const op = applied.operations[index]!;
    const ledger = this.ledgers.find((candidate) => candidate.sequence === applied.ledger)!;
    const self = `${this.url}/operations/${id}`;
    const source = parseMuxed(op.source);
    return {
      _links: {
        self: { href: self },
        transaction: { href: `${this.url}/transactions/${applied.hash}` },
        effects: { href: `${self}/effects` },
        succeeds: { href: `${this.url}/effects?order=desc&cursor=${id}` },
        precedes: { href: `${this.url}/effects?order=asc&cursor=${id}` },
      },
      id: id.toString(),
      paging_token: id.toString(),
      transaction_successful: applied.successful,
      source_account: source?.account ?? op.source,
      ...(source ? { source_account_muxed: op.source, source_account_muxed_id: source.id } : {}),
      type: op.type,
      type_i: op.typeI,
      created_at: rfc3339(ledger.closedAt),
      transaction_hash: applied.hash,
      ...(join ? { transaction: this.transactionResource(applied) } : {}),
      ...op.details,
    };
  }

  /** A transaction as Horizon writes it (resourceadapter/transaction.go). */
  private transactionResource(applied: Applied): Record<string, unknown> {
    const { tx } = applied;
    const ledger = this.ledgers.find((candidate) => candidate.sequence === applied.ledger)!;
    const pagingToken = toid(applied.ledger, applied.index, 0).toString();
    const self = `${this.url}/transactions/${applied.hash}`;
    const memo = tx.memo;
    const memoValue =
      memo.value === null
        ? undefined
        : memo.type === 'hash' || memo.type === 'return'
          ? Buffer.from(memo.value as Buffer).toString('base64')
          : Buffer.isBuffer(memo.value)
            ? memo.value.toString('utf8')
            : String(memo.value);
    const timeBounds = tx.timeBounds;
    return {
      _links: {
        self: { href: self },
        account: { href: `${this.url}/accounts/${tx.source}` },
        ledger: { href: `${this.url}/ledgers/${applied.ledger}` },
        operations: { href: `${self}/operations{?cursor,limit,order}`, templated: true },
        effects: { href: `${self}/effects{?cursor,limit,order}`, templated: true },
        precedes: { href: `${this.url}/transactions?order=asc&cursor=${pagingToken}` },
        succeeds: { href: `${this.url}/transactions?order=desc&cursor=${pagingToken}` },
        transaction: { href: self },
      },
      id: applied.hash,
      paging_token: pagingToken,
      successful: applied.successful,
      hash: applied.hash,
      ledger: applied.ledger,
      created_at: rfc3339(ledger.closedAt),
      source_account: tx.source,
      source_account_sequence: tx.sequence,
      fee_account: tx.source,
      fee_charged: applied.feeCharged.toString(),
      max_fee: tx.fee,
      operation_count: tx.operations.length,
      envelope_xdr: applied.envelopeXdr,
      result_xdr: applied.resultXdr,
      // An empty LedgerEntryChanges: the fee's changes are not modelled.
      fee_meta_xdr: 'AAAAAA==',
      memo_type: memo.type,
      ...(memo.type === 'text' ? { memo_bytes: Buffer.from(memoValue ?? '', 'utf8').toString('base64') } : {}),
      // Horizon leaves an empty memo out (omitempty) and strips NUL bytes from a text memo.
      ...(memoValue ? { memo: memo.type === 'text' ? memoValue.replaceAll('\u0000', '') : memoValue } : {}),
      signatures: tx.signatures.map((signature) => signature.signature().toString('base64')),
      ...(timeBounds ? { preconditions: { timebounds: { min_time: timeBounds.minTime, ...(timeBounds.maxTime !== '0' ? { max_time: timeBounds.maxTime } : {}) } } } : {}),
    };
  }

  /** An account as Horizon writes it (protocols/horizon Account, Balance): trustlines first, XLM last. */
  private accountResource(account: AccountState): Record<string, unknown> {
    const self = `${this.url}/accounts/${account.id}`;
    const paged = (path: string) => ({ href: `${self}/${path}{?cursor,limit,order}`, templated: true });
    return {
      _links: {
        self: { href: self },
        transactions: paged('transactions'),
        operations: paged('operations'),
        payments: paged('payments'),
        effects: paged('effects'),
        offers: paged('offers'),
        trades: paged('trades'),
        data: { href: `${self}/data/{key}`, templated: true },
      },
      id: account.id,
      account_id: account.id,
      sequence: account.sequence.toString(),
      subentry_count: account.lines.size,
      last_modified_ledger: account.lastModified,
      last_modified_time: rfc3339(this.ledgers.find((ledger) => ledger.sequence === account.lastModified)?.closedAt ?? this.syntheticTime(account.lastModified)),
      thresholds: { low_threshold: 0, med_threshold: 0, high_threshold: 0 },
      flags: { auth_required: false, auth_revocable: false, auth_immutable: false, auth_clawback_enabled: false },
      balances: [
        ...[...account.lines.values()].map((line) => ({
          balance: amountString(line.balance),
          limit: amountString(line.limit),
          buying_liabilities: '0.0000000',
          selling_liabilities: '0.0000000',
          last_modified_ledger: line.lastModified,
          is_authorized: line.authorized,
          is_authorized_to_maintain_liabilities: line.authorized,
          asset_type: line.asset.getAssetType(),
          asset_code: line.asset.getCode(),
          asset_issuer: line.asset.getIssuer(),
        })),
        { balance: amountString(account.native), buying_liabilities: '0.0000000', selling_liabilities: '0.0000000', asset_type: 'native' },
      ],
      signers: [{ weight: 1, key: account.id, type: 'ed25519_public_key' }],
      data: {},
      num_sponsoring: 0,
      num_sponsored: 0,
      paging_token: account.id,
    };
  }

  private json(body: unknown): { status: number; body: string; type: string } {
    return { status: 200, body: JSON.stringify(body), type: 'application/hal+json; charset=utf-8' };
  }

  /** A problem+json document as Horizon writes one (support/render/problem). */
  private problem(status: 400 | 404 | 410, field?: string, reason?: string): { status: number; body: string; type: string } {
    const problems = {
      400: { type: 'bad_request', title: 'Bad Request', detail: 'The request you sent was invalid in some way.' },
      404: {
        type: 'not_found',
        title: 'Resource Missing',
        detail:
          'The resource at the url requested was not found.  This usually occurs for one of two reasons:  The url requested is not valid, or no data in our database could be found with the parameters provided.',
      },
      410: {
        type: 'before_history',
        title: 'Data Requested Is Before Recorded History',
        detail:
          "This horizon instance is configured to only track a portion of the stellar network's latest history. This request is asking for results prior to the recorded history known to this horizon instance.",
      },
    }[status];
    return {
      status,
      body: JSON.stringify({
        type: `https://stellar.org/horizon-errors/${problems.type}`,
        title: problems.title,
        status,
        detail: problems.detail,
        ...(field ? { extras: { invalid_field: field, reason } } : {}),
      }),
      type: 'application/problem+json; charset=utf-8',
    };
  }
}

/** Horizon's operation type names and numbers (operations.TypeNames, xdr.OperationType). */
function operationKind(type: string): { type: string; typeI: number; payment: boolean } {
  const kinds: Record<string, { type: string; typeI: number; payment: boolean }> = {
    payment: { type: 'payment', typeI: 1, payment: true },
    pathPaymentStrictReceive: { type: 'path_payment_strict_receive', typeI: 2, payment: true },
    pathPaymentStrictSend: { type: 'path_payment_strict_send', typeI: 13, payment: true },
    // In `/payments` only when it moved an asset (decided when it runs).
    invokeHostFunction: { type: 'invoke_host_function', typeI: 24, payment: false },
  };
  // Anything else fails here (op_not_supported) and is not a payment.
  return kinds[type] ?? { type: 'unknown', typeI: -1, payment: false };
}

/** An ScVal's arm as Horizon names a parameter's type (xdr.ScVal ArmForSwitch: `Address`, `Sym`, `I128`, ...). */
function scValArm(value: xdr.ScVal): string {
  const arms: Record<string, string> = { scvAddress: 'Address', scvSymbol: 'Sym', scvI128: 'I128', scvU64: 'U64', scvBool: 'B', scvString: 'Str', scvBytes: 'Bytes' };
  return arms[value.switch().name] ?? 'n/a';
}

/** A request's route, for counting. */
function route(path: string): string {
  const clean = path.replace(/\/+$/, '') || '/';
  return clean
    .replace(/^\/transactions\/[0-9a-fA-F]{64}/, '/transactions/:hash')
    .replace(/^\/ledgers\/\d+/, '/ledgers/:sequence')
    .replace(/^\/accounts\/[A-Z2-7]{56}/, '/accounts/:id');
}

/** Circle's USDC on mainnet. */
export const USDC = new Asset('USDC', CIRCLE_USDC_ISSUER);
