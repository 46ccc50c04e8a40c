/**
 * A local TRON for tests, speaking TronGrid's documented JSON (REFERENCE "More networks"):
 *
 * - `GET /v1/accounts/{address}/transactions/trc20` with only_confirmed, only_to,
 *   contract_address, min_timestamp, limit (<= 200) and fingerprint: rows of transaction_id,
 *   token_info {symbol, address, decimals, name}, block_timestamp, from, to, type, value,
 *   newest first, `meta.fingerprint` when more pages follow;
 * - `POST /walletsolidity/gettransactioninfobyid {value}`: id, blockNumber, blockTimeStamp,
 *   contract_address, receipt.result, log[] (address and topics in hex without 0x), or {}
 *   while the transaction is not solidified;
 * - `POST /wallet/getblockbynum {num}`: block 0 as java-tron answers it (`blockID`, and a
 *   `block_header.raw_data` without `number`: protobuf's JSON leaves zero fields out), {} for a
 *   block it does not have. The genesis is mainnet's unless a test sets `genesisBlockId`.
 *
 * Transactions are real: signed TriggerSmartContract transactions built with tronweb (TRON's
 * SDK) from a real private key. The server checks each as a node would: its raw_data encodes
 * to its raw_data_hex (protobuf, by tronweb), txID is the SHA-256 of those bytes, and the
 * signature recovers to the owner's address (secp256k1, by @noble). It then runs the call: a
 * `transfer(address,uint256)` (selector a9059cbb) of a known TRC-20 contract emits its Transfer
 * log (extra call data is ignored, as the EVM does), anything else fails. The test plays the
 * chain: `solidify()` makes what was sent final.
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
   * Rows the index shows as paying an address although the transaction did not (a lying or
   * buggy index): `to` is that address, the value the call's.
   */
  readonly misindexed: { address: string; txid: string }[] = [];
  /** The network this server is: its block 0's blockID (a test sets a testnet's). */
  genesisBlockId = TRON_MAINNET_GENESIS;
  /** How old the newest solidified block is (a test sets a stuck node's). */
  solidHeadAgeMs = 57_000;
  private server: FaultyServer | undefined;
  private block = 70_000_000;

  constructor(
    private readonly tokens: readonly Trc20Token[],
    private readonly apiKey?: string,
  ) {}

  get url(): string {
    return this.server!.url;
  }

  get requests(): Map<string, number> {
    return this.server!.requests;
  }

  async start(): Promise<this> {
    this.server = await startFaultyServer(
      (request, body) => this.answer(request.method ?? 'GET', new URL(request.url ?? '/', 'http://trongrid'), body, request.headers['tron-pro-api-key']),
      (request) => new URL(request.url ?? '/', 'http://trongrid').pathname.replace(/\/v1\/accounts\/[^/]+\//, '/v1/accounts/{address}/'),
    );
    return this;
  }

  fault(...args: Parameters<FaultyServer['fault']>): void {
    this.server!.fault(...args);
  }

  async close(): Promise<void> {
    await this.server?.close();
  }

  /** Checks and runs a signed transaction as a node does; it is in a block, not yet solidified. */
  send(tx: SignedTronTransaction): Mined {
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
    if (tronAddressOfPublicKey(recovered) !== owner) throw new Error('signature is not the owner\'s');
    const token = this.tokens.find((t) => tronHex(t.address) === value.contract_address);
    const call = value.data;
    const isTransfer = contract!.type === 'TriggerSmartContract' && token !== undefined && call.startsWith('a9059cbb') && call.length >= 8 + 128;
    const asked = isTransfer ? { from: owner, to: tronAddressFromHex(`41${call.slice(32, 72)}`)!, value: BigInt(`0x${call.slice(72, 136)}`) } : undefined;
    const mined: Mined = {
      tx,
      block: (this.block += 1),
      time: tx.raw_data.timestamp + 3000,
      solid: false,
      success: isTransfer,
      contract: tronAddressFromHex(value.contract_address)!,
      ...(asked ? { call: asked, log: asked } : {}),
    };
    this.mined.push(mined);
    return mined;
  }

  /** Everything sent so far becomes solidified (19 of 27 super representatives built on it). */
  solidify(): void {
    for (const mined of this.mined) mined.solid = true;
  }

  private answer(method: string, url: URL, body: string, apiKey: string | string[] | undefined) {
    if (this.apiKey !== undefined && apiKey !== this.apiKey) return json(401, { success: false, error: 'ApiKey not exists' });
    const account = /^\/v1\/accounts\/([^/]+)\/transactions\/trc20$/.exec(url.pathname);
    if (method === 'GET' && account) return this.trc20(decodeURIComponent(account[1]!), url.searchParams);
    if (url.pathname === '/wallet/getblockbynum') {
      const num = method === 'POST' ? (JSON.parse(body || '{}') as { num?: number }).num : Number(url.searchParams.get('num'));
      return json(200, num === 0 ? this.genesis() : {});
    }
    if (method === 'POST' && url.pathname === '/walletsolidity/getnowblock') return json(200, this.solidHead());
    if (method === 'POST' && url.pathname === '/walletsolidity/gettransactioninfobyid') {
      const txid = (JSON.parse(body) as { value?: string }).value;
      const mined = this.mined.find((m) => m.tx.txID === txid && m.solid);
      return json(200, mined ? this.info(mined) : {});
    }
    return json(404, { success: false, error: 'not found' });
  }

  /** The newest solidified block as java-tron answers it (about 19 blocks of 3 s behind the head by default). */
  private solidHead() {
    const solid = this.mined.filter((m) => m.solid).at(-1)?.block ?? this.block - 19;
    return {
      blockID: solid.toString(16).padStart(16, '0') + '0'.repeat(48),
      block_header: {
        raw_data: { number: solid, txTrieRoot: '0'.repeat(64), witness_address: '41' + '0'.repeat(40), parentHash: '0'.repeat(64), version: 31, timestamp: Date.now() - this.solidHeadAgeMs },
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

  private trc20(address: string, query: URLSearchParams) {
    const limit = Math.min(Number(query.get('limit') ?? 20), 200);
    const offset = Number(query.get('fingerprint') ?? 0);
    const minTimestamp = Number(query.get('min_timestamp') ?? 0);
    const contract = query.get('contract_address');
    const onlyConfirmed = query.get('only_confirmed') === 'true';
    const rows = this.mined
      .flatMap((m) => {
        if (onlyConfirmed && !m.solid) return [];
        const lie = this.misindexed.some((x) => x.address === address && x.txid === m.tx.txID);
        if (lie && m.call) return [{ m, transfer: { ...m.call, to: address } }];
        if (!m.log) return [];
        const ours = m.log.to === address || (query.get('only_to') !== 'true' && m.log.from === address);
        return ours ? [{ m, transfer: m.log }] : [];
      })
      .filter(({ m }) => (contract === null || m.contract === contract) && m.time >= minTimestamp)
      .sort((a, b) => b.m.time - a.m.time)
      .map(({ m, transfer }) => {
        const token = this.tokens.find((t) => t.address === m.contract)!;
        return {
          transaction_id: m.tx.txID,
          token_info: { symbol: token.symbol, address: token.address, decimals: token.decimals, name: token.name },
          block_timestamp: m.time,
          from: transfer.from,
          to: transfer.to,
          type: 'Transfer',
          value: transfer.value.toString(),
        };
      });
    const page = rows.slice(offset, offset + limit);
    const more = offset + limit < rows.length;
    return json(200, { data: page, success: true, meta: { at: Date.now(), page_size: page.length, ...(more ? { fingerprint: String(offset + limit) } : {}) } });
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

const json = (status: number, value: unknown) => ({ status, body: JSON.stringify(value), type: 'application/json' });
