/**
 * USDC on Stellar seen from Horizon (shared/watchers/sources/horizon.ts) against a local
 * Horizon (tests/support/horizon-server.ts) that takes real transactions built and signed with
 * @stellar/stellar-base and applies them to its accounts and trustlines: a muxed payment and a
 * MEMO_ID payment to the plain account are both the invoice's id; a path payment counts what it
 * delivered; a failed transaction, another issuer's "USDC" and XLM pay nothing; the requests are
 * the network's pages whatever the number of invoices and merchants; a restart from the stored
 * cursor misses nothing; a Horizon of another network is refused; the account check answers
 * its three ways. No table: the source never touches it.
 */
import { Address, Asset, Keypair, Memo, type MemoType, nativeToScVal, Operation, type Transaction, type xdr } from '@stellar/stellar-base';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WrongChainError } from '#shared/core/source-error';
import { formatDecimal } from '#shared/domain/money';
import { muxedAddress } from '#shared/payments/addresses/stellar';
import type { WatchedAddress } from '#shared/store/watch-list';
import { accountCheck, StellarPayments } from '#shared/watchers/sources/horizon';
import type { Transfer } from '#shared/watchers/sources/port';
import { CIRCLE_USDC_ISSUER, HorizonTestServer, PUBLIC_PASSPHRASE, TESTNET_PASSPHRASE, USDC } from '../support/horizon-server';

const key = (n: number) => Keypair.fromRawEd25519Seed(Buffer.alloc(32, n));
const BUYER = key(1);
const MERCHANT = key(2).publicKey();
const OTHER_MERCHANT = key(3).publicKey();
const STRANGER = key(4).publicKey();
/** Someone else's asset named USDC: what a forger issues. */
const FAKE_USDC = new Asset('USDC', key(5).publicKey());
/** Horizon's operation id (its TOID): ledger << 32 | transaction << 12 | operation, written here apart from the source's. */
const operationId = (ledger: number, tx: number, op: number) => ((BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | BigInt(op)).toString();

const servers: HorizonTestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

/** A local Horizon with the buyer (USDC, fake USDC, XLM), two merchants and a stranger trusting USDC. */
async function network(options: ConstructorParameters<typeof HorizonTestServer>[0] = {}): Promise<HorizonTestServer> {
  const server = await new HorizonTestServer(options).start();
  servers.push(server);
  for (const account of [BUYER.publicKey(), MERCHANT, OTHER_MERCHANT, STRANGER]) server.createAccount(account, '10000');
  server.trust(BUYER.publicKey(), USDC, { balance: '100000' });
  server.trust(BUYER.publicKey(), FAKE_USDC, { balance: '100000' });
  for (const account of [MERCHANT, OTHER_MERCHANT, STRANGER]) {
    server.trust(account, USDC);
    server.trust(account, FAKE_USDC);
  }
  return server;
}

/** A watch list entry of an invoice (or of a refund, `kind` refund) paid to `address`, made `ageMs` ago. */
function watch(address: string, ageMs = 60_000, kind?: 'refund'): WatchedAddress {
  const now = Date.now();
  return {
    chain: 'STELLAR',
    currency: 'USDC_XLM',
    address,
    since: new Date(now - ageMs).toISOString(),
    open_until: new Date(now + 900_000).toISOString(),
    until: new Date(now + 86_400_000).toISOString(),
    ...(kind ? { kind } : {}),
  };
}

function source(server: HorizonTestServer, watched: () => readonly WatchedAddress[], passphrase = PUBLIC_PASSPHRASE): StellarPayments {
  return new StellarPayments({
    url: server.url,
    issuer: CIRCLE_USDC_ISSUER,
    currency: 'USDC_XLM',
    decimals: 7,
    networkPassphrase: passphrase,
    watched: async () => watched(),
    timeoutMs: 2000,
    attempts: 1,
  });
}

/** A transaction of the buyer's with `operations` and a memo, signed, sent (its ledger closes): its hash and ledger. */
function send(server: HorizonTestServer, operations: xdr.Operation[], memo?: Memo<MemoType>, from = BUYER): { hash: string; ledger: number } {
  const builder = server.builder(from);
  for (const operation of operations) builder.addOperation(operation);
  if (memo) builder.addMemo(memo);
  const tx: Transaction = builder.build();
  tx.sign(from);
  const { hash } = server.send(tx);
  return { hash, ledger: server.latestLedger };
}

const pay = (destination: string, amount: string, asset = USDC) => Operation.payment({ destination, asset, amount });

/** Steps like the indexed watcher: from `cursor`, until the source says it is caught up; every transfer reported, and the cursor after. */
async function drain(stellar: StellarPayments, cursor: string | undefined, limit = 100): Promise<{ transfers: Transfer[]; cursor: string | undefined }> {
  const transfers: Transfer[] = [];
  for (let steps = 0; steps < 50; steps += 1) {
    const step = await stellar.after(cursor, limit);
    transfers.push(...step.transfers);
    cursor = step.next;
    if (!step.more) return { transfers, cursor };
  }
  throw new Error('the source never caught up');
}

const shape = (transfer: Transfer) => ({ ...transfer, amount: formatDecimal(transfer.amount) });

const HOUR_MS = 3_600_000;
/** The index of the ledger of {@link lastHour} closed `ms` ago. */
const ledgerAgo = (ms: number) => Math.round((HOUR_MS - ms) / 5500);
/** A ledger every 5.5 s over the last hour (654 of them, the last 3 s ago), as the network runs: `at` sends a ledger's transactions before it closes. */
function lastHour(server: HorizonTestServer, now: number, at: ReadonlyMap<number, () => void>): void {
  for (let i = 1; i <= 654; i += 1) {
    at.get(i)?.();
    server.closeLedger(now - HOUR_MS + i * 5500);
  }
}

describe('what the Stellar source reports', () => {
  let server: HorizonTestServer;
  beforeEach(async () => {
    server = await network();
  });
  afterEach(async () => {
    await server.close();
  });

  it("reports a payment to the invoice's muxed address and one to the plain account with its MEMO_ID, each with the id as memo", async () => {
    const id = '9223372036854775807';
    const muxed = send(server, [pay(muxedAddress(MERCHANT, id), '30.0000000')]);
    const plain = send(server, [pay(MERCHANT, '12.5')], Memo.id('18446744073709551615'));
    const text = send(server, [pay(MERCHANT, '1')], Memo.text(' 00042 '));
    const none = send(server, [pay(MERCHANT, '2')]);
    const stellar = source(server, () => [watch(MERCHANT)]);

    const { transfers } = await drain(stellar, undefined);

    expect(transfers.map(shape)).toEqual([
      { key: operationId(muxed.ledger, 1, 1), txid: muxed.hash, currency: 'USDC_XLM', address: MERCHANT, memo: id, amount: '30', block: { height: muxed.ledger, hash: '' }, at: expect.any(Date) },
      {
        key: operationId(plain.ledger, 1, 1),
        txid: plain.hash,
        currency: 'USDC_XLM',
        address: MERCHANT,
        memo: '18446744073709551615',
        amount: '12.5',
        block: { height: plain.ledger, hash: '' },
        at: expect.any(Date),
      },
      // Exchanges often send the id as text: digits only, trimmed, as a canonical decimal.
      { key: operationId(text.ledger, 1, 1), txid: text.hash, currency: 'USDC_XLM', address: MERCHANT, memo: '42', amount: '1', block: { height: text.ledger, hash: '' }, at: expect.any(Date) },
      // No id at all: the merchant's own business, reported without a memo (the watcher finds no invoice for it).
      { key: operationId(none.ledger, 1, 1), txid: none.hash, currency: 'USDC_XLM', address: MERCHANT, amount: '2', block: { height: none.ledger, hash: '' }, at: expect.any(Date) },
    ]);
    expect(Math.abs(transfers[0]!.at!.getTime() - Date.now())).toBeLessThan(10_000);
  });

  it('counts what a path payment delivered, not what it spent', async () => {
    server.rate(Asset.native(), USDC, '0.25');
    const send1 = send(server, [Operation.pathPaymentStrictSend({ sendAsset: Asset.native(), sendAmount: '100', destination: muxedAddress(MERCHANT, '7'), destAsset: USDC, destMin: '20', path: [] })]);
    const receive = send(server, [
      Operation.pathPaymentStrictReceive({ sendAsset: Asset.native(), sendMax: '50', destination: muxedAddress(MERCHANT, '8'), destAsset: USDC, destAmount: '10.1234567', path: [] }),
    ]);
    expect(server.balance(MERCHANT, USDC)).toBe('35.1234567');

    const { transfers } = await drain(
      source(server, () => [watch(MERCHANT)]),
      undefined,
    );

    expect(transfers.map((transfer) => [transfer.txid, transfer.memo, formatDecimal(transfer.amount)])).toEqual([
      [send1.hash, '7', '25'],
      [receive.hash, '8', '10.1234567'],
    ]);
  });

  it("counts a contract call's USDC transfer to the merchant (a smart wallet paying through USDC's asset contract) by its balance change", async () => {
    const transfer = (asset: Asset, to: string, stroops: bigint) =>
      Operation.invokeContractFunction({
        contract: asset.contractId(PUBLIC_PASSPHRASE),
        function: 'transfer',
        args: [new Address(BUYER.publicKey()).toScVal(), Address.fromString(to).toScVal(), nativeToScVal(stroops, { type: 'i128' })],
      });
    const paid = send(server, [transfer(USDC, muxedAddress(MERCHANT, '31'), 25_000_000n)]);
    const plain = send(server, [transfer(USDC, MERCHANT, 10_000_000n)], Memo.id('32'));
    send(server, [transfer(FAKE_USDC, muxedAddress(MERCHANT, '33'), 25_000_000n)]);
    expect(server.balance(MERCHANT, USDC)).toBe('3.5000000');

    const { transfers } = await drain(
      source(server, () => [watch(MERCHANT)]),
      undefined,
    );

    expect(transfers.map(shape)).toEqual([
      {
        key: `${operationId(paid.ledger, 1, 1)}-0`,
        txid: paid.hash,
        currency: 'USDC_XLM',
        address: MERCHANT,
        memo: '31',
        amount: '2.5',
        block: { height: paid.ledger, hash: '' },
        at: expect.any(Date),
      },
      {
        key: `${operationId(plain.ledger, 1, 1)}-0`,
        txid: plain.hash,
        currency: 'USDC_XLM',
        address: MERCHANT,
        memo: '32',
        amount: '1',
        block: { height: plain.ledger, hash: '' },
        at: expect.any(Date),
      },
    ]);
    expect((await source(server, () => []).transaction(paid.hash))?.map((transfer) => transfer.key)).toEqual([transfers[0]!.key]);
  });

  it('never reports a failed transaction, another issuer\'s "USDC", XLM, or a payment to an account nobody watches', async () => {
    // One transaction: a USDC payment to the merchant, then one to an account without a USDC trustline: both fail.
    const noTrust = key(6).publicKey();
    server.createAccount(noTrust);
    const failed = send(server, [pay(muxedAddress(MERCHANT, '1'), '5'), pay(noTrust, '5')]);
    // A path payment that would deliver under its minimum fails too.
    server.rate(Asset.native(), USDC, '0.1');
    send(server, [Operation.pathPaymentStrictSend({ sendAsset: Asset.native(), sendAmount: '100', destination: muxedAddress(MERCHANT, '2'), destAsset: USDC, destMin: '20', path: [] })]);
    send(server, [pay(muxedAddress(MERCHANT, '3'), '5', FAKE_USDC)]);
    send(server, [pay(muxedAddress(MERCHANT, '4'), '5', Asset.native())]);
    send(server, [pay(muxedAddress(STRANGER, '5'), '5')]);
    const paid = send(server, [pay(muxedAddress(MERCHANT, '6'), '5')]);
    expect(server.balance(MERCHANT, USDC)).toBe('5.0000000');
    expect(server.balance(MERCHANT, FAKE_USDC)).toBe('5.0000000');

    for (const lying of [false, true]) {
      // A Horizon that serves failed transactions although not asked: refused by transaction_successful all the same.
      server.servesFailedByDefault = lying;
      const { transfers } = await drain(
        source(server, () => [watch(MERCHANT)]),
        undefined,
      );
      expect(transfers.map((transfer) => transfer.txid)).toEqual([paid.hash]);
    }
    const served = await fetch(`${server.url}/payments?cursor=&order=asc&limit=200`).then((answer) => answer.json());
    expect(served._embedded.records.map((record: { transaction_hash: string }) => record.transaction_hash)).toContain(failed.hash);
  });

  it("reports a refund's USDC to the buyer's account, muxed or with a memo, not what the account got before the refund was watched", async () => {
    const now = Date.now();
    const late = await network({ autoClose: false, historyEndsAt: now - 3_600_000 });
    const buyer = BUYER.publicKey();
    const from = key(4);
    late.trust(from.publicKey(), USDC, { balance: '100' });
    const start = (BigInt(late.latestLedger) << 32n).toString();
    const before = send(late, [pay(buyer, '1')], undefined, from);
    late.closeLedger(now - 300_000);
    const muxed = send(late, [pay(muxedAddress(buyer, '55'), '3')], undefined, from);
    late.closeLedger(now - 30_000);
    const memo = send(late, [pay(buyer, '2')], Memo.id('56'), from);
    late.closeLedger(now - 20_000);

    // The refund's address was set a minute ago (a payment up to a minute before it still counts: clocks).
    const { transfers } = await drain(
      source(late, () => [watch(buyer, 60_000, 'refund')]),
      start,
    );

    expect(transfers.map((transfer) => [transfer.txid, transfer.address, transfer.memo, formatDecimal(transfer.amount)])).toEqual([
      [muxed.hash, buyer, '55', '3'],
      [memo.hash, buyer, '56', '2'],
    ]);
    expect(late.balance(buyer, USDC)).toBe('100006.0000000');
    expect(before.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('matches the pages against the watch list read after them: an invoice shown while they were read is paid', async () => {
    const paid = send(server, [pay(muxedAddress(MERCHANT, '1'), '1')]);
    // The first read (before the pages) knows only the other merchant; the merchant's first invoice is shown just after.
    const reads = [[watch(OTHER_MERCHANT)], [watch(OTHER_MERCHANT), watch(MERCHANT)]];
    const stellar = new StellarPayments({
      url: server.url,
      issuer: CIRCLE_USDC_ISSUER,
      currency: 'USDC_XLM',
      decimals: 7,
      networkPassphrase: PUBLIC_PASSPHRASE,
      watched: async () => reads.shift() ?? [],
      timeoutMs: 2000,
      attempts: 1,
    });

    const step = await stellar.after(undefined, 100);

    expect(step.transfers.map((transfer) => transfer.txid)).toEqual([paid.hash]);
    expect(reads).toEqual([]);
  });

  it("gives a transaction's USDC payments under the keys the stream reports them by: none for a failed one, undefined for an unknown one", async () => {
    const paid = send(server, [pay(MERCHANT, '4'), pay(muxedAddress(OTHER_MERCHANT, '9'), '6'), pay(STRANGER, '1', FAKE_USDC)], Memo.id('77'));
    const noTrust = key(7).publicKey();
    server.createAccount(noTrust);
    const failed = send(server, [pay(MERCHANT, '5'), pay(noTrust, '5')]);
    const stellar = source(server, () => [watch(MERCHANT), watch(OTHER_MERCHANT)]);

    const found = await stellar.transaction(paid.hash.toUpperCase());

    expect(found?.map(shape)).toEqual([
      { key: operationId(paid.ledger, 1, 1), txid: paid.hash, currency: 'USDC_XLM', address: MERCHANT, memo: '77', amount: '4', block: { height: paid.ledger, hash: '' }, at: expect.any(Date) },
      { key: operationId(paid.ledger, 1, 2), txid: paid.hash, currency: 'USDC_XLM', address: OTHER_MERCHANT, memo: '9', amount: '6', block: { height: paid.ledger, hash: '' }, at: expect.any(Date) },
    ]);
    expect((await drain(stellar, undefined)).transfers.map(shape)).toEqual(found!.map(shape));
    expect(await stellar.transaction(failed.hash)).toEqual([]);
    expect(await stellar.transaction('0'.repeat(64))).toBeUndefined();
    expect(await stellar.transaction('not a hash')).toBeUndefined();
  });
});

describe('the requests', () => {
  it('2 and 1,000 watched invoices over 50 merchants cost the same requests: the pages of the network', async () => {
    const server = await network();
    const merchants = Array.from({ length: 50 }, (_, i) => key(100 + i).publicKey());
    for (const merchant of merchants) {
      server.createAccount(merchant);
      server.trust(merchant, USDC);
    }
    const start = server.latestLedger;
    // The network's traffic: XLM and USDC between strangers, each merchant paid at its muxed addresses, merchants 0 and 1 with a MEMO_ID too.
    let records = 0;
    for (let batch = 0; batch < 5; batch += 1) {
      const operations = [
        ...Array.from({ length: 40 }, (_, i) => pay(STRANGER, '0.1', i % 2 ? Asset.native() : USDC)),
        ...merchants.map((merchant, i) => pay(muxedAddress(merchant, String(batch * 100 + i + 1)), '1')),
      ];
      send(server, operations);
      records += operations.length;
    }
    send(server, [pay(merchants[0]!, '2')], Memo.id('5000'));
    send(server, [pay(merchants[1]!, '3')], Memo.id('5001'));
    records += 2;
    const stepCosts: number[] = [];
    const reported: number[] = [];
    for (const watched of [[watch(merchants[0]!), watch(merchants[1]!)], merchants.flatMap((merchant) => Array.from({ length: 20 }, () => watch(merchant)))]) {
      const before = server.requestCount;
      // The watcher's limit (payments booked a step) above what is paid here: the steps are the network's pages alone.
      const { transfers } = await drain(
        source(server, () => watched),
        (BigInt(start) << 32n).toString(),
        1000,
      );
      stepCosts.push(server.requestCount - before);
      reported.push(transfers.length);
    }
    expect(reported).toEqual([5 + 5 + 2, 250 + 2]);
    // The network check and head (one root answer), the pages of 200 (the last one short), and that page again with its
    // transactions joined for the two MEMO_IDs on it.
    const pages = Math.floor(records / 200) + 1;
    expect(pages).toBe(3);
    expect(stepCosts).toEqual([1 + pages + 1, 1 + pages + 1]);
  });

  it('reads the memos of a page paying many plain accounts with one joined page, not one request each', async () => {
    const server = await network();
    for (let i = 0; i < 6; i += 1) send(server, [pay(MERCHANT, '1')], Memo.id(String(1000 + i)));
    const stellar = source(server, () => [watch(MERCHANT)]);
    const before = new Map(server.requests);

    const { transfers } = await drain(stellar, undefined);

    expect(transfers.map((transfer) => transfer.memo)).toEqual(['1000', '1001', '1002', '1003', '1004', '1005']);
    const asked = (route: string) => (server.requests.get(route) ?? 0) - (before.get(route) ?? 0);
    expect(asked('/payments')).toBe(2);
    expect(asked('/transactions/:hash')).toBe(0);
  });

  it('a step with nothing watched reads no payment and leaves the cursor; the root is asked once a minute at most', async () => {
    const server = await network();
    send(server, [pay(MERCHANT, '1')]);
    const stellar = source(server, () => []);
    for (let i = 0; i < 3; i += 1) expect(await stellar.after('123', 100)).toEqual({ transfers: [], next: '123', more: false });
    expect([...server.requests]).toEqual([['/', 1]]);
    expect(stellar.health()).toEqual({ chainOk: true, currencyErrors: {}, tipHeight: server.latestLedger, caughtUp: true });
  });

  it('reports the source behind while its steps stop far behind the head, and caught up once they reach it', async () => {
    const server = await network();
    const start = (BigInt(server.latestLedger) << 32n).toString();
    // 2,400 payments over 240 ledgers: a step reads 10 pages (2,000), then stops.
    for (let i = 0; i < 240; i += 1)
      send(
        server,
        Array.from({ length: 10 }, () => pay(STRANGER, '0.01')),
      );
    const stellar = source(server, () => [watch(MERCHANT)]);

    const step = await stellar.after(start, 100);

    expect(step.more).toBe(true);
    expect(server.requests.get('/payments')).toBe(10);
    expect(stellar.health()).toMatchObject({ chainOk: true, caughtUp: false });
    const rest = await stellar.after(step.next, 100);
    expect(rest.more).toBe(false);
    expect(rest.next).toBe(operationId(server.latestLedger, 1, 10));
    expect(stellar.health()).toMatchObject({ chainOk: true, caughtUp: true });
  });
});

describe('the cursor', () => {
  it('a restart from the stored cursor misses nothing and reports nothing twice, across full pages and a step bound', async () => {
    const server = await network();
    const watched = () => [watch(MERCHANT)];
    const first = send(server, [pay(muxedAddress(MERCHANT, '1'), '1')]);
    // The watcher's process: one step booked, its cursor stored.
    const before = await drain(source(server, watched), undefined);
    expect(before.transfers.map((transfer) => transfer.txid)).toEqual([first.hash]);
    // While it is down: 450 payments of the network, 5 of them to the merchant, spread over the pages.
    const missed: string[] = [];
    for (let batch = 0; batch < 5; batch += 1) {
      missed.push(send(server, [...Array.from({ length: 89 }, () => pay(STRANGER, '0.01')), pay(muxedAddress(MERCHANT, String(10 + batch)), '2')]).hash);
    }
    // A new process from the stored cursor, two payments a step at most (the watcher's limit).
    const stellar = source(server, watched);
    const step = await stellar.after(before.cursor, 2);
    expect(step.transfers).toHaveLength(2);
    expect(step.more).toBe(true);
    // The booking of that step failed: the cursor was not stored, the same step comes again.
    expect((await stellar.after(before.cursor, 2)).transfers.map((transfer) => transfer.key)).toEqual(step.transfers.map((transfer) => transfer.key));
    const after = await drain(stellar, step.next, 2);

    expect([...step.transfers, ...after.transfers].map((transfer) => [transfer.txid, transfer.memo])).toEqual(missed.map((hash, batch) => [hash, String(10 + batch)]));
    expect(after.cursor).toBe(operationId(server.latestLedger, 1, 90));
    expect((await source(server, watched).after(after.cursor, 100)).transfers).toEqual([]);
  });

  it('a first start reads from ten minutes back (or the oldest invoice, if later), never from the start of the history', async () => {
    const now = Date.now();
    const server = await network({ historyEndsAt: now - HOUR_MS, autoClose: false });
    // Paid 50, 30, 9 and 1 minutes ago, memos 0 to 3.
    const paid = new Map([50, 30, 9, 1].map((minutes, i) => [ledgerAgo(minutes * 60_000), () => send(server, [pay(muxedAddress(MERCHANT, String(i)), '1')])]));
    lastHour(server, now, paid);

    // The invoices are two hours old: reading starts ten minutes back.
    const old = await drain(
      source(server, () => [watch(MERCHANT, 7_200_000)]),
      undefined,
    );
    expect(old.transfers.map((transfer) => transfer.memo)).toEqual(['2', '3']);
    expect(server.requests.get('/payments')).toBe(1);
    // The invoice is two minutes old: reading starts at it (less a minute for clocks).
    const recent = await drain(
      source(server, () => [watch(MERCHANT, 120_000)]),
      undefined,
    );
    expect(recent.transfers.map((transfer) => transfer.memo)).toEqual(['3']);
  });

  it('a cursor left behind by an idle spell goes on from the oldest watched invoice, not through what came between', async () => {
    const now = Date.now();
    const server = await network({ historyEndsAt: now - HOUR_MS, autoClose: false });
    const stale = (BigInt(server.latestLedger + 1) << 32n).toString();
    let paid = '';
    const traffic = new Map<number, () => void>();
    // The idle hour's traffic: 1,000 payments (5 pages) 50 minutes ago, one to the merchant 40 minutes ago, before its invoice.
    for (let batch = 0; batch < 10; batch += 1)
      traffic.set(ledgerAgo(3_000_000) + batch, () =>
        send(
          server,
          Array.from({ length: 100 }, () => pay(STRANGER, '0.01')),
        ),
      );
    traffic.set(ledgerAgo(2_400_000), () => send(server, [pay(muxedAddress(MERCHANT, '1'), '1')]));
    traffic.set(ledgerAgo(60_000), () => (paid = send(server, [pay(muxedAddress(MERCHANT, '2'), '1')]).hash));
    lastHour(server, now, traffic);

    const { transfers } = await drain(
      source(server, () => [watch(MERCHANT, 300_000)]),
      stale,
    );

    expect(transfers.map((transfer) => transfer.txid)).toEqual([paid]);
    expect(server.requests.get('/payments')).toBe(1);
    // From the stale cursor itself (the invoice as old as it): every page of the hour, and the payment before the invoice.
    const all = await drain(
      source(server, () => [watch(MERCHANT, 3_700_000)]),
      stale,
    );
    expect(all.transfers.map((transfer) => transfer.memo)).toEqual(['1', '2']);
    expect(server.requests.get('/payments')).toBe(1 + 6);
  });
});

describe('the network', () => {
  it('refuses a Horizon of another network before reading anything: WrongChainError, wrong_chain in the health, asked again next step', async () => {
    const server = await network({ passphrase: TESTNET_PASSPHRASE });
    send(server, [pay(muxedAddress(MERCHANT, '1'), '1')]);
    const stellar = source(server, () => [watch(MERCHANT)]);

    const error = await stellar.after(undefined, 100).then(
      () => undefined,
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(WrongChainError);
    expect((error as Error).message).toMatch(
      /^STELLAR Horizon: node's genesis block is [0-9a-f]{64} \(testnet, "Test SDF Network ; September 2015"\), expected [0-9a-f]{64} \(mainnet, "Public Global Stellar Network ; September 2015"\)/,
    );
    expect(stellar.health().chainOk).toBe(false);
    expect([...server.requests]).toEqual([['/', 1]]);
    await expect(stellar.transaction('0'.repeat(64))).rejects.toBeInstanceOf(WrongChainError);
    await expect(stellar.accountCheck(MERCHANT)).rejects.toBeInstanceOf(WrongChainError);
    expect([...server.requests]).toEqual([['/', 3]]);
    // The same Horizon once it serves mainnet: taken back without a restart.
    server.passphrase = PUBLIC_PASSPHRASE;
    await stellar.after(undefined, 100);
    expect(stellar.health().chainOk).toBe(true);
  });

  it('takes a configured test network and refuses mainnet then; says so when Horizon stopped ingesting', async () => {
    const server = await network({ passphrase: TESTNET_PASSPHRASE });
    send(server, [pay(muxedAddress(MERCHANT, '1'), '1')]);
    expect(
      (
        await drain(
          source(server, () => [watch(MERCHANT)], TESTNET_PASSPHRASE),
          undefined,
        )
      ).transfers,
    ).toHaveLength(1);
    server.passphrase = PUBLIC_PASSPHRASE;
    await expect(source(server, () => [], TESTNET_PASSPHRASE).after(undefined, 1)).rejects.toBeInstanceOf(WrongChainError);
    server.passphrase = TESTNET_PASSPHRASE;
    server.stalledMs = 600_000;
    const stalled = source(server, () => [], TESTNET_PASSPHRASE);
    await stalled.after(undefined, 1);
    expect(stalled.health()).toMatchObject({ chainOk: true, caughtUp: false, tipHeight: server.latestLedger });
  });

  it('throws SourceError on garbage, never a wrong payment', async () => {
    const server = await network();
    send(server, [pay(muxedAddress(MERCHANT, '1'), '1')]);
    const stellar = source(server, () => [watch(MERCHANT)]);
    await stellar.after(undefined, 100);
    server.fault({ kind: 'garbage', times: 1, match: /^\/payments$/, body: JSON.stringify({ _embedded: { records: [{ id: '5', paging_token: '6' }] } }) });
    await expect(stellar.after(undefined, 100)).rejects.toThrow(/horizon:127\.0\.0\.1:\d+: a payment record has no valid id and paging_token/);
    server.fault({ kind: 'garbage', times: 1, match: /^\/payments$/ });
    await expect(stellar.after(undefined, 100)).rejects.toThrow(/\/payments: answer is not JSON/);
    server.fault({ kind: 'garbage', times: 1, match: /^\/payments$/, body: `{"_embedded":{"records":[]},"pad":"${'x'.repeat(9 * 1024 * 1024)}"}` });
    await expect(stellar.after(undefined, 100)).rejects.toThrow(/answer larger than/);
  });
});

describe('accountCheck', () => {
  it('answers ok for an account trusting USDC, ACCOUNT_NOT_FOUND, or NO_USDC_TRUSTLINE (none, another issuer, not authorized)', async () => {
    const server = await network();
    const options = { url: server.url, issuer: CIRCLE_USDC_ISSUER, networkPassphrase: PUBLIC_PASSPHRASE, timeoutMs: 2000, attempts: 1 };
    const xlmOnly = server.createAccount(key(20));
    const fakeOnly = server.createAccount(key(21));
    server.trust(fakeOnly, FAKE_USDC);
    const frozen = server.createAccount(key(22));
    server.trust(frozen, USDC, { authorized: false });

    expect(await accountCheck(options, MERCHANT)).toEqual({ ok: true });
    expect(await accountCheck(options, key(23).publicKey())).toEqual({ ok: false, reason: 'ACCOUNT_NOT_FOUND' });
    for (const account of [xlmOnly, fakeOnly, frozen]) expect(await accountCheck(options, account)).toEqual({ ok: false, reason: 'NO_USDC_TRUSTLINE' });
    await expect(accountCheck(options, muxedAddress(MERCHANT, '1'))).rejects.toThrow(RangeError);
    await expect(accountCheck({ ...options, networkPassphrase: TESTNET_PASSPHRASE }, MERCHANT)).rejects.toBeInstanceOf(WrongChainError);
  });
});
