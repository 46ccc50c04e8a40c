import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDelivery } from '#shared/store/deliveries';
import { formatDecimal, parseDecimal } from '#shared/domain/money';
import { LndRestClient } from '#shared/payments/lightning/lnd-rest';
import { HyperionTransfers } from '#shared/watchers/sources/hyperion';
import { LndSettlements } from '#shared/watchers/sources/lnd-settlements';
import { SourceError } from '#shared/core/source-error';
import { type IndexedSource } from '#shared/watchers/sources/port';
import { IndexedWatcher } from '#shared/watchers/indexed-watcher';
import { readIndexCursor, writeIndexCursor } from '#shared/store/index-cursors';
import { listUnmatchedPayments } from '#shared/store/unmatched-payments';
import { client, newMerchant, startApi } from '../support/api';
import { decodeIndependently } from '../support/bolt11-independent';
import { HyperionTestServer } from '../support/hyperion-server';
import { lightningAndEosEnv } from '../support/indexed-env';
import { LND_TLS_CERT, LndTestServer } from '../support/lnd-server';
import { stored } from '../support/watchers';
import { reportAllHealthy } from '../support/source-health';

/**
 * Lightning and EOS for a live merchant, end to end through the real API and table: checkout
 * asks the local LND REST server for a real BOLT #11 invoice (or names the EOS account and
 * memo), the test pays it at the node (settles the invoice; adds an eosio.token transfer to the
 * Hyperion server's history), and the watcher (the same one the watch-chain function and the
 * local runtime run) books it with its cursor in the table.
 */

const ACCOUNT = 'shopreceive1';
let lnd: LndTestServer;
let hyperion: HyperionTestServer;
let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let token: string;
let clock = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  lnd = await new LndTestServer({ now: () => clock }).start();
  // Blocks from now on: the watchers' first run looks a day back on the real clock.
  hyperion = await new HyperionTestServer({ start: Date.now() }).start();
  // The providers read these on first use: live merchants get the LND node and the EOS account.
  Object.assign(process.env, lightningAndEosEnv(lnd, hyperion, ACCOUNT));
  api = await startApi();
  call = client(api.url);
  token = (await newMerchant(false, 'Live Lightning and EOS Shop')).api_token;
  // Live checkouts are offered only while their source reports healthy: as its watcher would have.
  await reportAllHealthy();
});

afterAll(async () => {
  await api?.close();
  await lnd?.stop();
  await hyperion?.stop();
});

/** A live merchant's NEW order checked out in `currency` (priced from the demo table). */
async function checkedOut(currency: 'LBTC' | 'EOS', price = 13) {
  const created = await call('POST', '/v1/orders', {
    token,
    body: { price_amount: price, price_currency: 'USD', pay_currency: currency, callback_url: 'https://shop.example/callback' },
  });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  const { invoice } = (await call('GET', `/v1/orders/${id}`, { token })).body;
  return { id, invoice: invoice as { payment_address: string; payment_uri: string; memo?: string; pay_amount: number } };
}

const lndClient = () => new LndRestClient({ url: lnd.url, credentials: async () => ({ macaroonHex: lnd.macaroon.toString('hex'), tlsCertificate: LND_TLS_CERT }), backoffMs: 5 });

/** Watchers sharing one fresh cursor: each call is one run of the service (a restart between calls). */
function lightningWatchers() {
  const cursorName = `LBTC-test-${randomUUID()}`;
  const watcher = () => new IndexedWatcher(new LndSettlements(lndClient(), { clock: () => new Date(clock * 1000) }), { cursorName, keepUnmatched: false });
  return { watcher, cursorName };
}

/** Puts a cursor back where it was (a run that booked but whose cursor write was lost). */
async function rewind(cursorName: string, to: NonNullable<Awaited<ReturnType<typeof readIndexCursor>>>) {
  const now = (await readIndexCursor(cursorName))!;
  expect(await writeIndexCursor({ ...to, version: now.version + 1 })).toBe(true);
}

describe('Lightning (LND) for a live merchant', () => {
  it('checkout answers a real BOLT #11 invoice of the configured node for the order', async () => {
    const { invoice } = await checkedOut('LBTC');
    const decoded = decodeIndependently(invoice.payment_address);
    expect(decoded.payeeNodeKey).toBe(lnd.identityPubkey);
    expect(BigInt(decoded.amountMsat!)).toBe(BigInt(Math.round(invoice.pay_amount * 1e8)) * 1000n);
    expect(invoice.payment_uri).toBe(`lightning:${invoice.payment_address}`);
  });

  it('a settled invoice makes the order PAID with its callback; seen again by another run or after a restart, booked once', async () => {
    const { watcher, cursorName } = lightningWatchers();
    expect((await watcher().step()).transfers).toBe(0); // the first run sets the cursor
    const start = (await readIndexCursor(cursorName))!;
    const { id, invoice } = await checkedOut('LBTC');
    const hash = decodeIndependently(invoice.payment_address).paymentHash;
    lnd.settle(hash);

    const first = await watcher().step();
    expect(first).toMatchObject({ transfers: 1, booked: 1, unmatched: [], yielded: false });
    const paid = await stored(id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toEqual([expect.objectContaining({ txid: hash, key: hash, amount: formatDecimal(parseDecimal(String(invoice.pay_amount))), confirmations: 1 })]);
    expect(await findDelivery(id, paid.order.version)).toMatchObject({ status: 'PAID' });

    // A restart: the cursor is in the table, nothing is reported again.
    const restarted = await watcher().step();
    expect(restarted).toMatchObject({ transfers: 0, booked: 0 });

    // A run that booked but lost its cursor write: the next run reads the settlement again.
    await rewind(cursorName, start);
    const replay = await watcher().step();
    expect(replay).toMatchObject({ transfers: 1, booked: 1 });
    expect((await stored(id)).order.version).toBe(paid.order.version);
    expect((await stored(id)).invoice!.payments).toHaveLength(1);
  });

  it('another application’s settled invoice on the node is counted as unmatched and books nothing', async () => {
    const { watcher } = lightningWatchers();
    await watcher().step();
    const foreign = lnd.addForeignInvoice(5000n);
    lnd.settle(foreign.paymentHash.toString('hex'));
    const step = await watcher().step();
    expect(step.booked).toBe(0);
    expect(step.unmatched.map((found) => [found.transfer.key, found.reason])).toEqual([[foreign.paymentHash.toString('hex'), 'NO_INVOICE']]);
  });

  it('an invoice that expires unpaid is left to the expiry sweep: the node cancels it, nothing is booked', async () => {
    const { watcher } = lightningWatchers();
    await watcher().step();
    const { id, invoice } = await checkedOut('LBTC');
    clock += 3700;
    expect(() => lnd.settle(decodeIndependently(invoice.payment_address).paymentHash)).toThrow(/CANCELED/);
    expect((await watcher().step()).booked).toBe(0);
    // Left to the expiry sweep (lightning-payments.test.ts runs it: a sweep here would expire
    // other files' orders in the shared table); it is due once its invoice expired.
    const left = await stored(id);
    expect(left.order.status).toBe('NEW');
    expect(Date.parse(left.invoice!.expired_at)).toBeLessThan(clock * 1000);
    clock = Math.floor(Date.now() / 1000);
  });

  it('an LND answer that is garbage or times out books nothing and keeps the cursor', async () => {
    const cursorName = `LBTC-test-${randomUUID()}`;
    const watcher = () =>
      new IndexedWatcher(
        new LndSettlements(
          new LndRestClient({ url: lnd.url, credentials: async () => ({ macaroonHex: lnd.macaroon.toString('hex'), tlsCertificate: LND_TLS_CERT }), backoffMs: 5, timeoutMs: 300, attempts: 2 }),
          { clock: () => new Date(clock * 1000) },
        ),
        { cursorName },
      );
    await watcher().step();
    const before = await readIndexCursor(cursorName);
    const { id, invoice } = await checkedOut('LBTC');
    lnd.settle(decodeIndependently(invoice.payment_address).paymentHash);
    lnd.faults.push('not-json');
    await expect(watcher().step()).rejects.toBeInstanceOf(SourceError);
    lnd.faults.push('hang', 'hang');
    await expect(watcher().step()).rejects.toThrow(/no answer within 300 ms/);
    expect(await readIndexCursor(cursorName)).toEqual(before);
    expect((await stored(id)).order.status).toBe('NEW');
    expect((await watcher().step()).booked).toBe(1);
    expect((await stored(id)).order.status).toBe('PAID');
  });
});

describe('EOS (Hyperion) for a live merchant', () => {
  function eosWatchers(overrides: Partial<ConstructorParameters<typeof HyperionTransfers>[0]> = {}) {
    const cursorName = `EOS-test-${randomUUID()}`;
    const watcher = () => new IndexedWatcher(new HyperionTransfers({ url: hyperion.url, account: ACCOUNT, backoffMs: 5, ...overrides }), { cursorName });
    return { watcher, cursorName };
  }
  const pay = (memo: string, quantity: string) => hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity, memo });
  const quantity = (amount: number) => `${amount.toFixed(4)} EOS`;

  it('checkout names the account and the invoice memo; a transfer counts only once irreversible, then PAID with its callback, once', async () => {
    const { watcher } = eosWatchers();
    await watcher().step();
    const { id, invoice } = await checkedOut('EOS');
    expect(invoice).toMatchObject({ payment_address: ACCOUNT, memo: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const sent = pay(invoice.memo!, quantity(invoice.pay_amount));

    // Reversible: nothing booked, the cursor waits before it.
    expect(await watcher().step()).toMatchObject({ transfers: 0, booked: 0 });
    expect((await stored(id)).order.status).toBe('NEW');

    hyperion.finalize();
    expect(await watcher().step()).toMatchObject({ transfers: 1, booked: 1 });
    const paid = await stored(id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toEqual([expect.objectContaining({ txid: sent.trx_id, key: String(sent.global_sequence), confirmations: 1, block_height: sent.block_num })]);
    expect(await findDelivery(id, paid.order.version)).toMatchObject({ status: 'PAID' });

    // Another run from the same history (a fresh cursor over the same actions) books nothing new.
    const { watcher: second } = eosWatchers();
    expect((await second().step()).transfers).toBeGreaterThanOrEqual(1);
    expect((await stored(id)).order.version).toBe(paid.order.version);
    expect((await watcher().step()).transfers).toBe(0);
  });

  it('the wrong amount is UNRESOLVED with its reason; a memo in capitals still names its invoice', async () => {
    const { watcher } = eosWatchers();
    await watcher().step();
    const short = await checkedOut('EOS');
    const over = await checkedOut('EOS');
    pay(short.invoice.memo!, quantity(short.invoice.pay_amount / 2));
    pay(over.invoice.memo!.toUpperCase(), quantity(over.invoice.pay_amount * 2));
    hyperion.finalize();
    expect(await watcher().step()).toMatchObject({ transfers: 2, booked: 2 });
    expect((await stored(short.id)).order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
    expect((await stored(over.id)).order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'OVERPAID' });
  });

  it('a memo that names no invoice books nothing and is kept once for an operator', async () => {
    const { watcher, cursorName } = eosWatchers();
    await watcher().step();
    const start = (await readIndexCursor(cursorName))!;
    const sent = pay('order 1234 please', '3.0000 EOS');
    hyperion.finalize();
    const step = await watcher().step();
    expect(step.booked).toBe(0);
    expect(step.unmatched.map((found) => [found.transfer.key, found.reason, found.first])).toEqual([[String(sent.global_sequence), 'NO_INVOICE', true]]);
    expect(await listUnmatchedPayments(cursorName)).toEqual([
      {
        chain: cursorName,
        key: String(sent.global_sequence),
        txid: sent.trx_id,
        currency: 'EOS',
        amount: '3',
        address: ACCOUNT,
        memo: 'order 1234 please',
        reason: 'NO_INVOICE',
        seen_at: `${sent['@timestamp']}Z`,
      },
    ]);
    // Read again (a restart before the cursor write): still kept once.
    await rewind(cursorName, start);
    const replay = await watcher().step();
    expect(replay.unmatched.map((found) => [found.transfer.key, found.first])).toEqual([[String(sent.global_sequence), false]]);
    expect(await listUnmatchedPayments(cursorName)).toHaveLength(1);
  });

  it('a memo of an invoice the order replaced makes the order UNRESOLVED (PAID_TO_REPLACED_INVOICE)', async () => {
    const { watcher } = eosWatchers();
    await watcher().step();
    const { id, invoice: old } = await checkedOut('EOS');
    const switched = await call('POST', `/v1/orders/${id}/checkout`, { token, body: { pay_currency: 'LBTC' } });
    expect(switched.status, switched.text).toBe(200);
    pay(old.memo!, quantity(old.pay_amount));
    hyperion.finalize();
    expect(await watcher().step()).toMatchObject({ booked: 1 });
    expect((await stored(id)).order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'PAID_TO_REPLACED_INVOICE' });
  });

  it('two runs at once: the one whose cursor write comes second yields, and the payment is booked once', async () => {
    const { watcher, cursorName } = eosWatchers();
    await watcher().step();
    const { id, invoice } = await checkedOut('EOS');
    pay(invoice.memo!, quantity(invoice.pay_amount));
    hyperion.finalize();
    // A source whose answer arrives only after another run has booked and moved the cursor.
    const inner = new HyperionTransfers({ url: hyperion.url, account: ACCOUNT, backoffMs: 5 });
    let other: Awaited<ReturnType<IndexedWatcher['step']>> | undefined;
    const slow: IndexedSource = {
      chain: 'EOS',
      after: async (cursor, limit) => {
        const answer = await inner.after(cursor, limit);
        other = await watcher().step();
        return answer;
      },
    };
    const late = await new IndexedWatcher(slow, { cursorName }).step();
    expect(other).toMatchObject({ booked: 1, yielded: false });
    expect(late).toMatchObject({ booked: 1, yielded: true });
    const paid = await stored(id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toHaveLength(1);
    expect((await readIndexCursor(cursorName))!.position).toBe(other!.cursor);
  });

  it('a Hyperion answer that is garbage or times out books nothing and keeps the cursor', async () => {
    const { watcher, cursorName } = eosWatchers({ timeoutMs: 300, attempts: 2 });
    await watcher().step();
    const before = await readIndexCursor(cursorName);
    const { id, invoice } = await checkedOut('EOS');
    pay(invoice.memo!, quantity(invoice.pay_amount));
    hyperion.finalize();
    for (const fault of ['not-json', 'wrong-shape'] as const) {
      hyperion.faults.push(fault);
      await expect(watcher().step()).rejects.toBeInstanceOf(SourceError);
    }
    hyperion.faults.push('hang', 'hang');
    await expect(watcher().step()).rejects.toThrow(/no answer within 300 ms/);
    expect(await readIndexCursor(cursorName)).toEqual(before);
    expect((await stored(id)).order.status).toBe('NEW');
    expect(await watcher().step()).toMatchObject({ booked: 1 });
    expect((await stored(id)).order.status).toBe('PAID');
  });
});
