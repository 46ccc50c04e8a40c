import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type ClientRequestArgs, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { checkCallbackUrl, forbiddenAddressReason, type SsrfOptions } from '#shared/callbacks/ssrf';
import { InvalidParameterError } from '#shared/domain/errors';

/**
 * The one way the service POSTs to a merchant's URL: node:http and node:https, through an agent
 * that judges every address at connect time with the one SSRF policy of ssrf.ts
 * ({@link forbiddenAddressReason}): a literal host before the socket opens, a name on every
 * address its DNS lookup returns (all of them: with happy eyeballs node may try any). So DNS
 * rebinding and names pointing inside the network are refused after resolution, not only when
 * the URL was stored. Redirects are never followed (node:http does not), each request has a
 * fresh agent that keeps no socket (no pooled connection skips the check), the whole exchange
 * has one deadline, and the response body is read up to a bound.
 *
 * Node's own client, not undici: undici's entry point (its only public API) put 535 KB into
 * every bundle that carries this file and about 25 ms into their cold load (docs/performance.md).
 */

export const DEFAULT_CALLBACK_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

export type CallbackTransportErrorKind = 'forbidden-address' | 'timeout' | 'connection' | 'dns' | 'tls';

/**
 * A delivery that got no HTTP status. `message` is safe to show the merchant (no stack, no
 * resolved internal address); `code` is the system code (ECONNREFUSED, ENOTFOUND, ...) when
 * there is one, and `cause` keeps the original error for the log.
 */
export class CallbackTransportError extends Error {
  constructor(
    readonly kind: CallbackTransportErrorKind,
    message: string,
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CallbackTransportError';
  }
}

export interface PostJsonOptions {
  /** The JSON text, sent as is (the signature covers these exact bytes). */
  body: string;
  /** content-type defaults to application/json; content-length is always set from the body. */
  headers: Record<string, string>;
  /** One deadline for connect, request and the whole response. Default 10 s. */
  timeoutMs?: number;
  /** At most this much of the response body is read, then the connection is closed. Default 64 KB. */
  maxResponseBytes?: number;
  /** Only the local runtime sets this (see {@link SsrfOptions}). */
  allowLoopback: boolean;
  /** DNS resolution, dns.lookup by default; tests inject one. Its answers are checked too. */
  lookup?: LookupFunction;
}

export interface PostJsonResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as UTF-8, cut at maxResponseBytes. */
  body: string;
  /** True when the body was longer than maxResponseBytes, or still coming at the deadline, and reading stopped. */
  truncated: boolean;
  /** From the start of the request to the end of reading the response. */
  latencyMs: number;
}

function forbidden(reason: string): CallbackTransportError {
  return new CallbackTransportError('forbidden-address', `callback_url resolves to a forbidden address: ${reason}`);
}

/** ::ffff:a.b.c.d as a.b.c.d: the socket goes to the IPv4 address the policy judged. */
function unmapped(address: LookupAddress): LookupAddress {
  if (address.family !== 6 || !ipaddr.IPv6.isValid(address.address)) return address;
  const parsed = ipaddr.IPv6.parse(address.address);
  return parsed.isIPv4MappedAddress() ? { address: parsed.toIPv4Address().toString(), family: 4 } : address;
}

/**
 * A DNS lookup whose answer fails the connection before a socket opens when any address in it
 * is forbidden.
 */
function guardedLookup(resolve: LookupFunction, ssrf: SsrfOptions): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, options, (error, address, family) => {
      if (error) {
        callback(error, options.all ? [] : '');
        return;
      }
      const answers: LookupAddress[] = Array.isArray(address) ? address : [{ address, family: family ?? isIP(address) }];
      for (const answer of answers) {
        const reason = forbiddenAddressReason(answer.address, ssrf);
        if (reason !== undefined) {
          callback(forbidden(reason), options.all ? [] : '');
          return;
        }
      }
      const checked = answers.map(unmapped);
      if (options.all) callback(null, checked);
      else callback(null, checked[0]!.address, checked[0]!.family);
    });
  };
}

type Connect = (options: ClientRequestArgs, callback: (error: Error | null, stream: Duplex) => void) => Duplex | null | undefined;

/**
 * The agent's own connect (TCP, or TLS with SNI from the host name) behind a check of a literal
 * host, for which node does no lookup: a forbidden one fails the request before a socket opens.
 */
function guardedConnect(ssrf: SsrfOptions, connect: Connect): Connect {
  return (options, callback) => {
    const host = options.host ?? options.hostname ?? '';
    if (isIP(host) !== 0) {
      const reason = forbiddenAddressReason(host, ssrf);
      if (reason !== undefined) {
        callback(forbidden(reason), undefined as unknown as Duplex);
        return undefined;
      }
    }
    return connect(options, callback);
  };
}

/**
 * An agent for callback POSTs to `protocol` URLs with this SSRF setting: every connection it
 * opens is judged at connect time (a literal host before the socket opens, a name on every
 * address `resolve` returns). It keeps no socket alive (each request closes its connection, so
 * none is reused past its check): callbacks go to many hosts, rarely twice in a row, and a
 * reused idle socket the merchant already closed would fail an attempt for nothing. Its lookup
 * replaces any a request names.
 */
export function callbackAgent(protocol: 'http:' | 'https:', ssrf: SsrfOptions, resolve: LookupFunction = dnsLookup as unknown as LookupFunction): HttpAgent {
  const agent = protocol === 'https:' ? new HttpsAgent({ keepAlive: false, lookup: guardedLookup(resolve, ssrf) }) : new HttpAgent({ keepAlive: false, lookup: guardedLookup(resolve, ssrf) });
  agent.createConnection = guardedConnect(ssrf, agent.createConnection.bind(agent) as Connect) as HttpAgent['createConnection'];
  return agent;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA', 'ESERVFAIL', 'ENONAME']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT']);

function isTlsCode(code: string): boolean {
  return (
    code === 'EPROTO' ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('UNABLE_TO_') ||
    code.startsWith('CERT_') ||
    code.includes('SELF_SIGNED') ||
    code === 'HOSTNAME_MISMATCH'
  );
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Happy eyeballs reports every failed address in an AggregateError.
  const inner = (error as { errors?: unknown }).errors;
  return Array.isArray(inner) ? codeOf(inner[0]) : undefined;
}

/** Any failure before a status line, as a typed error with a message fit for the merchant. */
function transportError(error: unknown): CallbackTransportError {
  if (error instanceof CallbackTransportError) return error;
  const code = codeOf(error);
  const syscall = (error as { syscall?: unknown } | null)?.syscall;
  if ((code && DNS_CODES.has(code)) || syscall === 'getaddrinfo') {
    return new CallbackTransportError('dns', `could not resolve the callback host (${code ?? 'DNS error'})`, code, { cause: error });
  }
  if (code && isTlsCode(code)) {
    return new CallbackTransportError('tls', `TLS with the callback host failed (${code})`, code, { cause: error });
  }
  if (code && TIMEOUT_CODES.has(code)) {
    return new CallbackTransportError('timeout', `connecting to the callback host timed out (${code})`, code, { cause: error });
  }
  // node:http reports a connection closed before the status line ("socket hang up") as ECONNRESET.
  const what =
    code === 'ECONNREFUSED' ? 'connection refused' : code === 'ECONNRESET' ? 'connection reset' : code === 'EHOSTUNREACH' || code === 'ENETUNREACH' ? 'host unreachable' : 'connection failed';
  return new CallbackTransportError('connection', `${what} by the callback host${code ? ` (${code})` : ''}`, code, { cause: error });
}

/** The request headers: content-type defaulted, content-length from the body. */
function requestHeaders(options: PostJsonOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers)) {
    if (name.toLowerCase() !== 'content-length') headers[name] = value;
  }
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(options.body));
  return headers;
}

/**
 * The response headers by lower-case name: a header sent once as its value, one sent more than
 * once as all its values in order (node's own `headers` would join some and drop others).
 */
function responseHeaders(raw: readonly string[]): Record<string, string | string[] | undefined> {
  const headers: Record<string, string | string[] | undefined> = Object.create(null);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    const seen = headers[name];
    headers[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return headers;
}

/**
 * POSTs `options.body` to `url` through the connect-time SSRF filter and resolves with the
 * status, headers and at most `maxResponseBytes` of the body, whatever the status (a 3xx is
 * returned as is, never followed). Rejects with {@link CallbackTransportError} when no status
 * arrived: refused address (also for a URL {@link checkCallbackUrl} refuses), DNS, connection,
 * TLS, or the deadline (`timeoutMs` over the whole exchange). A status that arrived in time
 * stands even if its body is still trickling at the deadline: the body is cut off there.
 */
export async function postJson(url: string, options: PostJsonOptions): Promise<PostJsonResult> {
  const ssrf: SsrfOptions = { allowLoopback: options.allowLoopback };
  const timeoutMs = options.timeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  try {
    // The stored URL is judged again: it may predate the check, or the policy may have changed.
    checkCallbackUrl(url, ssrf);
  } catch (error) {
    if (error instanceof InvalidParameterError) {
      throw new CallbackTransportError('forbidden-address', error.message, undefined, { cause: error });
    }
    throw error;
  }

  const started = performance.now();
  const target = new URL(url);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new CallbackTransportError('timeout', `no response from the callback host within ${timeoutMs} ms`)), timeoutMs);
  let request: ClientRequest | undefined;
  let response: IncomingMessage | undefined;
  // At the deadline: before the status line the request fails with the timeout error; after it
  // the body stops where it is. Either way the connection is dropped.
  const onDeadline = () => (response ?? request)?.destroy(deadline.signal.reason as Error);
  deadline.signal.addEventListener('abort', onDeadline, { once: true });
  try {
    try {
      response = await new Promise<IncomingMessage>((resolve, reject) => {
        const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
        request = send(target, {
          method: 'POST',
          headers: requestHeaders(options),
          // A fresh agent that keeps no socket: the connection is opened (and judged) for this
          // exchange alone, and closes after it (connection: close).
          agent: callbackAgent(target.protocol as 'http:' | 'https:', ssrf, options.lookup),
        });
        request.once('response', resolve);
        // Kept for the request's whole life: an error after the status line must not go unhandled.
        request.on('error', reject);
        request.end(options.body);
      });
    } catch (error) {
      request?.destroy();
      throw deadline.signal.aborted ? deadline.signal.reason : transportError(error);
    }

    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        const room = maxResponseBytes - size;
        if (chunk.length > room) {
          // Enough read: keep the status, stop reading, drop the connection.
          chunks.push(chunk.subarray(0, room));
          size += room;
          truncated = true;
          break;
        }
        chunks.push(chunk);
        size += chunk.length;
      }
    } catch {
      // The status arrived in time: a body cut short (by the deadline or the merchant's side)
      // still yields it; cut by us, it counts as truncated.
      truncated ||= deadline.signal.aborted;
    } finally {
      // An unfinished body destroys the socket with it.
      response.destroy();
    }
    return {
      status: response.statusCode ?? 0,
      headers: responseHeaders(response.rawHeaders),
      body: Buffer.concat(chunks, size).toString('utf8'),
      truncated,
      latencyMs: performance.now() - started,
    };
  } finally {
    clearTimeout(timer);
    deadline.signal.removeEventListener('abort', onDeadline);
  }
}
