/**
 * A local stand-in for LND's REST interface, for tests: HTTPS with the node's own self-signed
 * certificate (tests/fixtures/lnd), the macaroon checked on every call, and invoices that are
 * real BOLT #11 payment requests signed by a test node key. It speaks what the service uses,
 * in LND's JSON (grpc-gateway: uint64 as decimal strings, bytes as base64, every field
 * emitted): AddInvoice, LookupInvoiceV2 and ListInvoices, with LND's pagination by add_index.
 *
 * The test plays the payer and the clock: `settle` settles an invoice (next settle_index), an
 * invoice past its expiry reads as CANCELED (LND cancels expired invoices), and `faults`
 * make the next answers fail.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { type Bolt11Network, encodeBolt11, privateKeySigner } from '#shared/payments/lightning/bolt11';

const FIXTURES = join(import.meta.dirname, '../fixtures/lnd');
export const LND_TLS_CERT = readFileSync(join(FIXTURES, 'node.cert'), 'utf8');
const LND_TLS_KEY = readFileSync(join(FIXTURES, 'node.key'), 'utf8');
/** A certificate of another node: pinning it must refuse this server. */
export const OTHER_TLS_CERT = readFileSync(join(FIXTURES, 'other.cert'), 'utf8');

export interface StoredInvoice {
  memo: string;
  preimage: Buffer;
  paymentHash: Buffer;
  paymentAddr: Buffer;
  valueMsat: bigint;
  creationDate: number;
  expiry: number;
  paymentRequest: string;
  addIndex: bigint;
  settleIndex: bigint;
  settleDate: number;
  amountPaidMsat: bigint;
  state: 'OPEN' | 'SETTLED' | 'CANCELED' | 'ACCEPTED';
}

/** What the next answers do instead of answering: 503, a body that is not JSON, a wrong shape, no answer. */
export type Fault = 'unavailable' | 'not-json' | 'wrong-shape' | 'hang';

export interface LndServerOptions {
  /** The node's key (32 bytes); a fixed test key by default. */
  nodeKey?: Uint8Array;
  network?: Bolt11Network;
  /** The server's clock, unix seconds (defaults to the real one). */
  now?: () => number;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

export class LndTestServer {
  /** The macaroon as LND writes it (binary); clients send it as hex. */
  readonly macaroon = randomBytes(64);
  readonly nodeKey: Uint8Array;
  readonly invoices: StoredInvoice[] = [];
  readonly faults: Fault[] = [];
  /** Every request that reached the node: method and path (with the query), and the JSON body. */
  readonly received: { route: string; body?: unknown }[] = [];
  /** Rewrites AddInvoice's answers (a node that answers something other than what was asked). */
  tamper: ((answer: Record<string, unknown>) => Record<string, unknown>) | undefined;
  private nextAddIndex = 1n;
  private nextSettleIndex = 1n;
  private server: Server | undefined;
  private readonly network: Bolt11Network;
  now: () => number;

  constructor(options: LndServerOptions = {}) {
    this.nodeKey = options.nodeKey ?? sha256(Buffer.from('lnd-test-node'));
    this.network = options.network ?? 'bcrt';
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
  }

  /** The node's public key (compressed, hex), as `lncli getinfo` shows it. */
  get identityPubkey(): string {
    return Buffer.from(secp256k1.getPublicKey(this.nodeKey, true)).toString('hex');
  }

  get url(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `https://127.0.0.1:${port}`;
  }

  async start(): Promise<this> {
    this.server = createServer({ cert: LND_TLS_CERT, key: LND_TLS_KEY }, (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        this.received.push({ route: `${req.method} ${req.url}`, ...(body ? { body: JSON.parse(body) as unknown } : {}) });
        const answer = this.answer(req.method ?? '', new URL(req.url ?? '/', 'https://lnd'), req.headers['grpc-metadata-macaroon'], body);
        if (answer === 'hang') return; // the client's timeout ends it
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server?.close(() => resolve());
      this.server?.closeAllConnections();
    });
  }

  /** The payer's side: the invoice is paid (with `amountMsat`, by default its value). */
  settle(paymentHashHex: string, amountMsat?: bigint): StoredInvoice {
    const found = this.find(paymentHashHex);
    this.refreshState(found);
    if (found.state !== 'OPEN') throw new Error(`invoice ${paymentHashHex} is ${found.state}, cannot settle`);
    found.state = 'SETTLED';
    found.settleIndex = this.nextSettleIndex++;
    found.settleDate = this.now();
    found.amountPaidMsat = amountMsat ?? found.valueMsat;
    return found;
  }

  /** Makes an invoice as another application on the same node would (not through the API). */
  addForeignInvoice(valueMsat: bigint, expiry = 3600): StoredInvoice {
    return this.add(valueMsat, 'someone else', expiry);
  }

  find(paymentHashHex: string): StoredInvoice {
    const found = this.invoices.find((stored) => stored.paymentHash.toString('hex') === paymentHashHex);
    if (!found) throw new Error(`no invoice ${paymentHashHex}`);
    return found;
  }

  private answer(method: string, url: URL, macaroon: string | string[] | undefined, body: string): { status: number; body: unknown } | 'hang' {
    const fault = this.faults.shift();
    if (fault === 'hang') return 'hang';
    if (fault === 'unavailable') return { status: 503, body: { code: 14, message: 'lnd is starting up', details: [] } };
    if (fault === 'not-json') return { status: 200, body: '<html>proxy error</html>' };
    if (macaroon !== this.macaroon.toString('hex')) {
      return { status: 500, body: { code: 2, message: 'verification failed: signature mismatch after caveat verification', details: [] } };
    }
    const route = `${method} ${url.pathname}`;
    if (route === 'POST /v1/invoices') {
      const request = JSON.parse(body) as { value_msat?: string | number; memo?: string; expiry?: string | number };
      const stored = this.add(BigInt(request.value_msat ?? 0), request.memo ?? '', Number(request.expiry ?? 86_400));
      const answer = {
        r_hash: stored.paymentHash.toString('base64'),
        payment_request: stored.paymentRequest,
        add_index: stored.addIndex.toString(),
        payment_addr: stored.paymentAddr.toString('base64'),
      };
      const tampered = this.tamper ? this.tamper(answer) : answer;
      return { status: 200, body: fault === 'wrong-shape' ? { ...tampered, r_hash: 'AAAA' } : tampered };
    }
    if (route === 'GET /v2/invoices/lookup') {
      const hash = Buffer.from(url.searchParams.get('payment_hash') ?? '', 'base64url').toString('hex');
      const found = this.invoices.find((stored) => stored.paymentHash.toString('hex') === hash);
      if (!found) return { status: 404, body: { code: 5, message: 'there are no existing invoices', details: [] } };
      return { status: 200, body: this.json(found) };
    }
    if (route === 'GET /v1/invoices') {
      const offset = BigInt(url.searchParams.get('index_offset') ?? '0');
      const max = Number(url.searchParams.get('num_max_invoices') ?? '100') || 100;
      const reversed = url.searchParams.get('reversed') === 'true';
      let page: StoredInvoice[];
      if (reversed) {
        const before = this.invoices.filter((stored) => offset === 0n || stored.addIndex < offset);
        page = before.slice(-max);
      } else {
        page = this.invoices.filter((stored) => stored.addIndex > offset).slice(0, max);
      }
      const invoices = page.map((stored) => this.json(stored));
      if (fault === 'wrong-shape' && invoices[0]) invoices[0] = { ...invoices[0], settle_index: -1 as unknown as string };
      return {
        status: 200,
        body: {
          invoices,
          last_index_offset: (page.at(-1)?.addIndex ?? offset).toString(),
          first_index_offset: (page[0]?.addIndex ?? offset).toString(),
        },
      };
    }
    return { status: 404, body: { code: 5, message: 'Not Found', details: [] } };
  }

  private add(valueMsat: bigint, memo: string, expiry: number): StoredInvoice {
    const preimage = randomBytes(32);
    const paymentHash = sha256(preimage);
    const paymentAddr = randomBytes(32);
    const creationDate = this.now();
    const paymentRequest = encodeBolt11(
      { network: this.network, amountMsat: valueMsat, timestamp: creationDate, paymentHash, paymentSecret: paymentAddr, description: memo, expirySeconds: expiry, minFinalCltvExpiry: 80 },
      privateKeySigner(this.nodeKey),
    );
    const stored: StoredInvoice = {
      memo,
      preimage,
      paymentHash,
      paymentAddr,
      valueMsat,
      creationDate,
      expiry,
      paymentRequest,
      addIndex: this.nextAddIndex++,
      settleIndex: 0n,
      settleDate: 0,
      amountPaidMsat: 0n,
      state: 'OPEN',
    };
    this.invoices.push(stored);
    return stored;
  }

  /** LND cancels an open invoice once it has expired. */
  private refreshState(stored: StoredInvoice): void {
    if (stored.state === 'OPEN' && this.now() >= stored.creationDate + stored.expiry) stored.state = 'CANCELED';
  }

  private json(stored: StoredInvoice): Record<string, unknown> {
    this.refreshState(stored);
    const settled = stored.state === 'SETTLED';
    return {
      memo: stored.memo,
      r_preimage: settled ? stored.preimage.toString('base64') : '',
      r_hash: stored.paymentHash.toString('base64'),
      value: (stored.valueMsat / 1000n).toString(),
      value_msat: stored.valueMsat.toString(),
      settled,
      creation_date: String(stored.creationDate),
      settle_date: String(stored.settleDate),
      payment_request: stored.paymentRequest,
      description_hash: '',
      expiry: String(stored.expiry),
      fallback_addr: '',
      cltv_expiry: '80',
      route_hints: [],
      private: false,
      add_index: stored.addIndex.toString(),
      settle_index: stored.settleIndex.toString(),
      amt_paid: stored.amountPaidMsat.toString(),
      amt_paid_sat: (stored.amountPaidMsat / 1000n).toString(),
      amt_paid_msat: stored.amountPaidMsat.toString(),
      state: stored.state,
      htlcs: [],
      features: {},
      is_keysend: false,
      payment_addr: stored.paymentAddr.toString('base64'),
      is_amp: false,
      amp_invoice_state: {},
    };
  }
}
