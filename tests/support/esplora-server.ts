/**
 * A local server speaking the Esplora REST API (Blockstream/esplora API.md) for a
 * {@link UtxoChain}: tip hash and height as text, /block-height/:height, /block/:hash and its
 * status, txids and 25-transaction pages, /tx/:txid with its status, /mempool/txids. Amounts
 * are satoshis; transactions carry txid, version, locktime, vin (with prevout), vout
 * (scriptpubkey, _asm, _type, _address, value), size, weight, fee and status.
 */
import { Script, OutScript } from '@scure/btc-signer';
import { bytesToHex, type ChainBlock, type ChainTx, type UtxoChain } from './utxo-chain';
import { type FaultyServer, startFaultyServer } from './chain-http';

function asm(script: Uint8Array): string {
  return Script.decode(script)
    .map((op) => {
      if (op instanceof Uint8Array) return `OP_PUSHBYTES_${op.length} ${bytesToHex(op)}`;
      if (typeof op === 'number') return op === 0 ? 'OP_0' : `OP_PUSHNUM_${op}`;
      return `OP_${op}`;
    })
    .join(' ');
}

const TYPES: Record<string, string> = { wpkh: 'v0_p2wpkh', pkh: 'p2pkh', sh: 'p2sh', wsh: 'v0_p2wsh', tr: 'v1_p2tr', pk: 'p2pk' };

function scriptType(script: Uint8Array): string {
  if (script[0] === 0x6a) return 'op_return';
  try {
    return TYPES[OutScript.decode(script).type] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function esploraTx(chain: UtxoChain, ctx: ChainTx, withStatus: boolean): Record<string, unknown> {
  const where = chain.txs.get(ctx.txid)?.blockHash;
  const block = where ? chain.allBlocks.get(where) : undefined;
  const onChain = block && chain.blocks.includes(block);
  const inputs = ctx.coinbase
    ? [{ txid: '0'.repeat(64), vout: 4294967295, prevout: null, scriptsig: bytesToHex(ctx.tx.getInput(0).finalScriptSig!), scriptsig_asm: '', is_coinbase: true, sequence: 4294967295 }]
    : ctx.prevouts.map((prev, i) => ({
        txid: prev.txid,
        vout: prev.vout,
        prevout: {
          scriptpubkey: bytesToHex(prev.script),
          scriptpubkey_asm: asm(prev.script),
          scriptpubkey_type: scriptType(prev.script),
          scriptpubkey_address: chain.addressOf(prev.script),
          value: Number(prev.value),
        },
        scriptsig: '',
        scriptsig_asm: '',
        witness: (ctx.tx.getInput(i).finalScriptWitness ?? []).map((item) => bytesToHex(item)),
        is_coinbase: false,
        sequence: ctx.tx.getInput(i).sequence,
      }));
  const vout = ctx.values.map((value, i) => {
    const script = ctx.tx.getOutput(i).script!;
    const address = ctx.addresses[i];
    return {
      scriptpubkey: bytesToHex(script),
      scriptpubkey_asm: asm(script),
      scriptpubkey_type: scriptType(script),
      ...(address ? { scriptpubkey_address: address } : {}),
      value: Number(value),
    };
  });
  const fee = ctx.coinbase ? 0 : Number(ctx.prevouts.reduce((s, p) => s + p.value, 0n) - ctx.values.reduce((s, v) => s + v, 0n));
  return {
    txid: ctx.txid,
    version: ctx.tx.version,
    locktime: ctx.tx.lockTime,
    vin: inputs,
    vout,
    size: ctx.hex.length / 2,
    weight: ctx.tx.weight,
    fee,
    ...(withStatus ? { status: onChain ? { confirmed: true, block_height: block.height, block_hash: block.hash, block_time: block.time } : { confirmed: false } } : {}),
  };
}

function blockJson(block: ChainBlock): Record<string, unknown> {
  return {
    id: block.hash,
    height: block.height,
    version: 0x20000000,
    timestamp: block.time,
    tx_count: block.txs.length,
    size: 80 + block.txs.reduce((s, tx) => s + tx.hex.length / 2, 1),
    weight: block.txs.reduce((s, tx) => s + tx.tx.weight, 320),
    merkle_root: block.merkleRoot,
    previousblockhash: block.previousHash,
    mediantime: block.time - 3000,
    nonce: new DataView(block.header.buffer, block.header.byteOffset).getUint32(76, true),
    bits: 0x1d00ffff,
    difficulty: 1,
  };
}

const text = (body: string | number) => ({ status: 200, body: String(body), type: 'text/plain' });
const json = (value: unknown) => ({ status: 200, body: JSON.stringify(value) });

export function startEsploraServer(chain: UtxoChain): Promise<FaultyServer> {
  return startFaultyServer(
    (request) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      if (request.method !== 'GET') return { status: 405, body: 'Method Not Allowed', type: 'text/plain' };
      if (path === '/blocks/tip/hash') return text(chain.tip.hash);
      if (path === '/blocks/tip/height') return text(chain.tip.height);
      let m = /^\/block-height\/(\d+)$/.exec(path);
      if (m) {
        const hash = chain.hashAt(Number(m[1]));
        return hash ? text(hash) : { status: 404, body: 'Block not found', type: 'text/plain' };
      }
      m = /^\/block\/([0-9a-f]{64})(\/.*)?$/.exec(path);
      if (m) {
        const block = chain.allBlocks.get(m[1]!);
        if (!block) return { status: 404, body: 'Block not found', type: 'text/plain' };
        const rest = m[2] ?? '';
        if (rest === '') return json(blockJson(block));
        if (rest === '/status') {
          const index = chain.blocks.indexOf(block);
          return json({ in_best_chain: index >= 0, height: block.height, ...(index >= 0 && chain.blocks[index + 1] ? { next_best: chain.blocks[index + 1]!.hash } : {}) });
        }
        if (rest === '/txids') return json(block.txs.map((tx) => tx.txid));
        const page = /^\/txs(?:\/(\d+))?$/.exec(rest);
        if (page) {
          const start = Number(page[1] ?? 0);
          if (start % 25 !== 0 || start >= block.txs.length) return { status: 400, body: 'start index out of range', type: 'text/plain' };
          return json(block.txs.slice(start, start + 25).map((tx) => esploraTx(chain, tx, false)));
        }
        return undefined;
      }
      m = /^\/tx\/([0-9a-f]{64})(\/status|\/hex)?$/.exec(path);
      if (m) {
        const found = chain.txs.get(m[1]!);
        if (!found) return { status: 404, body: 'Transaction not found', type: 'text/plain' };
        const full = esploraTx(chain, found.tx, true);
        if (m[2] === '/status') return json(full.status);
        if (m[2] === '/hex') return text(found.tx.hex);
        return json(full);
      }
      if (path === '/mempool/txids') return json(chain.mempool.map((tx) => tx.txid));
      return undefined;
    },
    (request) => new URL(request.url ?? '/', 'http://x').pathname,
  );
}
