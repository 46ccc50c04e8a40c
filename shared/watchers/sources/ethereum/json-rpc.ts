import { describeFetchError, readTextLimited } from '#shared/core/fetch-text';
import { SourceError } from '#shared/core/source-error';

/**
 * A minimal Ethereum JSON-RPC 2.0 client over HTTP POST (the execution-apis transport), for
 * the watcher: one request or one batch per call, a deadline on the whole exchange (connect,
 * headers and body), a bound on the answer's size, and every way the node can fail or
 * misbehave turned into a {@link SourceError}. Results come back as `unknown`: the caller
 * checks their shape before trusting a single field.
 */

export interface JsonRpcOptions {
  /** The node's HTTP endpoint (credentials, if any, in the URL's user info or path). */
  url: string;
  /** Deadline for one HTTP exchange. Default 10 s. */
  timeoutMs?: number;
  /** Larger answers are refused. Default 64 MiB (a mainnet block with its transactions is a few MB). */
  maxBodyBytes?: number;
  /** Injectable for tests; default the global fetch. */
  fetch?: typeof fetch;
  /** What errors name the node as, before its host. Default `eth-rpc` (Solana's source: `solana-rpc`). */
  label?: string;
}

/** The node answered the call with a JSON-RPC error object (the method ran and refused). */
export class JsonRpcError extends SourceError {
  constructor(
    source: string,
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(source, `${method} failed: ${code} ${message}`);
    this.name = 'JsonRpcError';
  }
}

export interface RpcCall {
  method: string;
  params: readonly unknown[];
}

export class JsonRpcClient {
  /** What errors name: the node's host, never its credentials. */
  readonly source: string;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly fetch: typeof fetch;
  private nextId = 1;

  constructor(options: JsonRpcOptions) {
    const url = new URL(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new RangeError(`JSON-RPC URL must be http(s), got "${url.protocol}"`);
    }
    this.source = `${options.label ?? 'eth-rpc'}:${url.host}`;
    this.url = url.toString();
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** One call; its `result` (which may be null: "no such block"). */
  async call(method: string, params: readonly unknown[]): Promise<unknown> {
    const [result] = await this.batch([{ method, params }]);
    return result;
  }

  /**
   * Several calls in one JSON-RPC batch (one HTTP exchange); results in the calls' order,
   * matched by id (a batch's answers may come in any order). Any error fails the whole batch.
   */
  async batch(calls: readonly RpcCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const requests = calls.map((call) => ({ jsonrpc: '2.0', id: this.nextId++, method: call.method, params: call.params }));
    const body = await this.post(calls.length === 1 ? requests[0] : requests);
    const answers = Array.isArray(body) ? body : [body];
    if (calls.length > 1 && !Array.isArray(body)) {
      // A node that refuses a batch as a whole answers one error object.
      const error = (body as { error?: unknown } | null)?.error;
      if (error) throw this.rpcError('batch', error);
      throw new SourceError(this.source, 'batch answered with a single object');
    }
    const byId = new Map<unknown, Record<string, unknown>>();
    for (const answer of answers) {
      if (!answer || typeof answer !== 'object' || Array.isArray(answer)) {
        throw new SourceError(this.source, 'answer is not a JSON-RPC response object');
      }
      byId.set((answer as { id?: unknown }).id, answer as Record<string, unknown>);
    }
    return requests.map((request) => {
      const answer = byId.get(request.id);
      if (!answer) throw new SourceError(this.source, `no answer to ${request.method} (id ${request.id})`);
      if (answer.jsonrpc !== '2.0') throw new SourceError(this.source, `${request.method}: not a JSON-RPC 2.0 answer`);
      if (answer.error !== undefined && answer.error !== null) throw this.rpcError(request.method, answer.error);
      if (!('result' in answer)) throw new SourceError(this.source, `${request.method}: answer has neither result nor error`);
      return answer.result;
    });
  }

  private rpcError(method: string, error: unknown): SourceError {
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    if (typeof code !== 'number' || typeof message !== 'string') {
      return new SourceError(this.source, `${method}: malformed error object`);
    }
    return new JsonRpcError(this.source, method, code, message.slice(0, 200));
  }

  private async post(payload: unknown): Promise<unknown> {
    let text: string;
    try {
      // The signal bounds the whole exchange, body included: a node that trickles bytes times out.
      const response = await this.fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new SourceError(this.source, `HTTP ${response.status}`);
      }
      const limit = this.maxBodyBytes;
      text = await readTextLimited(response, limit, () => new SourceError(this.source, `answer larger than ${limit} bytes`));
    } catch (error) {
      if (error instanceof SourceError) throw error;
      const name = (error as { name?: string }).name;
      const reason = name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : describeFetchError(error);
      throw new SourceError(this.source, reason, { cause: error });
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new SourceError(this.source, 'answer is not JSON', { cause: error });
    }
  }
}
