/**
 * A local server speaking the Bitcoin Core JSON-RPC interface (bitcoind, litecoind, Bitcoin
 * Cash Node) for a {@link UtxoChain}, as the RPC docs give it: HTTP basic auth, JSON-RPC 1.0
 * requests (single or batched), answers `{"result", "error", "id"}` with RPC errors as HTTP
 * 500 (404 for an unknown method) in the legacy mode, amounts in coins printed with 8
 * decimals exactly as Core prints them (0.00100000). Methods: getblockchaininfo (with the tip's
 * `time` as Core 23+ when asked), getbestblockhash, getblockhash, getblock (verbosity 0, 1, 2),
 * getblockheader, getrawmempool,
 * getrawtransaction (verbose). Outputs carry `scriptPubKey.address` (Bitcoin Core 22+) or
 * `scriptPubKey.addresses` (older nodes, Litecoin Core 0.21, Bitcoin Cash Node).
 */
import type { IncomingMessage } from 'node:http';
import { OutScript, Script } from '@scure/btc-signer';
import { bytesToHex, type ChainBlock, type ChainTx, type UtxoChain } from './utxo-chain';
import { type FaultyServer, startFaultyServer } from './chain-http';

/** Marks a number to be written exactly as given (JSON.stringify would not keep trailing zeros). */
const RAW = (text: string) => `@@raw:${text}@@`;
const coins = (sats: bigint) => RAW(`${sats / 100_000_000n}.${String(sats % 100_000_000n).padStart(8, '0')}`);
const serialize = (value: unknown) => JSON.stringify(value).replace(/"@@raw:([^@]+)@@"/g, '$1');

const TYPES: Record<string, string> = { wpkh: 'witness_v0_keyhash', pkh: 'pubkeyhash', sh: 'scripthash', wsh: 'witness_v0_scripthash', tr: 'witness_v1_taproot' };

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface CoreRpcServerOptions {
  user: string;
  password: string;
  /** `address` (Bitcoin Core 22+) or `addresses` (older nodes, Litecoin Core 0.21, BCHN). */
  addressStyle: 'address' | 'addresses';
  /** getblockchaininfo says the tip's `time` (Bitcoin Core 23+); without, as older nodes, Litecoin Core and BCHN. */
  tipTime?: boolean;
}

function scriptPubKey(chain: UtxoChain, script: Uint8Array, address: string | undefined, style: CoreRpcServerOptions['addressStyle']) {
  let type = 'nonstandard';
  if (script[0] === 0x6a) type = 'nulldata';
  else {
    try {
      type = TYPES[OutScript.decode(script).type] ?? 'nonstandard';
    } catch {
      type = 'nonstandard';
    }
  }
  const asm = Script.decode(script)
    .map((op) => (op instanceof Uint8Array ? bytesToHex(op) : typeof op === 'number' ? String(op) : `OP_${op}`))
    .join(' ');
  if (!address) return { asm, hex: bytesToHex(script), type };
  return style === 'address' ? { asm, hex: bytesToHex(script), address, type } : { asm, hex: bytesToHex(script), reqSigs: 1, type, addresses: [address] };
}

function txJson(chain: UtxoChain, ctx: ChainTx, style: CoreRpcServerOptions['addressStyle'], block?: ChainBlock) {
  const vin = ctx.coinbase
    ? [{ coinbase: bytesToHex(ctx.tx.getInput(0).finalScriptSig!), sequence: 4294967295 }]
    : ctx.prevouts.map((prev, i) => ({
        txid: prev.txid,
        vout: prev.vout,
        scriptSig: { asm: '', hex: '' },
        txinwitness: (ctx.tx.getInput(i).finalScriptWitness ?? []).map((item) => bytesToHex(item)),
        sequence: ctx.tx.getInput(i).sequence,
      }));
  const tipHeight = chain.tip.height;
  return {
    txid: ctx.txid,
    hash: ctx.txid,
    version: ctx.tx.version,
    size: ctx.hex.length / 2,
    vsize: ctx.tx.vsize,
    weight: ctx.tx.weight,
    locktime: ctx.tx.lockTime,
    vin,
    vout: ctx.values.map((value, n) => ({ value: coins(value), n, scriptPubKey: scriptPubKey(chain, ctx.tx.getOutput(n).script!, ctx.addresses[n], style) })),
    hex: ctx.hex,
    ...(block ? { blockhash: block.hash, confirmations: tipHeight - block.height + 1, time: block.time, blocktime: block.time } : {}),
  };
}

export function startCoreRpcServer(chain: UtxoChain, options: CoreRpcServerOptions): Promise<FaultyServer> {
  const expected = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}`;
  const onChain = (hash: string) => chain.blocks.find((block) => block.hash === hash);
  /** A block's header as getblockheader answers it (verbose): on the best chain or not (confirmations -1). */
  const headerJson = (block: NonNullable<ReturnType<typeof chain.allBlocks.get>>) => {
    const best = onChain(block.hash);
    const next = best ? chain.blockAt(block.height + 1) : undefined;
    return {
      hash: block.hash,
      confirmations: best ? chain.tip.height - block.height + 1 : -1,
      height: block.height,
      version: 0x20000000,
      versionHex: '20000000',
      merkleroot: block.merkleRoot,
      time: block.time,
      mediantime: block.time - 3000,
      nonce: 0,
      bits: '1d00ffff',
      difficulty: 1,
      chainwork: '00'.repeat(32),
      nTx: block.txs.length,
      previousblockhash: block.previousHash,
      ...(next ? { nextblockhash: next.hash } : {}),
    };
  };
  const methods: Record<string, (params: unknown[]) => unknown> = {
    getblockchaininfo: () => ({
      chain: chain.networkName,
      blocks: chain.tip.height,
      headers: chain.tip.height,
      bestblockhash: chain.tip.hash,
      difficulty: 1,
      ...(options.tipTime ? { time: chain.tip.time } : {}),
      mediantime: chain.tip.time - 3000,
      verificationprogress: 1,
      initialblockdownload: false,
      chainwork: '00'.repeat(32),
      pruned: false,
      warnings: '',
    }),
    getbestblockhash: () => chain.tip.hash,
    getblockhash: ([height]) => {
      if (typeof height !== 'number') throw new RpcError(-1, 'JSON value is not an integer as expected');
      const hash = chain.hashAt(height);
      if (!hash) throw new RpcError(-8, 'Block height out of range');
      return hash;
    },
    getblock: ([hash, verbosity = 1]) => {
      const block = chain.allBlocks.get(String(hash));
      if (!block) throw new RpcError(-5, 'Block not found');
      if (verbosity === 0) return bytesToHex(new Uint8Array([...block.header]));
      // Core's getblock is the header's fields and the block's own.
      return {
        ...headerJson(block),
        strippedsize: 0,
        size: 0,
        weight: 0,
        tx: verbosity === 2 ? block.txs.map((tx) => txJson(chain, tx, options.addressStyle)) : block.txs.map((tx) => tx.txid),
      };
    },
    getblockheader: ([hash, verbose = true]) => {
      const block = chain.allBlocks.get(String(hash));
      if (!block) throw new RpcError(-5, 'Block not found');
      if (verbose === false) return bytesToHex(new Uint8Array([...block.header]));
      return headerJson(block);
    },
    getrawmempool: () => chain.mempool.map((tx) => tx.txid),
    getrawtransaction: ([txid, verbose]) => {
      const found = chain.txs.get(String(txid));
      // Without -txindex only mempool transactions (and those of a given block) are found.
      const inMempool = found && chain.mempool.includes(found.tx);
      const block = found?.blockHash ? onChain(found.blockHash) : undefined;
      if (!found || (!inMempool && !block)) {
        throw new RpcError(-5, 'No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. Use gettransaction for wallet transactions.');
      }
      return verbose ? txJson(chain, found.tx, options.addressStyle, block) : found.tx.hex;
    },
  };
  const run = (request: unknown): { status: number; body: unknown } => {
    const { id = null, method, params = [] } = (request ?? {}) as { id?: unknown; method?: unknown; params?: unknown[] };
    const fn = typeof method === 'string' ? methods[method] : undefined;
    if (!fn) return { status: 404, body: { result: null, error: { code: -32601, message: 'Method not found' }, id } };
    try {
      return { status: 200, body: { result: fn(params), error: null, id } };
    } catch (error) {
      if (error instanceof RpcError) return { status: 500, body: { result: null, error: { code: error.code, message: error.message }, id } };
      throw error;
    }
  };
  return startFaultyServer(
    (request: IncomingMessage, body: string) => {
      if (request.method !== 'POST') return { status: 405, body: 'JSONRPC server handles only POST requests', type: 'text/plain' };
      if (request.headers.authorization !== expected) return { status: 401, body: '', type: 'text/html' };
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return { status: 500, body: serialize({ result: null, error: { code: -32700, message: 'Parse error' }, id: null }) };
      }
      if (Array.isArray(parsed)) return { status: 200, body: serialize(parsed.map((entry) => run(entry).body)) };
      const answer = run(parsed);
      return { status: answer.status, body: serialize(answer.body) };
    },
    (_request, body) => {
      try {
        const parsed = JSON.parse(body);
        return Array.isArray(parsed) ? `batch:${parsed[0]?.method}` : String(parsed.method);
      } catch {
        return 'unparsable';
      }
    },
  );
}
