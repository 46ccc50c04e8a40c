import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContractDecoder, EdrContext, L1_CHAIN_TYPE, l1GenesisState, l1HardforkFromString, l1ProviderFactory, MineOrdering, PRAGUE, type Provider } from '@nomicfoundation/edr';

/**
 * A local Ethereum node: Hardhat's EDR (the Rust EVM and JSON-RPC provider behind Hardhat
 * Network, shipped on npm as a prebuilt N-API module per platform, nothing downloaded at run
 * time) served over HTTP JSON-RPC like any node, so the watcher speaks to it exactly as to
 * geth. Chain state lives in memory. Besides the standard methods it answers Hardhat's test
 * methods: evm_mine, evm_snapshot / evm_revert (a reorganisation: the chain after the
 * snapshot is replaced by whatever is mined next), evm_setAutomine, evm_setIntervalMining,
 * hardhat_setBalance, hardhat_setCode.
 */

export interface DevnetNodeOptions {
  /** Default 31337 (Hardhat's). */
  chainId?: number;
  host?: string;
  /** 0 picks a free port (default). */
  port?: number;
  /** Accounts that start with a balance (wei). */
  balances?: readonly { address: `0x${string}`; wei: bigint }[];
  /**
   * `undefined`: a block per transaction (automine). A number: a block every that many
   * milliseconds, with transactions waiting in the mempool until then.
   */
  blockIntervalMs?: number;
}

export interface DevnetNode {
  url: string;
  chainId: number;
  /** A JSON-RPC call straight to the node (for tests and the devnet scripts). */
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

/** EDR allows one context per process ("should only be called once"). */
let context: Promise<EdrContext> | undefined;

function edrContext(): Promise<EdrContext> {
  context ??= (async () => {
    const created = new EdrContext();
    await created.registerProviderFactory(L1_CHAIN_TYPE, l1ProviderFactory());
    return created;
  })();
  return context;
}

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'));

/** A fixed genesis time, so the genesis block (and its hash) is the same on every start. */
const GENESIS_TIME = 1_767_225_600n; // 2026-01-01T00:00:00Z

async function createProvider(options: DevnetNodeOptions): Promise<Provider> {
  const chainId = BigInt(options.chainId ?? 31337);
  const interval = options.blockIntervalMs;
  return (await edrContext()).createProvider(
    L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: true,
      allowUnlimitedContractSize: false,
      bailOnCallFailure: false,
      bailOnTransactionFailure: false,
      chainId,
      coinbase: bytes(`0x${'00'.repeat(20)}`),
      defaultTransactionGasLimit: 30_000_000n,
      genesisState: [...l1GenesisState(l1HardforkFromString(PRAGUE)), ...(options.balances ?? []).map((b) => ({ address: bytes(b.address), balance: b.wei }))],
      hardfork: PRAGUE,
      initialBaseFeePerGas: 1_000_000_000n,
      minGasPrice: 0n,
      mining: {
        autoMine: interval === undefined,
        ...(interval === undefined ? {} : { interval: BigInt(interval) }),
        memPool: { order: MineOrdering.Fifo },
      },
      network: { genesisBlockGasLimit: 30_000_000n, genesisBlockTime: GENESIS_TIME },
      networkId: chainId,
      observability: {},
      ownedAccounts: [],
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => undefined },
    { subscriptionCallback: () => undefined },
    new ContractDecoder(),
  );
}

const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

type Answer = Record<string, unknown>;

/**
 * The JSON-RPC 2.0 framing over EDR, as Hardhat's own HTTP server does it: EDR's provider
 * takes one call and answers only its `result` or `error`, so this adds `jsonrpc` and the
 * call's `id`, answers a batch call by call, fills in a missing `params` (JSON-RPC lets a
 * call without arguments omit it; viem does) and answers the spec's errors for bodies that
 * are not JSON (-32700) or not a call (-32600).
 */
async function answerBody(provider: Provider, body: string): Promise<unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } };
    return Promise.all(parsed.map((call) => answerCall(provider, call)));
  }
  return answerCall(provider, parsed);
}

async function answerCall(provider: Provider, call: unknown): Promise<Answer> {
  if (!call || typeof call !== 'object' || Array.isArray(call) || typeof (call as Answer).method !== 'string') {
    return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } };
  }
  const { id = null, method, params = [] } = call as Answer;
  const response = await provider.handleRequest(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  const answer = (typeof response.data === 'string' ? JSON.parse(response.data) : response.data) as Answer;
  return 'error' in answer ? { jsonrpc: '2.0', id, error: answer.error } : { jsonrpc: '2.0', id, result: answer.result };
}

export async function startDevnetNode(options: DevnetNodeOptions = {}): Promise<DevnetNode> {
  const provider = await createProvider(options);
  const handle = async (body: string): Promise<string> => JSON.stringify(await answerBody(provider, body));

  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      handle(Buffer.concat(chunks).toString('utf8')).then(
        (text) => res.writeHead(200, { 'content-type': 'application/json' }).end(text),
        (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  let nextId = 1;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    chainId: options.chainId ?? 31337,
    async request<T>(method: string, params: unknown[] = []): Promise<T> {
      const answer = JSON.parse(await handle(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }))) as {
        result?: T;
        error?: { message: string };
      };
      if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
      return answer.result as T;
    },
    async stop() {
      // Interval mining runs on EDR's own timer: turn it off so nothing is left ticking.
      if (options.blockIntervalMs !== undefined) await handle(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'evm_setIntervalMining', params: [0] }));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
