/**
 * A UTXO chain (BTC, LTC or BCH) held in memory for the watcher tests: blocks of real
 * transactions, built, signed and serialized with @scure/btc-signer (so txids are the real
 * double-SHA256 of real bytes), and block headers serialized as Bitcoin does them (80 bytes,
 * the block hash is their double SHA-256, the merkle root is computed from the txids). The
 * Esplora and Core JSON-RPC test servers serve this chain in their documented formats.
 * Output addresses are encoded by @scure/btc-signer's Address coder (an implementation
 * independent of the service's derivation), CashAddr for BCH.
 */
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, bytesToHex } from '@noble/hashes/utils.js';
import { Address, NETWORK, OutScript, p2wpkh, Script, Transaction, utils } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { CASHADDR_P2PKH_160, decodeCashAddr, encodeCashAddr } from '#shared/payments/addresses/cashaddr';
import type { ChainIdentity } from '#shared/chains/identity';
import { MAINNET_IDENTITIES } from '#shared/chains/utxo';

export type UtxoChainName = 'BTC' | 'LTC' | 'BCH';

const NETWORKS = {
  BTC: NETWORK,
  LTC: { bech32: 'ltc', pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 },
  BCH: NETWORK, // legacy encoding; addresses are shown as CashAddr
} as const;

export interface ChainTx {
  tx: Transaction;
  txid: string;
  /** The serialized transaction (with witness), hex. */
  hex: string;
  /** Each output's address as the chain's explorers show it (undefined: no address, e.g. OP_RETURN). */
  addresses: (string | undefined)[];
  values: bigint[];
  /** The outputs this transaction spends (fake, but well-formed, previous transactions). */
  prevouts: { txid: string; vout: number; script: Uint8Array; value: bigint }[];
  coinbase: boolean;
}

export interface ChainBlock {
  height: number;
  hash: string;
  previousHash: string;
  time: number;
  merkleRoot: string;
  header: Uint8Array;
  txs: ChainTx[];
}

const reverseHex = (hex: string) => bytesToHex(hexToBytes(hex).reverse());
const sha256d = (bytes: Uint8Array) => sha256(sha256(bytes));

function merkleRoot(txids: string[]): string {
  let level: Uint8Array[] = txids.map((id) => hexToBytes(id).reverse());
  while (level.length > 1) {
    const next: typeof level = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1] ?? left;
      next.push(sha256d(new Uint8Array([...left, ...right])));
    }
    level = next;
  }
  return bytesToHex(level[0]!.reverse());
}

function u32le(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value, true);
  return bytes;
}

/** Which chain the servers say this is: the identity its nodes answer and the `chain` of getblockchaininfo. */
export interface UtxoChainOptions {
  /** The genesis and checkpoint hashes the servers answer below the first block (default: mainnet's of `name`). */
  identity?: ChainIdentity;
  /** getblockchaininfo's `chain`: main, test, regtest... (default main). */
  network?: string;
  /** When the first block was made, in seconds (default now: a node following its chain has a recent tip). */
  startTime?: number;
}

export class UtxoChain {
  readonly blocks: ChainBlock[] = [];
  /** Every block ever made, orphans included (servers still answer /block/:hash for them). */
  readonly allBlocks = new Map<string, ChainBlock>();
  readonly txs = new Map<string, { tx: ChainTx; blockHash?: string }>();
  mempool: ChainTx[] = [];
  private readonly key = utils.randomPrivateKeyBytes();
  /** The newest block's time; each new block is made now (or a second after its parent). */
  private clock: number;

  /** The hashes of blocks before the first one the servers know of (the genesis, a fork's checkpoint). */
  private readonly history = new Map<number, string>();
  readonly networkName: string;

  constructor(
    readonly name: UtxoChainName,
    startHeight = 800_000,
    options: UtxoChainOptions = {},
  ) {
    const identity = options.identity ?? MAINNET_IDENTITIES[name];
    this.history.set(0, identity.genesisHash);
    if (identity.checkpoint) this.history.set(identity.checkpoint.height, identity.checkpoint.hash);
    this.networkName = options.network ?? 'main';
    this.clock = (options.startTime ?? Math.floor(Date.now() / 1000)) - 1;
    // The first block stands for everything before: its parent is a made-up hash.
    this.mineAt(startHeight, bytesToHex(randomBytes(32)), []);
  }

  /** The hash at `height` on the best chain: a block of this chain, or one of the history before it. */
  hashAt(height: number): string | undefined {
    const first = this.blocks[0]!.height;
    return height < first ? this.history.get(height) : this.blockAt(height)?.hash;
  }

  get tip(): ChainBlock {
    return this.blocks[this.blocks.length - 1]!;
  }

  get network() {
    return NETWORKS[this.name];
  }

  /** The output script of an address of this chain (CashAddr for BCH). */
  scriptOf(address: string): Uint8Array {
    if (this.name === 'BCH') {
      const decoded = decodeCashAddr(address);
      if (!decoded || decoded.version !== CASHADDR_P2PKH_160) throw new Error(`not a P2PKH CashAddr: ${address}`);
      return OutScript.encode({ type: 'pkh', hash: decoded.hash });
    }
    return OutScript.encode(Address(this.network).decode(address));
  }

  /** The address explorers show for an output script, undefined for scripts without one. */
  addressOf(script: Uint8Array): string | undefined {
    const decoded = OutScript.decode(script);
    if (decoded.type === 'unknown' || decoded.type === 'ms' || decoded.type === 'pk' || decoded.type === 'tr_ns' || decoded.type === 'tr_ms') {
      return undefined;
    }
    if (this.name === 'BCH') {
      if (decoded.type !== 'pkh') return undefined;
      return encodeCashAddr('bitcoincash', CASHADDR_P2PKH_160, decoded.hash);
    }
    return Address(this.network).encode(decoded);
  }

  /**
   * A signed transaction paying `outputs` (amounts in satoshis) from a fresh P2WPKH coin of
   * the test key, with change. Added to the mempool unless `mempool: false`.
   */
  pay(outputs: { address: string; sats: bigint }[], options: { mempool?: boolean; extraOpReturn?: boolean } = {}): ChainTx {
    const pub = secp256k1.getPublicKey(this.key, true);
    const spend = p2wpkh(pub, NETWORK);
    const total = outputs.reduce((sum, o) => sum + o.sats, 0n);
    const funding = total + 100_000n;
    const prevTxid = bytesToHex(randomBytes(32));
    const tx = new Transaction({ allowUnknownOutputs: true });
    tx.addInput({ txid: prevTxid, index: 0, witnessUtxo: { script: spend.script, amount: funding } });
    for (const output of outputs) tx.addOutput({ script: this.scriptOf(output.address), amount: output.sats });
    if (options.extraOpReturn) tx.addOutput({ script: Script.encode(['RETURN', new TextEncoder().encode('watcher test')]), amount: 0n });
    tx.addOutput({ script: spend.script, amount: 90_000n }); // change; 10,000 sat fee
    tx.sign(this.key);
    tx.finalize();
    const chainTx = this.describe(tx, [{ txid: prevTxid, vout: 0, script: spend.script, value: funding }], false);
    if (options.mempool !== false) this.mempool.push(chainTx);
    this.txs.set(chainTx.txid, { tx: chainTx });
    return chainTx;
  }

  /** Mines a block with `txs` (default: the whole mempool, which it empties of them). */
  mine(txs: ChainTx[] = this.mempool): ChainBlock {
    const included = [...txs];
    this.mempool = this.mempool.filter((tx) => !included.includes(tx));
    return this.mineAt(this.tip.height + 1, this.tip.hash, included);
  }

  /** Mines `count` blocks with nothing but their coinbase. */
  mineEmpty(count: number): void {
    for (let i = 0; i < count; i += 1) this.mine([]);
  }

  /**
   * A reorganisation: drops the newest `depth` blocks; their transactions go back to the
   * mempool unless `dropTxs` (a double spend replaced them). Then mine the new branch.
   */
  orphan(depth: number, options: { dropTxs?: boolean } = {}): ChainBlock[] {
    const removed = this.blocks.splice(this.blocks.length - depth, depth);
    for (const block of removed) {
      for (const tx of block.txs) {
        if (tx.coinbase) continue;
        this.txs.set(tx.txid, { tx });
        if (!options.dropTxs) this.mempool.push(tx);
        else this.txs.delete(tx.txid);
      }
    }
    return removed;
  }

  blockAt(height: number): ChainBlock | undefined {
    return this.blocks.find((block) => block.height === height);
  }

  private mineAt(height: number, previousHash: string, txs: ChainTx[]): ChainBlock {
    const coinbase = this.coinbase(height);
    const all = [coinbase, ...txs];
    // The first block at the start time, each next one now (a second after its parent at least).
    this.clock = this.blocks.length === 0 ? this.clock + 1 : Math.max(this.clock + 1, Math.floor(Date.now() / 1000));
    const root = merkleRoot(all.map((tx) => tx.txid));
    const header = new Uint8Array([
      ...u32le(0x20000000),
      ...hexToBytes(previousHash).reverse(),
      ...hexToBytes(root).reverse(),
      ...u32le(this.clock),
      ...u32le(0x1d00ffff),
      ...u32le(Math.floor(Math.random() * 2 ** 32)),
    ]);
    const hash = reverseHex(bytesToHex(sha256d(header)));
    const block: ChainBlock = { height, hash, previousHash, time: this.clock, merkleRoot: root, header, txs: all };
    this.blocks.push(block);
    this.allBlocks.set(hash, block);
    for (const tx of all) this.txs.set(tx.txid, { tx, blockHash: hash });
    return block;
  }

  /** A coinbase paying the test key's own address (the height in its script, as BIP34 asks). */
  private coinbase(height: number): ChainTx {
    const pub = secp256k1.getPublicKey(this.key, true);
    const tx = new Transaction({ allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true });
    tx.addOutput({ script: p2wpkh(pub, NETWORK).script, amount: 312_500_000n });
    tx.addInput({
      txid: new Uint8Array(32),
      index: 0xffffffff,
      finalScriptSig: Script.encode([new Uint8Array(u32le(height).slice(0, 3)), randomBytes(4)]),
      sequence: 0xffffffff,
    });
    return this.describe(tx, [], true);
  }

  private describe(tx: Transaction, prevouts: ChainTx['prevouts'], coinbase: boolean): ChainTx {
    const addresses: (string | undefined)[] = [];
    const values: bigint[] = [];
    for (let i = 0; i < tx.outputsLength; i += 1) {
      const output = tx.getOutput(i);
      addresses.push(this.addressOf(output.script!));
      values.push(output.amount!);
    }
    return { tx, txid: tx.id, hex: bytesToHex(tx.toBytes(true, true)), addresses, values, prevouts, coinbase };
  }
}

export { bytesToHex, hexToBytes };
