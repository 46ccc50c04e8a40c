import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '#shared/core/env';
import { lndClientFromEnv } from '#shared/payments/lightning/lnd-config';
import { LndRestClient, LndRestNode } from '#shared/payments/lightning/lnd-rest';
import { LndSettlements } from '#shared/watchers/sources/lnd-settlements';
import { SourceError } from '#shared/core/source-error';
import { formatDecimal } from '#shared/domain/money';
import { decodeIndependently } from '../support/bolt11-independent';
import { LND_TLS_CERT, LndTestServer, OTHER_TLS_CERT } from '../support/lnd-server';

let lnd: LndTestServer;

beforeEach(async () => {
  lnd = await new LndTestServer().start();
});

afterEach(async () => {
  await lnd.stop();
});

const clientFor = (server: LndTestServer, overrides: { macaroonHex?: string; tlsCertificate?: string | null; timeoutMs?: number } = {}) =>
  new LndRestClient({
    url: server.url,
    credentials: async () => ({
      macaroonHex: overrides.macaroonHex ?? server.macaroon.toString('hex'),
      ...(overrides.tlsCertificate === null ? {} : { tlsCertificate: overrides.tlsCertificate ?? LND_TLS_CERT }),
    }),
    timeoutMs: overrides.timeoutMs ?? 5000,
    backoffMs: 10,
  });

const NOW = new Date();

describe('AddInvoice through LND REST', () => {
  it('makes a BOLT #11 invoice with the amount, memo and expiry asked for, signed by the node', async () => {
    const node = new LndRestNode(clientFor(lnd));
    const created = await node.createInvoice({ amountMsat: 20_000_000n, description: 'Monthly Program x 1', expirySeconds: 3600, now: NOW });

    // Read back with an independent decoder (light-bolt11-decoder), not the service's own.
    const decoded = decodeIndependently(created.bolt11);
    expect(decoded.prefix).toBe('lnbcrt200u');
    expect(decoded.amountMsat).toBe('20000000');
    expect(decoded.description).toBe('Monthly Program x 1');
    expect(decoded.expiry).toBe(3600);
    expect(decoded.paymentHash).toBe(created.paymentHash);
    expect(decoded.payeeNodeKey).toBe(lnd.identityPubkey);
    // What went over the wire is LND's AddInvoice shape.
    expect(lnd.received.at(-1)).toEqual({
      route: 'POST /v1/invoices',
      body: { value_msat: '20000000', memo: 'Monthly Program x 1', expiry: '3600' },
    });
  });

  it('refuses an answer that is not the invoice asked for', async () => {
    const node = new LndRestNode(clientFor(lnd));
    lnd.faults.push('wrong-shape'); // r_hash of 3 bytes
    await expect(node.createInvoice({ amountMsat: 1000n, description: 'x', expirySeconds: 60, now: NOW })).rejects.toThrow(/r_hash is not 32 bytes/);
    lnd.tamper = (answer) => ({ ...answer, payment_request: lnd.addForeignInvoice(2000n).paymentRequest });
    await expect(node.createInvoice({ amountMsat: 1000n, description: 'x', expirySeconds: 60, now: NOW })).rejects.toThrow(/for 2000 msat, asked for 1000/);
    const other = lnd.addForeignInvoice(1000n);
    lnd.tamper = (answer) => ({ ...answer, payment_request: other.paymentRequest });
    await expect(node.createInvoice({ amountMsat: 1000n, description: 'x', expirySeconds: 60, now: NOW })).rejects.toThrow(/does not carry r_hash/);
  });

  it('is tried once (a retry could leave a second invoice): a 503 is an error at once', async () => {
    const node = new LndRestNode(clientFor(lnd));
    lnd.faults.push('unavailable');
    await expect(node.createInvoice({ amountMsat: 1000n, description: 'x', expirySeconds: 60, now: NOW })).rejects.toBeInstanceOf(SourceError);
    expect(lnd.invoices).toHaveLength(0);
    expect(lnd.received).toHaveLength(1);
  });
});

describe('authentication and TLS', () => {
  it('sends the macaroon as hex in Grpc-Metadata-macaroon; a wrong one is refused by the node', async () => {
    const wrong = clientFor(lnd, { macaroonHex: 'ab'.repeat(32) });
    await expect(wrong.listInvoices(0n, 10)).rejects.toThrow(/verification failed/);
    await expect(clientFor(lnd).listInvoices(0n, 10)).resolves.toMatchObject({ invoices: [] });
  });

  it('trusts only the pinned node certificate: another certificate, or none (system CAs), is refused', async () => {
    await expect(clientFor(lnd, { tlsCertificate: OTHER_TLS_CERT }).listInvoices(0n, 10)).rejects.toBeInstanceOf(SourceError);
    await expect(clientFor(lnd, { tlsCertificate: null }).listInvoices(0n, 10)).rejects.toThrow(/certificate/);
    expect(lnd.received).toHaveLength(0);
  });

  it('refuses plain http', () => {
    expect(() => new LndRestClient({ url: 'http://127.0.0.1:8080', credentials: async () => ({ macaroonHex: '00' }) })).toThrow(/https/);
  });
});

describe('LookupInvoiceV2', () => {
  it('follows an invoice from OPEN to SETTLED, or to CANCELED when it expires unpaid', async () => {
    let clock = Math.floor(Date.now() / 1000);
    lnd.now = () => clock;
    const node = new LndRestNode(clientFor(lnd));
    const paid = await node.createInvoice({ amountMsat: 5000n, description: 'paid', expirySeconds: 600, now: NOW });
    const unpaid = await node.createInvoice({ amountMsat: 7000n, description: 'unpaid', expirySeconds: 600, now: NOW });
    expect(await node.lookupInvoice(paid.paymentHash)).toMatchObject({ state: 'OPEN', valueMsat: 5000n, amountPaidMsat: 0n, settleIndex: 0n });

    lnd.settle(paid.paymentHash);
    expect(await node.lookupInvoice(paid.paymentHash)).toMatchObject({
      state: 'SETTLED',
      amountPaidMsat: 5000n,
      settleIndex: 1n,
      settleDate: clock,
      paymentRequest: paid.bolt11,
      addIndex: 1n,
    });
    clock += 600;
    expect(await node.lookupInvoice(unpaid.paymentHash)).toMatchObject({ state: 'CANCELED', amountPaidMsat: 0n });
    expect(await node.lookupInvoice('00'.repeat(32))).toBeUndefined();
    // The hash goes as URL-safe base64, as the REST gateway reads bytes in a query.
    expect(lnd.received.at(-1)?.route).toBe(`GET /v2/invoices/lookup?payment_hash=${Buffer.alloc(32).toString('base64url')}`);
  });

  it('tries a read again after a 503, and gives up with a SourceError on garbage or silence', async () => {
    const client = clientFor(lnd, { timeoutMs: 300 });
    const created = await new LndRestNode(client).createInvoice({ amountMsat: 5000n, description: 'x', expirySeconds: 600, now: NOW });
    lnd.faults.push('unavailable', 'unavailable');
    await expect(client.lookupInvoice(created.paymentHash)).resolves.toMatchObject({ state: 'OPEN' });
    lnd.faults.push('not-json');
    await expect(client.lookupInvoice(created.paymentHash)).rejects.toThrow(/not JSON/);
    lnd.faults.push('hang', 'hang', 'hang');
    await expect(client.lookupInvoice(created.paymentHash)).rejects.toThrow(/no answer within 300 ms after 3 tries/);
    lnd.faults.push('unavailable', 'unavailable', 'unavailable');
    await expect(client.lookupInvoice(created.paymentHash)).rejects.toThrow(/HTTP 503: lnd is starting up after 3 tries/);
  });
});

describe('settlements by settle_index (the LBTC watcher source)', () => {
  async function invoices(count: number, client = clientFor(lnd)) {
    const node = new LndRestNode(client);
    const made = [];
    for (let i = 0; i < count; i += 1) {
      made.push(await node.createInvoice({ amountMsat: BigInt(1000 * (i + 1)), description: `order ${i}`, expirySeconds: 3600, now: NOW }));
    }
    return made;
  }

  it('reports settled invoices in settle order, once, with the amount paid in BTC and the invoice as address', async () => {
    const source = new LndSettlements(clientFor(lnd));
    const first = await source.after(undefined, 100);
    expect(first).toEqual({ transfers: [], next: '0:0' });

    const [a, b, c] = await invoices(3);
    lnd.settle(b!.paymentHash);
    lnd.settle(a!.paymentHash, 1500n); // Lightning lets a payer pay more than asked
    const settled = await source.after(first.next, 100);
    expect(settled.transfers).toEqual([
      { key: b!.paymentHash, txid: b!.paymentHash, currency: 'LBTC', address: b!.bolt11, amount: expect.anything(), at: new Date(lnd.find(b!.paymentHash).settleDate * 1000) },
      { key: a!.paymentHash, txid: a!.paymentHash, currency: 'LBTC', address: a!.bolt11, amount: expect.anything(), at: new Date(lnd.find(a!.paymentHash).settleDate * 1000) },
    ]);
    expect(settled.transfers.map((t) => formatDecimal(t.amount))).toEqual(['0.00000002', '0.000000015']);
    // S = 2; A = 2: invoice 3 is still open.
    expect(settled.next).toBe('2:2');
    expect(await source.after(settled.next, 100)).toEqual({ transfers: [], next: '2:2' });

    lnd.settle(c!.paymentHash);
    const third = await source.after(settled.next, 100);
    expect(third.transfers.map((t) => t.key)).toEqual([c!.paymentHash]);
    expect(third.next).toBe('3:3');
  });

  it('returns at most `limit`, the rest on the next call', async () => {
    const source = new LndSettlements(clientFor(lnd));
    const made = await invoices(5);
    for (const invoice of made) lnd.settle(invoice.paymentHash);
    const one = await source.after('0:0', 2);
    expect(one.transfers.map((t) => t.key)).toEqual(made.slice(0, 2).map((i) => i.paymentHash));
    expect(one.next).toBe('2:2');
    const two = await source.after(one.next, 10);
    expect(two.transfers.map((t) => t.key)).toEqual(made.slice(2).map((i) => i.paymentHash));
    expect(two.next).toBe('5:5');
  });

  it('pages ListInvoices by add_index and moves A past canceled (expired) invoices, not past open ones', async () => {
    let clock = Math.floor(Date.now() / 1000);
    lnd.now = () => clock;
    const source = new LndSettlements(clientFor(lnd), { pageSize: 2 });
    const made = await invoices(5);
    lnd.settle(made[4]!.paymentHash);
    const open = await source.after('0:0', 10);
    expect(open.transfers.map((t) => t.key)).toEqual([made[4]!.paymentHash]);
    expect(open.next).toBe('1:0'); // invoice 1 is open: nothing below it is final yet
    clock += 3600; // the others expire unpaid: LND cancels them
    const expired = await source.after(open.next, 10);
    expect(expired).toEqual({ transfers: [], next: '1:5' });
    expect(lnd.received.filter((r) => r.route.startsWith('GET /v1/invoices?')).length).toBeGreaterThanOrEqual(6);
  });

  it("does not let another application's long-lived open invoice hold A back", async () => {
    const source = new LndSettlements(clientFor(lnd), { maxExpirySeconds: 86_400 });
    lnd.addForeignInvoice(1000n, 365 * 86_400);
    const [mine] = await invoices(1);
    lnd.settle(mine!.paymentHash);
    expect(await source.after('0:0', 10)).toMatchObject({ next: '1:2' });
  });

  it('starts a first run `lookback` invoices before the newest', async () => {
    const made = await invoices(5);
    lnd.settle(made[0]!.paymentHash); // before the watcher's window: not reported
    lnd.settle(made[4]!.paymentHash);
    const source = new LndSettlements(clientFor(lnd), { lookback: 2 });
    const first = await source.after(undefined, 10);
    expect(first.transfers.map((t) => t.key)).toEqual([made[4]!.paymentHash]);
  });

  it('never jumps a settle_index it has not seen (an invoice settled mid-scan), unless the gap is old', async () => {
    let clock = Math.floor(Date.now() / 1000);
    lnd.now = () => clock;
    const source = new LndSettlements(clientFor(lnd), { gapGraceSeconds: 120, clock: () => new Date(clock * 1000) });
    const [x, y] = await invoices(2);
    lnd.settle(x!.paymentHash); // settle_index 1
    lnd.settle(y!.paymentHash); // settle_index 2
    // The scan read x's page before x settled: it saw x OPEN and y settled.
    const stored = lnd.find(x!.paymentHash);
    stored.state = 'OPEN';
    const racing = await source.after('0:0', 10);
    expect(racing.transfers.map((t) => t.key)).toEqual([y!.paymentHash]);
    expect(racing.next).toBe('0:0'); // S stays below the gap; y will be reported again (idempotent)
    stored.state = 'SETTLED';
    const closed = await source.after(racing.next, 10);
    expect(closed.transfers.map((t) => t.key)).toEqual([x!.paymentHash, y!.paymentHash]);
    expect(closed.next).toBe('2:2');

    // A gap that never fills (a settlement below the scanned range) is passed once it is old.
    const foreign = lnd.addForeignInvoice(1000n); // add_index 3: below A = 3 in the cursor below
    const [z] = await invoices(1); // add_index 4
    lnd.settle(foreign.paymentHash.toString('hex')); // settle_index 3, never seen
    lnd.settle(z!.paymentHash); // settle_index 4
    const recent = await source.after('2:3', 10);
    expect(recent.transfers.map((t) => t.key)).toEqual([z!.paymentHash]);
    expect(recent.next).toBe('2:3');
    clock += 121;
    const old = await source.after(recent.next, 10);
    expect(old.transfers.map((t) => t.key)).toEqual([z!.paymentHash]);
    expect(old.next).toBe('4:4');
  });

  it('passes no gap while the scan was cut short by its page budget (the missing one may lie beyond)', async () => {
    let clock = Math.floor(Date.now() / 1000);
    lnd.now = () => clock;
    const [x, y] = await invoices(2);
    lnd.settle(y!.paymentHash); // settle_index 1, on the page the budget leaves out
    lnd.settle(x!.paymentHash); // settle_index 2
    clock += 600;
    const cut = new LndSettlements(clientFor(lnd), { pageSize: 1, maxPages: 1, clock: () => new Date(clock * 1000) });
    const partial = await cut.after('0:0', 10);
    expect(partial.transfers.map((t) => t.key)).toEqual([x!.paymentHash]);
    expect(partial.next).toBe('0:0');
    const whole = await new LndSettlements(clientFor(lnd), { clock: () => new Date(clock * 1000) }).after(partial.next, 10);
    expect(whole.transfers.map((t) => t.key)).toEqual([y!.paymentHash, x!.paymentHash]);
    expect(whole.next).toBe('2:2');
  });

  it('answers garbage with a SourceError and never a transfer', async () => {
    const source = new LndSettlements(clientFor(lnd));
    const [a] = await invoices(1);
    lnd.settle(a!.paymentHash);
    lnd.faults.push('wrong-shape');
    await expect(source.after('0:0', 10)).rejects.toThrow(/settle_index is not a uint64 string/);
    lnd.faults.push('not-json');
    await expect(source.after('0:0', 10)).rejects.toBeInstanceOf(SourceError);
    await expect(source.after('garbage', 10)).rejects.toThrow(/not an LND settlement cursor/);
    expect((await source.after('0:0', 10)).transfers).toHaveLength(1);
  });
});

describe('configuration (LND_REST_URL, macaroon and certificate)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lnd-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the macaroon as LND writes it (binary file) and the certificate from a file', async () => {
    writeFileSync(join(dir, 'invoice.macaroon'), lnd.macaroon);
    writeFileSync(join(dir, 'tls.cert'), LND_TLS_CERT);
    const client = lndClientFromEnv({ LND_REST_URL: lnd.url, LND_MACAROON_FILE: join(dir, 'invoice.macaroon'), LND_TLS_CERT_FILE: join(dir, 'tls.cert') });
    await expect(client!.listInvoices(0n, 1)).resolves.toMatchObject({ invoices: [] });
  });

  it('reads a hex macaroon and a PEM certificate from the environment', async () => {
    const client = lndClientFromEnv({ LND_REST_URL: lnd.url, LND_MACAROON: lnd.macaroon.toString('hex').toUpperCase(), LND_TLS_CERT: LND_TLS_CERT });
    await expect(client!.listInvoices(0n, 1)).resolves.toMatchObject({ invoices: [] });
  });

  it('is nothing without LND_REST_URL, and refuses half or double configurations', async () => {
    expect(lndClientFromEnv({})).toBeUndefined();
    expect(() => lndClientFromEnv({ LND_MACAROON: 'ab' })).toThrow(ConfigError);
    expect(() => lndClientFromEnv({ LND_REST_URL: lnd.url })).toThrow(/needs LND_MACAROON/);
    expect(() => lndClientFromEnv({ LND_REST_URL: 'http://127.0.0.1:8080', LND_MACAROON: 'ab' })).toThrow(/https/);
    expect(() => lndClientFromEnv({ LND_REST_URL: lnd.url, LND_MACAROON: 'ab', LND_MACAROON_FILE: '/x' })).toThrow(/only one of LND_MACAROON_FILE, LND_MACAROON/);
    const notHex = lndClientFromEnv({ LND_REST_URL: lnd.url, LND_MACAROON: 'not hex', LND_TLS_CERT: LND_TLS_CERT });
    await expect(notHex!.listInvoices(0n, 1)).rejects.toThrow(/credentials could not be read/);
    const notPem = lndClientFromEnv({ LND_REST_URL: lnd.url, LND_MACAROON: 'ab', LND_TLS_CERT: 'nope' });
    await expect(notPem!.listInvoices(0n, 1)).rejects.toMatchObject({ cause: { message: 'LND_TLS_CERT: not a PEM certificate' } });
  });
});
