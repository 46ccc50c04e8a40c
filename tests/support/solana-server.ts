/**
 * A local Solana cluster for tests, speaking the JSON-RPC API the Solana watcher uses
 * (getGenesisHash, getSignaturesForAddress, getTransaction with encoding "json"), with
 * `commitment` honoured: a transaction is "confirmed" when sent and "finalized" only after
 * `finalize()`.
 *
 * Transactions are real: wire transactions built and signed with @solana/kit (Solana's SDK) and
 * the SPL Token program's client. The server checks each as a validator would: it reads the
 * wire format (signatures, then the legacy message: header, account keys, blockhash, compiled
 * instructions), verifies every required signature over the message with ed25519 (@noble),
 * and runs the Token program's Transfer (3) and TransferChecked (12) against its token
 * accounts (owner, mint and decimals checked; a failed instruction fails the transaction and
 * moves nothing). Its answers carry pre/post token balances as a node's do.
 *
 * Both token programs run here: the SPL Token program (USDC) and Token-2022 (PayPal's PYUSD),
 * whose Transfer and TransferChecked instructions have the same layout. A mint belongs to one
 * program (registered with {@link SolanaTestServer.mint}); its token accounts are derived and
 * owned by that program, an instruction of the other program on them fails with
 * IncorrectProgramId, and each balance names its program (`programId`) as a node's does.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  AccountRole,
  address as kitAddress,
  appendTransactionMessageInstruction,
  blockhash,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { type FaultyServer, startFaultyServer } from './chain-http';

/**
 * The public clusters' genesis hashes, written here apart from the service's own constants so a
 * wrong one there fails the tests (gill's GENESIS_HASH, the Solana Explorer's GENESIS_HASHES).
 */
export const MAINNET_BETA_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
export const DEVNET_GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';
export const TESTNET_GENESIS_HASH = '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY';

/** The Token-2022 program (Token Extensions), written here apart from the service's constant. */
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/**
 * A wallet's Solana Pay transfer as its wire bytes (base64), built and signed with @solana/kit as a
 * wallet does from the QR code: TransferChecked of `units` of `mint` from the buyer's associated
 * token account to `to`'s, the reference as a read-only account of the instruction. `program`:
 * the mint's token program (Token-2022 for PYUSD), whose id derives the accounts and runs the
 * instruction.
 */
export async function solanaPayTransfer(buyer: KeyPairSigner, to: string, units: bigint, reference: string, mint: string, decimals = 6, program: string = TOKEN_PROGRAM_ADDRESS): Promise<string> {
  const tokenProgram = kitAddress(program);
  const [from] = await findAssociatedTokenPda({ owner: buyer.address, mint: kitAddress(mint), tokenProgram });
  const [dest] = await findAssociatedTokenPda({ owner: kitAddress(to), mint: kitAddress(mint), tokenProgram });
  const transfer = getTransferCheckedInstruction({ source: from, mint: kitAddress(mint), destination: dest, authority: buyer, amount: units, decimals }, { programAddress: tokenProgram });
  const instruction = { ...transfer, accounts: [...transfer.accounts, { address: kitAddress(reference), role: AccountRole.READONLY }] };
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayerSigner(buyer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash('EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k'), lastValidBlockHeight: 1_000n }, m),
    (m) => appendTransactionMessageInstruction(instruction, m),
  );
  return getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message));
}

interface TokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
  /** The token program that owns it (its mint's). */
  program: string;
}

interface Recorded {
  signature: string;
  signatures: string[];
  slot: number;
  blockTime: number;
  message: { header: number[]; accountKeys: string[]; recentBlockhash: string; instructions: { programIdIndex: number; accounts: number[]; data: string }[] };
  err: unknown;
  pre: unknown[];
  post: unknown[];
  finalized: boolean;
}

/** Reads Solana's compact-u16 (shortvec) length at `at`; returns it and the next offset. */
function shortvec(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let shift = 0, i = at; ; shift += 7, i += 1) {
    const byte = bytes[i]!;
    value |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, i + 1];
  }
}

export class SolanaTestServer {
  readonly transactions: Recorded[] = [];
  private readonly accounts = new Map<string, TokenAccount>();
  private readonly decimals = new Map<string, number>();
  /** Each mint's token program (the SPL Token program unless registered otherwise). */
  private readonly programs = new Map<string, string>();
  private server: FaultyServer | undefined;
  private slot = 300_000_000;
  /** How old the newest finalized slot's block is (a test sets a stuck node's). */
  finalizedAgeMs = 13_000;
  /** The cluster's clock (ms): block times and the finalized head's (a test moves it with the watcher's). */
  clock: () => number = Date.now;

  /** @param genesisHash the cluster this server is (mainnet-beta by default; a test may change it while it runs). */
  constructor(public genesisHash: string = MAINNET_BETA_GENESIS_HASH) {}

  get url(): string {
    return this.server!.url;
  }

  /** Requests answered, by JSON-RPC method. */
  get requests(): Map<string, number> {
    return this.server!.requests;
  }

  async start(): Promise<this> {
    this.server = await startFaultyServer(
      (_request, body) => {
        const parsed = JSON.parse(body) as unknown;
        const answer = Array.isArray(parsed) ? parsed.map((call) => this.answer(call)) : this.answer(parsed);
        return { status: 200, body: JSON.stringify(answer) };
      },
      (_request, body) => {
        const parsed = JSON.parse(body || '{}') as { method?: string } | { method?: string }[];
        return Array.isArray(parsed) ? parsed.map((call) => call.method).join(',') : String(parsed.method);
      },
    );
    return this;
  }

  fault(...args: Parameters<FaultyServer['fault']>): void {
    this.server!.fault(...args);
  }

  async close(): Promise<void> {
    await this.server?.close();
  }

  /** A mint with its decimals, of `program` (the SPL Token program by default; Token-2022 for PYUSD). */
  mint(mint: string, decimals: number, program: string = TOKEN_PROGRAM_ADDRESS): void {
    this.decimals.set(mint, decimals);
    this.programs.set(mint, program);
  }

  /**
   * The owner's associated token account of the mint, holding `amount` base units, derived with
   * and owned by the mint's program (or `program`: a test may make an account a wallet could not).
   */
  async tokenAccount(owner: string, mint: string, amount = 0n, program: string = this.programs.get(mint) ?? TOKEN_PROGRAM_ADDRESS): Promise<string> {
    const [ata] = await findAssociatedTokenPda({ owner: kitAddress(owner), mint: kitAddress(mint), tokenProgram: kitAddress(program) });
    this.accounts.set(ata, { mint, owner, amount, program });
    return ata;
  }

  /** Checks and runs a signed wire transaction (base64), as a validator does; returns its signature. */
  send(wireBase64: string): Recorded {
    const bytes = Uint8Array.from(Buffer.from(wireBase64, 'base64'));
    const [signatureCount, afterCount] = shortvec(bytes, 0);
    const signatures = Array.from({ length: signatureCount }, (_, i) => bytes.subarray(afterCount + 64 * i, afterCount + 64 * (i + 1)));
    const messageBytes = bytes.subarray(afterCount + 64 * signatureCount);
    if (messageBytes[0]! & 0x80) throw new Error('only legacy messages here');
    const header = [messageBytes[0]!, messageBytes[1]!, messageBytes[2]!];
    let [keyCount, at] = shortvec(messageBytes, 3);
    const keys = Array.from({ length: keyCount }, (_, i) => base58.encode(messageBytes.subarray(at + 32 * i, at + 32 * (i + 1))));
    at += 32 * keyCount;
    const recentBlockhash = base58.encode(messageBytes.subarray(at, at + 32));
    at += 32;
    let instructionCount: number;
    [instructionCount, at] = shortvec(messageBytes, at);
    const instructions: Recorded['message']['instructions'] = [];
    for (let i = 0; i < instructionCount; i += 1) {
      const programIdIndex = messageBytes[at]!;
      let accountCount: number;
      [accountCount, at] = shortvec(messageBytes, at + 1);
      const accounts = [...messageBytes.subarray(at, at + accountCount)];
      at += accountCount;
      let dataLength: number;
      [dataLength, at] = shortvec(messageBytes, at);
      const data = messageBytes.subarray(at, at + dataLength);
      at += dataLength;
      instructions.push({ programIdIndex, accounts, data: base58.encode(data) });
    }
    if (signatureCount !== header[0]) throw new Error("signature count is not the header's");
    signatures.forEach((signature, i) => {
      if (!ed25519.verify(signature, messageBytes, base58.decode(keys[i]!))) throw new Error(`signature ${i} does not verify`);
    });
    const signers = new Set(keys.slice(0, header[0]));

    const tokenKeys = keys.map((key, index) => ({ key, index })).filter(({ key }) => this.accounts.has(key));
    const balances = () =>
      tokenKeys.map(({ key, index }) => {
        const account = this.accounts.get(key)!;
        const decimals = this.decimals.get(account.mint) ?? 0;
        const amount = account.amount.toString();
        return {
          accountIndex: index,
          mint: account.mint,
          owner: account.owner,
          programId: account.program,
          uiTokenAmount: { amount, decimals, uiAmount: Number(account.amount) / 10 ** decimals, uiAmountString: amount },
        };
      });
    const pre = balances();
    const snapshot = new Map([...this.accounts].map(([key, account]) => [key, { ...account }]));
    let err: unknown = null;
    instructions.forEach((instruction, index) => {
      if (err !== null) return;
      const problem = this.run(keys, signers, instruction);
      if (problem) err = { InstructionError: [index, { Custom: problem }] };
    });
    if (err !== null) for (const [key, account] of snapshot) this.accounts.set(key, account);
    const record: Recorded = {
      signature: base58.encode(signatures[0]!),
      signatures: signatures.map((s) => base58.encode(s)),
      slot: (this.slot += 1),
      blockTime: Math.floor(this.clock() / 1000),
      message: { header, accountKeys: keys, recentBlockhash, instructions },
      err,
      pre,
      post: balances(),
      finalized: false,
    };
    this.transactions.push(record);
    return record;
  }

  /** Everything sent so far is finalized (rooted by a supermajority: 32 slots on). */
  finalize(): void {
    for (const record of this.transactions) record.finalized = true;
  }

  /** Runs one instruction; a Token program error code, or 0 when it succeeded. */
  private run(keys: string[], signers: Set<string>, instruction: Recorded['message']['instructions'][number]): number {
    const program = keys[instruction.programIdIndex]!;
    if (program !== TOKEN_PROGRAM_ADDRESS && program !== TOKEN_2022_PROGRAM) return 0; // other programs: nothing to do here
    const data = base58.decode(instruction.data);
    const account = (i: number) => keys[instruction.accounts[i]!]!;
    let source: string, destination: string, authority: string, mint: string | undefined, decimals: number | undefined;
    if (data[0] === 12 && data.length === 10) {
      [source, mint, destination, authority] = [account(0), account(1), account(2), account(3)];
      decimals = data[9];
    } else if (data[0] === 3 && data.length === 9) {
      [source, destination, authority] = [account(0), account(1), account(2)];
    } else return 0xff;
    const amount = new DataView(data.buffer, data.byteOffset + 1, 8).getBigUint64(0, true);
    const from = this.accounts.get(source);
    const to = this.accounts.get(destination);
    if (!from || !to) return 0xd; // uninitialized account
    if (from.program !== program || to.program !== program) return 0x10000; // IncorrectProgramId: an account of the other token program
    if (from.owner !== authority || !signers.has(authority)) return 0x4; // owner does not match
    if (from.mint !== to.mint || (mint !== undefined && from.mint !== mint)) return 0x3; // mint mismatch
    if (decimals !== undefined && this.decimals.get(from.mint) !== decimals) return 0x12; // wrong decimals
    if (from.amount < amount) return 0x1; // insufficient funds
    from.amount -= amount;
    to.amount += amount;
    return 0;
  }

  private answer(call: unknown): Record<string, unknown> {
    const { id, method, params = [] } = call as { id: unknown; method: string; params?: unknown[] };
    const commitment = ((params[1] ?? {}) as { commitment?: string }).commitment ?? 'finalized';
    const visible = (record: Recorded) => commitment !== 'finalized' || record.finalized;
    const result = (value: unknown) => ({ jsonrpc: '2.0', id, result: value });
    switch (method) {
      case 'getGenesisHash':
        return result(this.genesisHash);
      // The newest finalized slot (32 behind the newest) and its block's time.
      case 'getSlot':
        return result(Math.max(0, this.slot - (((params[0] ?? {}) as { commitment?: string }).commitment === 'processed' ? 0 : 32)));
      case 'getBlockTime':
        return result(Math.floor((this.clock() - this.finalizedAgeMs) / 1000));
      // As a node: newest first (by slot), from just before `before` back to just after
      // `until` (both exclusive), at most `limit` (1 to 1,000); an address read as is (a wallet,
      // a token account, a reference: any account key of the transaction).
      case 'getSignaturesForAddress': {
        const address = params[0] as string;
        const { limit = 1000, before, until } = (params[1] ?? {}) as { limit?: number; before?: string; until?: string };
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return { jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid limit; max 1000' } };
        let listed = this.transactions.filter((record) => visible(record) && record.message.accountKeys.includes(address)).reverse();
        const beforeAt = before === undefined ? -1 : listed.findIndex((record) => record.signature === before);
        if (beforeAt >= 0) listed = listed.slice(beforeAt + 1);
        const untilAt = until === undefined ? -1 : listed.findIndex((record) => record.signature === until);
        if (untilAt >= 0) listed = listed.slice(0, untilAt);
        return result(
          listed.slice(0, limit).map((record) => ({
            signature: record.signature,
            slot: record.slot,
            err: record.err,
            memo: null,
            blockTime: record.blockTime,
            confirmationStatus: record.finalized ? 'finalized' : 'confirmed',
          })),
        );
      }
      case 'getTransaction': {
        const record = this.transactions.find((candidate) => candidate.signature === params[0] && visible(candidate));
        if (!record) return result(null);
        return result({
          slot: record.slot,
          blockTime: record.blockTime,
          version: 'legacy',
          transaction: {
            signatures: record.signatures,
            message: {
              header: { numRequiredSignatures: record.message.header[0], numReadonlySignedAccounts: record.message.header[1], numReadonlyUnsignedAccounts: record.message.header[2] },
              accountKeys: record.message.accountKeys,
              recentBlockhash: record.message.recentBlockhash,
              instructions: record.message.instructions.map((instruction) => ({ ...instruction, stackHeight: null })),
            },
          },
          meta: {
            err: record.err,
            status: record.err === null ? { Ok: null } : { Err: record.err },
            fee: 5000,
            preBalances: record.message.accountKeys.map(() => 0),
            postBalances: record.message.accountKeys.map(() => 0),
            innerInstructions: [],
            logMessages: [],
            preTokenBalances: record.pre,
            postTokenBalances: record.post,
            rewards: [],
            loadedAddresses: { writable: [], readonly: [] },
            computeUnitsConsumed: 6200,
          },
        });
      }
      default:
        return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
    }
  }
}
