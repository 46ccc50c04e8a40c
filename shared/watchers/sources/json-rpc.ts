import { SourceError } from '#shared/core/source-error';
import { DEFAULT_HTTP_POLICY, DEFAULT_MAX_BODY_BYTES, endpoint, type HttpPolicy, requestText } from '#shared/watchers/sources/http';

/**
 * A minimal JSON-RPC 2.0 client over HTTP POST, for the sources that speak it (Ethereum and the
 * EVM networks, Solana, TRON's `/jsonrpc`): one request or one batch per call, over the
 * sources' one HTTP client (http.ts: a deadline on each try, retries of transport failures,
 * timeouts, 429 and 5xx, a bound on the answer's size). What the node answers is never asked
 * again: a JSON-RPC error object (the method ran and refused), a body that is not JSON or not a
 * JSON-RPC answer, another status; each is a {@link SourceError}. Results come back as
 * `unknown`: the caller checks their shape before trusting a single field.
 */

/** The node and, as in http.ts's {@link HttpPolicy}, how it is asked (default {@link DEFAULT_HTTP_POLICY}: 10 s a try, 3 tries, 64 MiB at most). */
export interface JsonRpcOptions extends Partial<HttpPolicy> {
  /** The node's HTTP endpoint (credentials, if any, in the URL's user info or path). */
  url: string;
  /**
   * What errors name the node as, before its host. Default `json-rpc` (Ethereum's source:
   * `eth-rpc`, Solana's: `solana-rpc`, TRON's: `trongrid`).
   */
  label?: string;
  /** Headers sent with every request besides the JSON ones (TronGrid's API key). */
  headers?: Readonly<Record<string, string>>;
  /** HTTP statuses whose body is read as the JSON-RPC answer. Default 200 only (TronGrid's plans answer a refused range with 400 and its error object). */
  answerStatuses?: readonly number[];
}

/** The node answered the call with a JSON-RPC error object (the method ran and refused). */
export class JsonRpcError extends SourceError {
  constructor(
    source: string,
    readonly method: string,
    readonly code: number,
    /** The node's own words (at most 200 characters). */
    readonly rpcMessage: string,
  ) {
    super(source, `${method} failed: ${code} ${rpcMessage}`);
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
  private readonly policy: HttpPolicy;
  private readonly headers: Record<string, string>;
  private readonly answerStatuses: readonly number[];

  constructor(options: JsonRpcOptions) {
    const { url, host, headers } = endpoint(options.url, 'JSON-RPC');
    this.source = `${options.label ?? 'json-rpc'}:${host}`;
    this.url = url;
    this.policy = {
      timeoutMs: options.timeoutMs ?? DEFAULT_HTTP_POLICY.timeoutMs,
      attempts: options.attempts ?? DEFAULT_HTTP_POLICY.attempts,
      backoffMs: options.backoffMs ?? DEFAULT_HTTP_POLICY.backoffMs,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    };
    this.headers = { 'content-type': 'application/json', accept: 'application/json', ...headers, ...options.headers };
    this.answerStatuses = options.answerStatuses ?? [200];
  }

  /** One call; its `result` (which may be null: "no such block"). */
  async call(method: string, params: readonly unknown[]): Promise<unknown> {
    const [result] = await this.batch([{ method, params }]);
    return result;
  }

  /**
   * Several calls in one JSON-RPC batch (one HTTP exchange); results in the calls' order,
   * matched by id (a batch's answers may come in any order). Any error fails the whole batch.
   * Ids are the calls' places in the batch, from 1: an HTTP exchange's answer is its request's.
   */
  async batch(calls: readonly RpcCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const requests = calls.map((call, i) => ({ jsonrpc: '2.0', id: i + 1, method: call.method, params: call.params }));
    const methods = [...new Set(calls.map((call) => call.method))].join(', ');
    const body = await this.post(calls.length === 1 ? requests[0] : requests, calls.length === 1 ? methods : `batch of ${calls.length} (${methods})`);
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

  /** The parsed answer of one exchange; `name` is what errors call it (the method: the URL's path may hold credentials). */
  private async post(payload: unknown, name: string): Promise<unknown> {
    const { status, body } = await requestText(this.source, this.url, { method: 'POST', headers: this.headers, body: JSON.stringify(payload) }, this.policy, { name });
    if (!this.answerStatuses.includes(status)) throw new SourceError(this.source, `${name}: HTTP ${status}`);
    try {
      return JSON.parse(body);
    } catch (error) {
      throw new SourceError(this.source, `${name}: answer is not JSON`, { cause: error });
    }
  }
}
