/**
 * A local TRON for tests, speaking TronGrid's and java-tron's documented JSON:
 *
 * - `POST /jsonrpc` `eth_getLogs` as java-tron's JSON-RPC answers it
 *   (framework/.../jsonrpc/TronJsonRpc.java LogFilterElement, LogFilterWrapper, LogFilter):
 *   fromBlock/toBlock as hex or a tag (`latest` the head, `finalized` the solid block,
 *   `earliest`), `address` 0x + the contract's 20 bytes (or a list), `topics` up to 4 positions
 *   of null, a topic or a list of topics (at most `maxSubTopics`); a range whose
 *   `min(toBlock, head) - fromBlock` exceeds `maxBlockRange` is refused with -32602 "exceed
 *   max block range: N", more than 10,000 results with -32005. Each log has address, topics,
 *   data (0x hex), blockNumber, blockHash, transactionHash, transactionIndex, logIndex (its
 *   place in the block) and removed. Like a full node it serves blocks not yet solidified;
 * - `POST /walletsolidity/gettransactioninfobyid {value}`: id, blockNumber, blockTimeStamp,
 *   contract_address, receipt.result, log[] (address and topics in hex without 0x), or {}
 *   while the transaction is not solidified;
 * - `POST /walletsolidity/getnowblock`: the newest solidified block;
 * - `POST /wallet/getblockbynum {num}`: a block's header (number, timestamp), block 0 as
 *   java-tron answers it (`blockID`, and a `block_header.raw_data` without `number`: protobuf's
 *   JSON leaves zero fields out), {} for a block it does not have. The genesis is mainnet's
 *   unless a test sets `genesisBlockId`.
 *
 * Transactions are real: signed TriggerSmartContract transactions built with tronweb (TRON's
 * SDK) from a real private key. The server checks each as a node would: its raw_data encodes
 * to its raw_data_hex (protobuf, by tronweb), txID is the SHA-256 of those bytes, and the
 * signature recovers to the owner's address (secp256k1, by @noble). It then runs the call: a
 * `transfer(address,uint256)` (selector a9059cbb) of a known TRC-20 contract emits its Transfer
 * log (extra call data is ignored, as the EVM does), anything else fails. The test plays the
 * chain: `send` puts a transaction in a new block, `sendBlock` several in one (at a time it
 * chooses), `solidify()` makes what was sent final.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { TronWeb, utils as tron } from 'tronweb';
import { tronAddressFromHex, tronAddressOfPublicKey, tronHex } from '#shared/payments/addresses/tron';
import { type FaultyServer, startFaultyServer } from './chain-http';

export interface Trc20Token {
  address: string;
  symbol: string;
  name: string;
  decimals: number;
}

/** A signed TRON transaction as TronGrid and tronweb write it. */
export interface SignedTronTransaction {
  txID: string;
  raw_data: { contract: { parameter: { value: Record<string, unknown>; type_url: string }; type: string }[]; timestamp: number; [key: string]: unknown };
  raw_data_hex: string;
  signature: string[];
  visible: boolean;
}

interface Mined {
  tx: SignedTronTransaction;
  block: number;
  /** Its place in the block. */
  index: number;
  time: number;
  solid: boolean;
  success: boolean;
  contract: string;
  /** The transfer the call asks for (what a lying index may claim). */
  call?: { from: string; to: string; value: bigint };
  /** The Transfer event the contract emitted: only when the call succeeded. */
  log?: { from: string; to: string; value: bigint };
}

const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** java-tron's cap on one eth_getLogs answer (LogBlockQuery.MAX_RESULT). */
const MAX_RESULT = 10_000;

/**
 * Block 0's blockID on TRON's networks, written here apart from the service's own constants so a
 * wrong one there fails the tests: ChainAgnostic's CAIP-2 profile of TRON (tron/caip2.md), whose
 * chain ids (their last 4 bytes) TIP-474 gives (mainnet 0x2b6653dc).
 */
export const TRON_MAINNET_GENESIS = '00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc';
export const TRON_SHASTA_GENESIS = '0000000000000000de1aa88295e1fcf982742f773e0419c5a9c134c994a9059e';
export const TRON_NILE_GENESIS = '0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc';

/** The TRON address of a private key (hex), by tronweb. */
export const tronAddressOfKey = (privateKey: string): string => TronWeb.address.fromPrivateKey(privateKey) as string;

/**
 * A signed TRC-20 `transfer(to, units)` from the key's account, built and signed with tronweb
 * offline (as a wallet does). `extra` is appended to the call data.
 */
export function signedTrc20Transfer(privateKey: string, contract: string, to: string, units: bigint, options: { extra?: string; time?: number } = {}): SignedTronTransaction {
  const time = options.time ?? Date.now();
  const data = `a9059cbb${'0'.repeat(24)}${tronHex(to).slice(2)}${units.toString(16).padStart(64, '0')}${options.extra ?? ''}`;
  const raw_data = {
    contract: [
      {
        parameter: { value: { data, owner_address: tronHex(tronAddressOfKey(privateKey)), contract_address: tronHex(contract) }, type_url: 'type.googleapis.com/protocol.TriggerSmartContract' },
        type: 'TriggerSmartContract',
      },
    ],
    ref_block_bytes: '0000',
    ref_block_hash: '0000000000000000',
    expiration: time + 60_000,
    timestamp: time,
    fee_limit: 100_000_000,
  };
  const tx = { visible: false, txID: '', raw_data, raw_data_hex: '' };
  const pb = tron.transaction.txJsonToPb(tx);
  tx.txID = tron.transaction.txPbToTxID(pb).replace(/^0x/, '');
  tx.raw_data_hex = tron.transaction.txPbToRawDataHex(pb);
  return tron.crypto.signTransaction(privateKey, tx) as unknown as SignedTronTransaction;
}

export class TronGridTestServer {
  readonly mined: Mined[] = [];
  /**
   * Transfers the event list shows as paying an address although the transaction did not (a
   * lying or buggy source): a Transfer log to that address, the value the call's.
   */
  readonly misindexed: { address: string; txid: string }[] = [];
  /** The network this server is: its block 0's blockID (a test sets a testnet's). */
  genesisBlockId = TRON_MAINNET_GENESIS;
  /**
   * How old getnowblock says the newest solidified block is (a test sets a stuck node's);
   * undefined: that block's own time (the blocks' times then agree with the head's).
   */
  solidHeadAgeMs: number | undefined = 57_000;
  /** eth_getLogs: the largest `toBlock - fromBlock` taken (java-tron's node.jsonrpc.maxBlockRange; hosted plans cap lower). */
  maxBlockRange = 5000;
  /** eth_getLogs: the most topics one position may list (node.jsonrpc.maxSubTopics). */
  maxSubTopics = 1000;
  private server: FaultyServer | undefined;
  /** The head: the newest block (each `send` makes one). */
  private block = 70_000_000;
  /** The newest solidified block: about 19 blocks of 3 s behind the head until `solidify`. */
  private solid = 70_000_000 - 19;
  /** The times of the blocks made here; those before are 3 s apart, ending at the server's start. */
  private readonly times = new Map<number, number>();
  private readonly startedAt = Date.now();
  private readonly firstBlock = 70_000_000;

  constructor(
    private readonly tokens: readonly Trc20Token[],
    private readonly apiKey?: string,
  ) {}

  get url(): string {
    return this.server!.url;
  }

  /** Requests answered, by path (`eth_getLogs` for the JSON-RPC's). */
  get requests(): Map<string, number> {
    return this.server!.requests;
  }

  /** The newest solidified block's number. */
  get solidHeight(): number {
    return this.solid;
  }

  async start(): Promise<this> {
    this.server = await startFaultyServer(
      (request, body) => this.answer(request.method ?? 'GET', new URL(request.url ?? '/', 'http://trongrid'), body, request.headers['tron-pro-api-key']),
      (request, body) => {
        const path = new URL(request.url ?? '/', 'http://trongrid').pathname;
        if (path !== '/jsonrpc') return path;
        try {
          return String((JSON.parse(body) as { method?: unknown }).method);
        } catch {
          return path;
        }
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

  /** Checks and runs a signed transaction as a node does; it is in a new block, not yet solidified. */
  send(tx: SignedTronTransaction): Mined {
    return this.sendBlock([tx])[0]!;
  }

  /** Checks and runs signed transactions in one new block made at `time` (default: now, after the previous block). */
  sendBlock(txs: readonly SignedTronTransaction[], time = Math.max(Date.now(), this.timeOf(this.block) + 1)): Mined[] {
    const block = (this.block += 1);
    this.times.set(block, time);
    const mined = txs.map((tx, index) => this.run(tx, block, index, time));
    this.mined.push(...mined);
    return mined;
  }

  /** Everything sent so far (or up to block `upTo`) becomes solidified (19 of 27 super representatives built on it). */
  solidify(upTo = this.block): void {
    for (const mined of this.mined) if (mined.block <= upTo) mined.solid = true;
    this.solid = Math.max(this.solid, Math.min(upTo, this.block));
  }

  /** The head: the newest block. */
  get height(): number {
    return this.block;
  }

  /** A block's time: its own when made here, else 3 s per block before the server started. */
  timeOf(block: number): number {
    return this.times.get(block) ?? this.startedAt - (this.firstBlock - block) * 3000;
  }

  private run(tx: SignedTronTransaction, block: number, index: number, time: number): Mined {
    const encoded = tron.transaction.txPbToRawDataHex(tron.transaction.txJsonToPb({ raw_data: tx.raw_data } as never));
    if (encoded !== tx.raw_data_hex) throw new Error('raw_data does not encode to raw_data_hex');
    const txid = bytesToHex(sha256(hexToBytes(tx.raw_data_hex)));
    if (txid !== tx.txID) throw new Error('txID is not the SHA-256 of raw_data');
    const [contract] = tx.raw_data.contract;
    const value = contract!.parameter.value as { owner_address: string; contract_address: string; data: string };
    const signature = hexToBytes(tx.signature[0]!);
    const recovery = signature[64]! >= 27 ? signature[64]! - 27 : signature[64]!;
    const recovered = secp256k1.Signature.fromBytes(signature.subarray(0, 64), 'compact').addRecoveryBit(recovery).recoverPublicKey(hexToBytes(txid)).toBytes(true);
    const owner = tronAddressFromHex(value.owner_address)!;
    if (tronAddressOfPublicKey(recovered) !== owner) throw new Error("signature is not the owner's");
    const token = this.tokens.find((t) => tronHex(t.address) === value.contract_address);
    const call = value.data;
    const isTransfer = contract!.type === 'TriggerSmartContract' && token !== undefined && call.startsWith('a9059cbb') && call.length >= 8 + 128;
    const asked = isTransfer ? { from: owner, to: tronAddressFromHex(`41${call.slice(32, 72)}`)!, value: BigInt(`0x${call.slice(72, 136)}`) } : undefined;
    return {
      tx,
      block,
      index,
      time,
      solid: false,
      success: isTransfer,
      contract: tronAddressFromHex(value.contract_address)!,
      ...(asked ? { call: asked, log: asked } : {}),
    };
  }

  private answer(method: string, url: URL, body: string, apiKey: string | string[] | undefined) {
    if (this.apiKey !== undefined && apiKey !== this.apiKey) return json(401, { success: false, error: 'ApiKey not exists' });
    if (method === 'POST' && url.pathname === '/jsonrpc') return this.jsonRpc(body);
    if (url.pathname === '/wallet/getblockbynum') {
      const num = method === 'POST' ? (JSON.parse(body || '{}') as { num?: number }).num : Number(url.searchParams.get('num'));
      return json(200, num === 0 ? this.genesis() : typeof num === 'number' && num > 0 && num <= this.block ? this.header(num, this.timeOf(num)) : {});
    }
    if (method === 'POST' && url.pathname === '/walletsolidity/getnowblock') {
      return json(200, this.header(this.solid, this.solidHeadAgeMs === undefined ? this.timeOf(this.solid) : Date.now() - this.solidHeadAgeMs));
    }
    if (method === 'POST' && url.pathname === '/walletsolidity/gettransactioninfobyid') {
      const txid = (JSON.parse(body) as { value?: string }).value;
      const mined = this.mined.find((m) => m.tx.txID === txid && m.solid);
      return json(200, mined ? this.info(mined) : {});
    }
    return json(404, { success: false, error: 'not found' });
  }

  /** A block as java-tron answers it (getnowblock, getblockbynum); the roots and signature stand in for real ones. */
  private header(number: number, timestamp: number) {
    return {
      blockID: blockId(number),
      block_header: {
        raw_data: { number, txTrieRoot: '0'.repeat(64), witness_address: '41' + '0'.repeat(40), parentHash: blockId(number - 1), version: 31, timestamp },
        witness_signature: '0'.repeat(130),
      },
    };
  }

  private genesis() {
    return {
      blockID: this.genesisBlockId,
      block_header: {
        // No number and no timestamp (both 0); the roots stand in for the real ones.
        raw_data: { txTrieRoot: '0'.repeat(64), parentHash: '0'.repeat(64) },
      },
      transactions: [],
    };
  }

  private jsonRpc(body: string) {
    const request = JSON.parse(body) as { id?: unknown; method?: unknown; params?: unknown[] };
    const answer = (result: unknown) => json(200, { jsonrpc: '2.0', id: request.id, result });
    const error = (code: number, message: string) => json(200, { jsonrpc: '2.0', id: request.id, error: { code, message, data: '{}' } });
    if (request.method !== 'eth_getLogs') return error(-32601, `method ${String(request.method)} does not exist/is not available`);
    const filter = (request.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string; address?: string | string[]; topics?: (string | string[] | null)[] };
    const number = (tag: string | undefined, missing: number): number => {
      if (tag === undefined || tag === 'latest') return missing;
      if (tag === 'earliest') return 0;
      if (tag === 'finalized') return this.solid;
      if (!/^0x[0-9a-f]+$/i.test(tag)) throw new RangeError('Incorrect hex syntax');
      return Number.parseInt(tag.slice(2), 16);
    };
    let from: number;
    let to: number;
    try {
      from = number(filter.fromBlock, this.block);
      to = number(filter.toBlock, Number.MAX_SAFE_INTEGER);
    } catch (e) {
      return error(-32602, (e as Error).message);
    }
    if (from > to) return error(-32602, 'please verify: fromBlock <= toBlock');
    if (this.maxBlockRange > 0 && Math.min(to, this.block) - from > this.maxBlockRange) return error(-32602, `exceed max block range: ${this.maxBlockRange}`);
    const word = (hex: string) => hex.replace(/^0x/i, '').toLowerCase().padStart(64, '0');
    const addresses = (filter.address === undefined ? [] : Array.isArray(filter.address) ? filter.address : [filter.address]).map((a) => a.replace(/^0x/i, '').toLowerCase());
    if (addresses.some((a) => !/^[0-9a-f]{40}$/.test(a))) return error(-32602, 'invalid address');
    const topics = filter.topics ?? [];
    if (topics.length > 4) return error(-32602, 'topics size should be <= 4');
    if (topics.some((t) => Array.isArray(t) && t.length > this.maxSubTopics)) return error(-32602, `exceed max topics: ${this.maxSubTopics}`);
    const wanted = topics.map((t) => (t === null ? undefined : (Array.isArray(t) ? t : [t]).map(word)));
    const matches = (log: { address: string; topics: string[] }) =>
      (addresses.length === 0 || addresses.includes(log.address)) && wanted.every((or, i) => or === undefined || (log.topics[i] !== undefined && or.includes(log.topics[i]!)));
    const logs: { m: Mined; log: { address: string; topics: string[]; data: string }; logIndex: number }[] = [];
    // logIndex counts every log of the block, matched or not (LogMatch.matchBlock).
    const inBlock = new Map<number, number>();
    const range = this.mined.filter((m) => m.block >= from && m.block <= Math.min(to, this.block)).sort((a, b) => a.block - b.block || a.index - b.index);
    for (const m of range) {
      for (const log of this.logsOf(m)) {
        const logIndex = inBlock.get(m.block) ?? 0;
        inBlock.set(m.block, logIndex + 1);
        if (matches(log)) logs.push({ m, log, logIndex });
      }
    }
    if (logs.length > MAX_RESULT) return error(-32005, `query returned more than ${MAX_RESULT} results`);
    return answer(
      logs.map(({ m, log, logIndex }) => ({
        address: `0x${log.address}`,
        blockHash: `0x${blockId(m.block)}`,
        blockNumber: `0x${m.block.toString(16)}`,
        data: `0x${log.data}`,
        logIndex: `0x${logIndex.toString(16)}`,
        removed: false,
        topics: log.topics.map((t) => `0x${t}`),
        transactionHash: `0x${m.tx.txID}`,
        transactionIndex: `0x${m.index.toString(16)}`,
      })),
    );
  }

  /** The logs a transaction shows: its Transfer event when the call succeeded, and the one a lying source adds. */
  private logsOf(mined: Mined): { address: string; topics: string[]; data: string }[] {
    const contract = tronHex(mined.contract).slice(2).toLowerCase();
    const transfer = (t: { from: string; to: string; value: bigint }) => ({
      address: contract,
      topics: [TRANSFER_TOPIC, `${'0'.repeat(24)}${tronHex(t.from).slice(2)}`, `${'0'.repeat(24)}${tronHex(t.to).slice(2)}`],
      data: t.value.toString(16).padStart(64, '0'),
    });
    const lies = this.misindexed.filter((x) => x.txid === mined.tx.txID && mined.call).map((x) => transfer({ ...mined.call!, to: x.address }));
    return [...(mined.log ? [transfer(mined.log)] : []), ...lies];
  }

  private info(mined: Mined) {
    const contractHex = tronHex(mined.contract);
    return {
      id: mined.tx.txID,
      fee: 0,
      blockNumber: mined.block,
      blockTimeStamp: mined.time,
      contractResult: [mined.success ? '0'.repeat(63) + '1' : ''],
      contract_address: contractHex,
      receipt: { energy_usage_total: 29_631, result: mined.success ? 'SUCCESS' : 'REVERT' },
      ...(mined.log
        ? {
            log: [
              {
                address: contractHex.slice(2),
                topics: [TRANSFER_TOPIC, `${'0'.repeat(24)}${tronHex(mined.log.from).slice(2)}`, `${'0'.repeat(24)}${tronHex(mined.log.to).slice(2)}`],
                data: mined.log.value.toString(16).padStart(64, '0'),
              },
            ],
          }
        : {}),
    };
  }
}

/** A block's id as TRON makes it: its number in the first 8 bytes, then 24 bytes of its hash (here the SHA-256 of the number). */
const blockId = (number: number): string => number.toString(16).padStart(16, '0') + bytesToHex(sha256(new TextEncoder().encode(String(number)))).slice(16);

const json = (status: number, value: unknown) => ({ status, body: JSON.stringify(value), type: 'application/json' });
