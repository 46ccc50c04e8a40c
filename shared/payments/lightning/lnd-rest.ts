/**
 * LND's REST interface (the grpc-gateway in front of lnrpc): the few calls the service makes.
 *
 * - `POST /v1/invoices` (AddInvoice) with `value_msat`, `memo` and `expiry`: answers `r_hash`
 *   (base64), `payment_request` (BOLT #11) and `add_index`.
 * - `GET /v2/invoices/lookup?payment_hash=` (LookupInvoiceV2): one invoice and its `state`
 *   (OPEN, SETTLED, CANCELED, ACCEPTED).
 * - `GET /v1/invoices?index_offset=&num_max_invoices=&reversed=` (ListInvoices): invoices by
 *   `add_index`, oldest first; what the settlement watcher pages through.
 *
 * Every call carries the macaroon as hex in `Grpc-Metadata-macaroon`, over TLS pinned to the
 * node's own certificate (LND's tls.cert is self-signed). The gateway writes int64/uint64
 * fields as decimal strings and bytes fields as base64; both are checked here, and anything
 * else is a {@link SourceError}: never a wrong value.
 */
import { request as httpsRequest } from 'node:https';
import { bytesToHex } from '@noble/hashes/utils.js';
import { type Bolt11Error, decodeBolt11 } from '#shared/payments/lightning/bolt11';
import type { CreateInvoiceInput, CreatedInvoice, LightningNode } from '#shared/payments/lightning/node';
import { RetriesExhaustedError, RetryableStatusError, withRetries } from '#shared/core/retry';
import { SourceError } from '#shared/core/source-error';

/** What the service needs to talk to one LND node. */
export interface LndCredentials {
  /** The macaroon (invoice.macaroon is enough: invoices read and write), hex. */
  macaroonHex: string;
  /** The node's TLS certificate (PEM), trusted as the only CA; absent: the system's CAs. */
  tlsCertificate?: string;
}

export interface LndRestOptions {
  /** `https://host:8080`, LND's restlisten. */
  url: string;
  /** Read on first use (files, SSM) and kept for the process. */
  credentials: () => Promise<LndCredentials>;
  /** Per request, ms (default 10 s). */
  timeoutMs?: number;
  /** Tries of a read (transport errors, timeouts, 5xx); AddInvoice is tried once. Default 3. */
  attempts?: number;
  /** First backoff between tries, ms, doubled per try (default 250). */
  backoffMs?: number;
}

/** An invoice's state as LND names it. */
export type LndInvoiceState = 'OPEN' | 'SETTLED' | 'CANCELED' | 'ACCEPTED';
const STATES: readonly LndInvoiceState[] = ['OPEN', 'SETTLED', 'CANCELED', 'ACCEPTED'];

/** An invoice as read from LND, its fields checked and typed. */
export interface LndInvoice {
  /** The payment hash, lowercase hex. */
  paymentHash: string;
  paymentRequest: string;
  state: LndInvoiceState;
  valueMsat: bigint;
  /** What was received; may exceed the value (Lightning lets a payer overpay). */
  amountPaidMsat: bigint;
  addIndex: bigint;
  /** 0 until settled. */
  settleIndex: bigint;
  /** Unix seconds. */
  creationDate: number;
  /** Unix seconds; 0 until settled. */
  settleDate: number;
  expirySeconds: number;
}

/** A page of ListInvoices. */
export interface LndInvoicePage {
  invoices: LndInvoice[];
  /** The add_index to pass as index_offset for the next page (forward). */
  lastIndexOffset: bigint;
}

const SOURCE = 'LBTC';
/** A ListInvoices page of 1000 invoices is ~1.5 MB; anything far beyond is not LND. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const UINT64 = /^\d{1,20}$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** The REST client: transport, authentication and the checked shapes of LND's answers. */
export class LndRestClient {
  private readonly base: URL;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private credentials: Promise<LndCredentials> | undefined;

  constructor(private readonly options: LndRestOptions) {
    this.base = new URL(options.url);
    if (this.base.protocol !== 'https:') throw new RangeError('LND_REST_URL must be an https URL (LND serves REST over TLS only)');
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.attempts = options.attempts ?? 3;
    this.backoffMs = options.backoffMs ?? 250;
  }

  /** AddInvoice. Tried once: a retry after a lost answer would leave a second invoice behind. */
  async addInvoice(input: { valueMsat: bigint; memo: string; expirySeconds: number }): Promise<{
    paymentHash: string;
    paymentRequest: string;
    addIndex: bigint;
  }> {
    const body = { value_msat: input.valueMsat.toString(), memo: input.memo, expiry: String(input.expirySeconds) };
    const answer = object(await this.call('POST', '/v1/invoices', body, 1), 'AddInvoice');
    return {
      paymentHash: hash32(answer.r_hash, 'r_hash'),
      paymentRequest: paymentRequest(answer.payment_request),
      addIndex: uint64(answer.add_index, 'add_index'),
    };
  }

  /** LookupInvoiceV2 by payment hash (hex); undefined when the node has no such invoice. */
  async lookupInvoice(paymentHashHex: string): Promise<LndInvoice | undefined> {
    if (!/^[0-9a-f]{64}$/.test(paymentHashHex)) throw new RangeError('a payment hash is 32 bytes of lowercase hex');
    // Query parameters carry bytes as URL-safe base64.
    const query = Buffer.from(paymentHashHex, 'hex').toString('base64url');
    const answer = await this.call('GET', `/v2/invoices/lookup?payment_hash=${query}`, undefined, this.attempts, true);
    return answer === undefined ? undefined : invoice(answer);
  }

  /** ListInvoices forward from `indexOffset` (exclusive), at most `max`. */
  async listInvoices(indexOffset: bigint, max: number): Promise<LndInvoicePage> {
    const path = `/v1/invoices?index_offset=${indexOffset}&num_max_invoices=${max}&reversed=false`;
    return this.page(await this.call('GET', path, undefined, this.attempts));
  }

  /** The newest invoice's add_index (0 for a node without invoices). */
  async newestAddIndex(): Promise<bigint> {
    const page = this.page(await this.call('GET', '/v1/invoices?num_max_invoices=1&reversed=true', undefined, this.attempts));
    return page.invoices.reduce((newest, found) => (found.addIndex > newest ? found.addIndex : newest), 0n);
  }

  private page(answer: unknown): LndInvoicePage {
    const page = object(answer, 'ListInvoices');
    // The gateway leaves empty lists and zero values out.
    const list = page.invoices ?? [];
    if (!Array.isArray(list)) throw garbage('invoices is not a list');
    return { invoices: list.map(invoice), lastIndexOffset: uint64(page.last_index_offset ?? '0', 'last_index_offset') };
  }

  /**
   * One call, tried again with backoff on transport errors, timeouts and 5xx. `notFound`: a 404
   * answers undefined (LookupInvoice of an unknown hash).
   */
  private async call(method: 'GET' | 'POST', path: string, body: unknown, attempts: number, notFound = false): Promise<unknown> {
    this.credentials ??= this.options.credentials().catch((error: unknown) => {
      this.credentials = undefined; // a failed read (SSM throttled, file missing) is tried again next time
      throw new SourceError(SOURCE, 'LND credentials could not be read', { cause: error });
    });
    const credentials = await this.credentials;
    const what = `${method} ${path.split('?')[0]}`;
    try {
      return await withRetries(
        { attempts, baseDelayMs: this.backoffMs },
        // A garbage answer (a SourceError) is garbage again: only the transport and 5xx are retried.
        { retried: (error) => !(error instanceof SourceError) },
        async () => {
          const response = await this.send(method, path, body, credentials);
          if (response.status >= 500) throw new RetryableStatusError(response.status, lndMessage(response.text));
          if (response.status === 404 && notFound) return undefined;
          if (response.status !== 200) throw garbage(`${what} answered HTTP ${response.status}: ${lndMessage(response.text)}`);
          try {
            return JSON.parse(response.text) as unknown;
          } catch {
            throw garbage(`${what} answered a body that is not JSON`);
          }
        },
      );
    } catch (error) {
      if (error instanceof RetriesExhaustedError) throw new SourceError(SOURCE, `${what}: ${error.message}`);
      throw error;
    }
  }

  private send(method: string, path: string, body: unknown, credentials: LndCredentials): Promise<{ status: number; text: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const target = new URL(path, this.base);
      const req = httpsRequest(
        target,
        {
          method,
          headers: {
            'Grpc-Metadata-macaroon': credentials.macaroonHex,
            accept: 'application/json',
            ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
          // Pinned: only the node's own certificate is trusted (hostname checked as usual).
          ...(credentials.tlsCertificate ? { ca: credentials.tlsCertificate } : {}),
          timeout: this.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) req.destroy(new Error(`answer larger than ${MAX_RESPONSE_BYTES} bytes`));
            else chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }
}

/**
 * A real Lightning node behind LND's REST interface: every invoice is AddInvoice's, with the
 * invoice's amount, description (memo) and lifetime. The answer is read back with the BOLT #11
 * decoder and refused unless it is the invoice asked for (amount, payment hash, a valid
 * signature): a buyer is never shown an invoice the node did not make for this amount.
 */
export class LndRestNode implements LightningNode {
  constructor(readonly client: LndRestClient) {}

  async createInvoice(input: CreateInvoiceInput): Promise<CreatedInvoice> {
    const added = await this.client.addInvoice({
      valueMsat: input.amountMsat,
      memo: input.description,
      expirySeconds: input.expirySeconds,
    });
    let decoded;
    try {
      decoded = decodeBolt11(added.paymentRequest);
    } catch (error) {
      throw garbage(`payment_request is not a BOLT #11 invoice: ${(error as Bolt11Error).message}`);
    }
    if (!decoded.signatureValid) throw garbage('payment_request has an invalid signature');
    if (decoded.amountMsat !== input.amountMsat) {
      throw garbage(`payment_request is for ${decoded.amountMsat ?? 'any'} msat, asked for ${input.amountMsat}`);
    }
    if (bytesToHex(decoded.paymentHash) !== added.paymentHash) throw garbage('payment_request does not carry r_hash');
    return { bolt11: added.paymentRequest.toLowerCase(), paymentHash: added.paymentHash };
  }

  /** The invoice's state (OPEN, SETTLED, CANCELED, ACCEPTED) and what was paid; undefined if unknown. */
  lookupInvoice(paymentHashHex: string): Promise<LndInvoice | undefined> {
    return this.client.lookupInvoice(paymentHashHex);
  }
}

function garbage(message: string): SourceError {
  return new SourceError(SOURCE, message);
}

/** LND's error bodies are `{"code": n, "message": "..."}`; keep the message, short. */
function lndMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message.slice(0, 200);
  } catch {
    // not JSON: fall through
  }
  return text.slice(0, 200);
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw garbage(`${what} answer is not an object`);
  return value as Record<string, unknown>;
}

/** uint64 fields arrive as decimal strings; a field left out is zero (proto3 JSON). */
function uint64(value: unknown, name: string): bigint {
  if (value === undefined) return 0n;
  if (typeof value !== 'string' || !UINT64.test(value)) throw garbage(`${name} is not a uint64 string`);
  const parsed = BigInt(value);
  if (parsed >= 2n ** 64n) throw garbage(`${name} is out of range`);
  return parsed;
}

function seconds(value: unknown, name: string): number {
  const parsed = uint64(value, name);
  if (parsed > BigInt(Number.MAX_SAFE_INTEGER)) throw garbage(`${name} is out of range`);
  return Number(parsed);
}

function hash32(value: unknown, name: string): string {
  if (typeof value !== 'string' || !BASE64.test(value)) throw garbage(`${name} is not base64`);
  const bytes = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
  if (bytes.length !== 32) throw garbage(`${name} is not 32 bytes`);
  return bytes.toString('hex');
}

function paymentRequest(value: unknown): string {
  if (typeof value !== 'string' || !/^ln[a-z0-9]+$/i.test(value)) throw garbage('payment_request is not a BOLT #11 string');
  return value;
}

function invoice(value: unknown): LndInvoice {
  const raw = object(value, 'Invoice');
  const state = raw.state ?? 'OPEN'; // proto3 JSON leaves the zero enum value out
  if (typeof state !== 'string' || !STATES.includes(state as LndInvoiceState)) throw garbage(`unknown invoice state ${String(state)}`);
  return {
    paymentHash: hash32(raw.r_hash, 'r_hash'),
    paymentRequest: paymentRequest(raw.payment_request),
    state: state as LndInvoiceState,
    valueMsat: uint64(raw.value_msat, 'value_msat'),
    amountPaidMsat: uint64(raw.amt_paid_msat, 'amt_paid_msat'),
    addIndex: uint64(raw.add_index, 'add_index'),
    settleIndex: uint64(raw.settle_index, 'settle_index'),
    creationDate: seconds(raw.creation_date, 'creation_date'),
    settleDate: seconds(raw.settle_date, 'settle_date'),
    expirySeconds: seconds(raw.expiry, 'expiry'),
  };
}
