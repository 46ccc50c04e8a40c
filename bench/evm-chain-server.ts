/**
 * A synthetic EVM network behind a JSON-RPC server, for bench/evm-requests.ts: blocks made on
 * demand at a set block time on a clock the bench moves (no waiting), each with a set number of
 * transactions (some paying value), ERC-20 Transfer logs of the watched contracts, and now and
 * then a payment to one of the open invoices' addresses. It answers the calls the Ethereum
 * source makes (eth_chainId, eth_call decimals(), eth_getBlockByNumber, eth_getLogs by hash or
 * range, eth_getTransactionReceipt), single or batched, and counts HTTP requests, calls and
 * bytes: what a provider bills and limits. Not a node: the tests run against a real one (EDR).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A network's traffic as the bench assumes it (per block). */
export interface Traffic {
  blockMs: number;
  /** Transactions a block. */
  transactions: number;
  /** Of them, transactions that send the coin (value > 0): each costs a receipt on the block-by-block path. */
  valueTransactions: number;
  /** Transfer logs of the watched contracts a block (others' token traffic). */
  tokenLogs: number;
}

export interface SimPayment {
  /** Native (the coin) or a token contract's address. */
  contract: string | undefined;
  to: string;
}

export interface EvmChainServer {
  url: string;
  /** Virtual ms since the chain's genesis block: the tip is block floor(now / blockMs). */
  now: number;
  /** HTTP requests, JSON-RPC calls and answer bytes since the last reset. */
  counts: { http: number; calls: number; bytes: number; byMethod: Record<string, number> };
  reset(): void;
  stop(): Promise<void>;
}

const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const hash32 = (text: string) => `0x${createHash('sha256').update(text).digest('hex')}`;
const address20 = (text: string) => `0x${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;
const word = (value: bigint) => `0x${value.toString(16).padStart(64, '0')}`;
const topic = (address: string) => `0x${address.slice(2).toLowerCase().padStart(64, '0')}`;
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

interface SimBlock {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  transactions: { hash: string; to: string; value: string; blockHash: string; blockNumber: string; from: string; input: string }[];
  logs: Record<string, unknown>[];
}

/**
 * Starts the server. `decimals` answers decimals() per contract (lowercase); `paymentAt(height)`
 * says which payments to our addresses block `height` carries.
 */
export async function startEvmChainServer(options: {
  chainId: number;
  traffic: Traffic;
  decimals: Readonly<Record<string, number>>;
  paymentsAt: (height: number) => SimPayment[];
}): Promise<EvmChainServer> {
  const { traffic } = options;
  const contracts = Object.keys(options.decimals);
  const blocks = new Map<number, SimBlock>();
  const receipts = new Map<string, { blockHash: string; blockNumber: number }>();
  const genesisSeconds = 1_800_000_000;

  /** Spreads `perBlock` (maybe fractional) over blocks: how many block `h` has. */
  const share = (perBlock: number, h: number) => Math.floor((h + 1) * perBlock) - Math.floor(h * perBlock);

  const blockAt = (height: number): SimBlock => {
    const known = blocks.get(height);
    if (known) return known;
    const hash = hash32(`block:${options.chainId}:${height}`);
    const block: SimBlock = {
      number: height,
      hash,
      parentHash: height === 0 ? hash32('genesis-parent') : hash32(`block:${options.chainId}:${height - 1}`),
      timestamp: genesisSeconds + Math.floor((height * traffic.blockMs) / 1000),
      transactions: [],
      logs: [],
    };
    const values = share(traffic.valueTransactions, height);
    const count = Math.max(share(traffic.transactions, height), values);
    const tx = (i: number, to: string, value: bigint) => {
      const txHash = hash32(`tx:${options.chainId}:${height}:${i}`);
      receipts.set(txHash, { blockHash: hash, blockNumber: height });
      block.transactions.push({ hash: txHash, to, value: hex(value), blockHash: hash, blockNumber: hex(height), from: address20(`from:${i}`), input: '0x' });
      return txHash;
    };
    const log = (txHash: string, contract: string, to: string) =>
      block.logs.push({
        address: contract,
        topics: [TRANSFER_TOPIC, topic(address20(`sender:${txHash}`)), topic(to)],
        data: word(1_000_000n),
        blockNumber: hex(height),
        blockHash: hash,
        transactionHash: txHash,
        transactionIndex: '0x0',
        logIndex: hex(block.logs.length),
        removed: false,
      });
    for (let i = 0; i < count; i += 1) tx(i, address20(`to:${height}:${i}`), i < values ? 10n ** 15n : 0n);
    const logs = contracts.length === 0 ? 0 : share(traffic.tokenLogs, height);
    for (let i = 0; i < logs; i += 1) {
      const source = block.transactions[i % Math.max(1, block.transactions.length)]?.hash ?? tx(count + i, contracts[0]!, 0n);
      log(source, contracts[i % contracts.length]!, address20(`holder:${height}:${i}`));
    }
    options.paymentsAt(height).forEach((payment, i) => {
      if (payment.contract === undefined) tx(count + logs + i, payment.to.toLowerCase(), 10n ** 16n);
      else log(tx(count + logs + i, payment.contract, 0n), payment.contract, payment.to);
    });
    blocks.set(height, block);
    return block;
  };
  const tipHeight = () => Math.floor(server.now / traffic.blockMs);
  const blockJson = (block: SimBlock, full: boolean) => ({
    number: hex(block.number),
    hash: block.hash,
    parentHash: block.parentHash,
    timestamp: hex(block.timestamp),
    transactions: full ? block.transactions : block.transactions.map((tx) => tx.hash),
  });

  const answer = (method: string, params: unknown[]): unknown => {
    switch (method) {
      case 'eth_chainId':
        return hex(options.chainId);
      case 'eth_call': {
        const to = String((params[0] as { to: string }).to).toLowerCase();
        return word(BigInt(options.decimals[to] ?? 0));
      }
      case 'eth_getBlockByNumber': {
        const [tag, full] = params as [string, boolean];
        if (tag === 'pending') return { transactions: [] };
        const height = tag === 'latest' ? tipHeight() : Number(tag);
        return height > tipHeight() ? null : blockJson(blockAt(height), full);
      }
      case 'eth_getLogs': {
        const filter = params[0] as { blockHash?: string; fromBlock?: string; toBlock?: string; address: string[] };
        const wanted = new Set(filter.address.map((a) => a.toLowerCase()));
        let from: number;
        let to: number;
        if (filter.blockHash) {
          from = to = [...blocks.values()].find((b) => b.hash === filter.blockHash)!.number;
        } else {
          from = Number(filter.fromBlock);
          to = Math.min(Number(filter.toBlock), tipHeight());
        }
        const logs: unknown[] = [];
        for (let h = from; h <= to; h += 1) logs.push(...blockAt(h).logs.filter((log) => wanted.has(String(log.address))));
        return logs;
      }
      case 'eth_getTransactionReceipt': {
        const txHash = params[0] as string;
        const where = receipts.get(txHash);
        return where ? { transactionHash: txHash, blockHash: where.blockHash, blockNumber: hex(where.blockNumber), status: '0x1' } : null;
      }
      default:
        throw new Error(`unexpected method ${method}`);
    }
  };

  const httpServer = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown; method: string; params: unknown[] } | { id: unknown; method: string; params: unknown[] }[];
      const calls = Array.isArray(body) ? body : [body];
      server.counts.http += 1;
      server.counts.calls += calls.length;
      const answers = calls.map((c) => {
        server.counts.byMethod[c.method] = (server.counts.byMethod[c.method] ?? 0) + 1;
        return { jsonrpc: '2.0', id: c.id, result: answer(c.method, c.params) };
      });
      const text = JSON.stringify(Array.isArray(body) ? answers : answers[0]);
      server.counts.bytes += Buffer.byteLength(text);
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', () => resolve()));
  const server: EvmChainServer = {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`,
    now: 0,
    counts: { http: 0, calls: 0, bytes: 0, byMethod: {} },
    reset() {
      this.counts = { http: 0, calls: 0, bytes: 0, byMethod: {} };
    },
    stop: async () => {
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
  return server;
}
