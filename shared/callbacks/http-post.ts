import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, Socket, type LookupFunction, type TcpNetConnectOpts } from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';
import {
  RequestFilteringHttpAgent,
  RequestFilteringHttpsAgent,
  type RequestFilteringAgentOptions,
} from 'request-filtering-agent';
import { checkCallbackUrl, forbiddenAddressReason, type SsrfOptions } from '#shared/callbacks/ssrf';
import { InvalidParameterError } from '#shared/domain/errors';

/**
 * The one way the service POSTs to a merchant's URL: node http/https (not fetch, which takes no
 * agent) through agents that check every address at connect time, so DNS rebinding and names
 * pointing inside the network are refused after resolution, not only when the URL was stored.
 * Two layers judge each address before a socket opens:
 *  1. ours, {@link forbiddenAddressReason} (IPv4-mapped unwrapped, 2000::/3 only for IPv6), on
 *     a literal host in `createConnection` and on every address our `lookup` wrapper returns;
 *  2. request-filtering-agent's (anything ipaddr.js does not call `unicast`, 0.0.0.0 and ::).
 * Redirects are never followed (node http does not), the whole exchange has one deadline and
 * the response body is read up to a bound.
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
  /** True when the body was longer than maxResponseBytes and reading stopped. */
  truncated: boolean;
  /** From the start of the request to the end of reading the response. */
  latencyMs: number;
}

function forbidden(reason: string): CallbackTransportError {
  return new CallbackTransportError('forbidden-address', `callback_url resolves to a forbidden address: ${reason}`);
}

/** ::ffff:a.b.c.d as a.b.c.d, so the library's filter judges the IPv4 address it reaches. */
function unmapped(address: LookupAddress): LookupAddress {
  if (address.family !== 6 || !ipaddr.IPv6.isValid(address.address)) return address;
  const parsed = ipaddr.IPv6.parse(address.address);
  return parsed.isIPv4MappedAddress() ? { address: parsed.toIPv4Address().toString(), family: 4 } : address;
}

/**
 * Wraps a DNS lookup so that an answer with any forbidden address fails the connection before
 * a socket opens (all of them are judged: with happy eyeballs node may try any of them).
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

/**
 * Our layer in front of the library's `createConnection`: a literal address (no lookup happens
 * for one) is judged here; a name gets the guarded lookup, which the library wraps in turn.
 */
type ConnectListener = (error: Error | null, socket: Duplex) => void;

function guardedConnectOptions(options: TcpNetConnectOpts, ssrf: SsrfOptions): TcpNetConnectOpts | CallbackTransportError {
  const host = options.host ?? 'localhost';
  if (isIP(host) !== 0) {
    const reason = forbiddenAddressReason(host, ssrf);
    if (reason !== undefined) return forbidden(reason);
  }
  const resolve = (options.lookup as LookupFunction | undefined) ?? (dnsLookup as unknown as LookupFunction);
  return { ...options, lookup: guardedLookup(resolve, ssrf) };
}

/** A socket already failed with `error`, the way the library reports a refusal to the agent. */
function failedSocket(error: Error, listener?: ConnectListener): Socket {
  const socket = new Socket();
  if (listener) listener(error, socket);
  else socket.destroy(error);
  return socket;
}

/**
 * The library's filter options. With loopback allowed, its private-range check is off (it has
 * no "loopback only" setting, and a mixed IPv4/IPv6 allow list makes it warn on every
 * connection); our classifier, which allows loopback and nothing else private, still runs on
 * every address. 0.0.0.0 and :: stay refused by both layers.
 */
function filterOptions(ssrf: SsrfOptions): RequestFilteringAgentOptions {
  return { allowPrivateIPAddress: ssrf.allowLoopback, allowMetaIPAddress: false };
}

type FilteringAgentClass = typeof RequestFilteringHttpAgent | typeof RequestFilteringHttpsAgent;

/**
 * The library's agent for one protocol, with our own address check before every connection.
 * keepAlive off: callbacks go to many hosts, rarely twice in a row, and a reused idle socket
 * the merchant already closed would fail an attempt for nothing.
 */
function guardedAgent<Base extends FilteringAgentClass>(Agent: Base, ssrf: SsrfOptions): InstanceType<Base> {
  const agent = new Agent({ keepAlive: false, ...filterOptions(ssrf) }) as InstanceType<Base> & {
    createConnection(options: TcpNetConnectOpts, listener?: ConnectListener): Duplex;
  };
  const connect = agent.createConnection.bind(agent);
  agent.createConnection = (options: TcpNetConnectOpts, listener?: ConnectListener) => {
    const guarded = guardedConnectOptions(options, ssrf);
    if (guarded instanceof Error) return failedSocket(guarded, listener);
    return connect(guarded, listener);
  };
  return agent;
}

/** One agent per protocol and option set, built at module load and reused. */
const agents = {
  strict: {
    http: guardedAgent(RequestFilteringHttpAgent, { allowLoopback: false }),
    https: guardedAgent(RequestFilteringHttpsAgent, { allowLoopback: false }),
  },
  loopback: {
    http: guardedAgent(RequestFilteringHttpAgent, { allowLoopback: true }),
    https: guardedAgent(RequestFilteringHttpsAgent, { allowLoopback: true }),
  },
} as const;

/** The agent postJson uses for `protocol` ('http:' or 'https:'); exported for tests. */
export function callbackAgentFor(protocol: 'http:' | 'https:', ssrf: SsrfOptions): RequestFilteringHttpAgent | RequestFilteringHttpsAgent {
  const set = ssrf.allowLoopback ? agents.loopback : agents.strict;
  return protocol === 'https:' ? set.https : set.http;
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
  const message = error instanceof Error ? error.message : String(error);
  // request-filtering-agent's refusal ("DNS lookup <ip>(...) is not allowed. Because ..."):
  // only reached if its table refuses an address ours allows. Its text names the address; ours does not.
  if (/^DNS lookup .* is not allowed/u.test(message)) {
    return new CallbackTransportError('forbidden-address', 'callback_url resolves to a forbidden address', undefined, { cause: error });
  }
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
  const what =
    code === 'ECONNREFUSED' ? 'connection refused' :
    code === 'ECONNRESET' ? 'connection reset' :
    code === 'EHOSTUNREACH' || code === 'ENETUNREACH' ? 'host unreachable' :
    'connection failed';
  return new CallbackTransportError('connection', `${what} by the callback host${code ? ` (${code})` : ''}`, code, { cause: error });
}

/**
 * POSTs `options.body` to `url` through the connect-time SSRF filter and resolves with the
 * status, headers and at most `maxResponseBytes` of the body, whatever the status (a 3xx is
 * returned as is, never followed). Rejects with {@link CallbackTransportError} when no complete
 * response arrived: refused address (also for a URL {@link checkCallbackUrl} refuses), DNS,
 * connection, TLS, or the deadline (`timeoutMs` over the whole exchange, body included).
 */
export function postJson(url: string, options: PostJsonOptions): Promise<PostJsonResult> {
  const ssrf: SsrfOptions = { allowLoopback: options.allowLoopback };
  const timeoutMs = options.timeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  try {
    // The stored URL is judged again: it may predate the check, or the policy may have changed.
    checkCallbackUrl(url, ssrf);
  } catch (error) {
    return Promise.reject(
      error instanceof InvalidParameterError
        ? new CallbackTransportError('forbidden-address', error.message, undefined, { cause: error })
        : error,
    );
  }
  const target = new URL(url);
  const protocol = target.protocol === 'https:' ? 'https:' : 'http:';
  const headers: Record<string, string> = { ...options.headers };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-length') delete headers[name];
  headers['content-length'] = String(Buffer.byteLength(options.body));

  return new Promise<PostJsonResult>((resolve, reject) => {
    const started = performance.now();
    let settled = false;
    let response: IncomingMessage | undefined;
    let answered: (() => void) | undefined;

    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      outcome();
    };

    const send = protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: 'POST',
        headers,
        agent: callbackAgentFor(protocol, ssrf),
        ...(options.lookup ? { lookup: options.lookup } : {}),
      },
      (res) => {
        response = res;
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        // The status arrived in time: at the deadline, a body still trickling in is cut off
        // and the answer stands (the merchant answered; only its body was slow).
        answered = () => {
          truncated = true;
          done();
        };
        const done = () =>
          settle(() =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks, size).toString('utf8'),
              truncated,
              latencyMs: performance.now() - started,
            }),
          );
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          const room = maxResponseBytes - size;
          if (chunk.length > room) {
            // Enough read: keep the status, stop reading, drop the connection.
            chunks.push(chunk.subarray(0, room));
            size += room;
            truncated = true;
            done();
            res.destroy();
            req.destroy();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', done);
        // The status arrived: a body cut short by the merchant's side still yields it.
        res.on('close', done);
        res.on('error', () => undefined);
      },
    );

    const deadline = setTimeout(() => {
      if (answered) answered();
      else settle(() => reject(new CallbackTransportError('timeout', `no response from the callback host within ${timeoutMs} ms`)));
      response?.destroy();
      req.destroy();
    }, timeoutMs);

    req.on('error', (error) => settle(() => reject(transportError(error))));
    req.end(options.body);
  });
}
