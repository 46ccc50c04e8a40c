/**
 * A live merchant's Lightning order against a local LND REST server, through the real store:
 * checkout makes the invoice at the node, the node settles it, the settlement source reports
 * it, and booking it (what the watcher core does with every transfer: the address index, then
 * recordPayment with the payment's own key) makes the order PAID; an invoice that expires
 * unpaid expires the order.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import { PaymentNotAvailableError } from '#shared/domain/errors';
import { newTimeOrderedId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { formatDecimal, parseDecimal } from '#shared/domain/money';
import { checkedOutWith, type Invoice } from '#shared/domain/order';
import { SandboxGateway } from '#shared/payments/gateways/sandbox';
import { SandboxLightningNode } from '#shared/payments/lightning/index';
import { LndRestClient, LndRestNode } from '#shared/payments/lightning/lnd-rest';
import { HdPaymentMethods } from '#shared/payments/payment-methods';
import { evmConfig } from '#shared/chains/evm';
import { LndSettlements } from '#shared/watchers/sources/lnd-settlements';
import type { IndexedSource } from '#shared/watchers/sources/port';
import { expireDueOrders } from '#shared/services/expiry';
import { recordPayment } from '#shared/services/payment-reports';
import { findDelivery } from '#shared/store/deliveries';
import { findOrderWithInvoice, insertOrder } from '#shared/store/orders';
import { tableName } from '#shared/store/client';
import { invoiceAtAddress } from '../support/address-index';
import { decodeIndependently } from '../support/bolt11-independent';
import { LND_TLS_CERT, LndTestServer } from '../support/lnd-server';
import { testOrder } from '../support/orders';

let lnd: LndTestServer;
let client: LndRestClient;
let methods: HdPaymentMethods;
let clock = Math.floor(Date.now() / 1000);

const live: MerchantProfile = {
  user_id: 900_000 + Math.floor(Math.random() * 1000),
  name: 'Live Lightning Shop',
  sandbox: false,
  receive_currency: 'USD',
  gateways: [],
  created_at: new Date().toISOString(),
};

beforeAll(async () => {
  // This file's own table: its expiry sweep runs with the clock an hour ahead, which would expire
  // the orders other test files are working on in the shared table. Set before the store's
  // configuration is first read.
  const table = `lightning-${process.pid}`;
  await ensureTable(inject('dynamodbEndpoint'), table, { stream: false });
  process.env.TABLE_NAME = table;
  expect(tableName()).toBe(table);
  lnd = await new LndTestServer({ now: () => clock }).start();
  client = new LndRestClient({ url: lnd.url, credentials: async () => ({ macaroonHex: lnd.macaroon.toString('hex'), tlsCertificate: LND_TLS_CERT }), backoffMs: 10 });
  methods = new HdPaymentMethods({
    platformXpubs: {},
    eosAccount: undefined,
    lightning: new LndRestNode(client),
    sandboxLightning: new SandboxLightningNode(),
    gateway: undefined,
    sandboxGateway: new SandboxGateway('http://pay.test/pay/'),
    evm: evmConfig({}),
  });
});

afterAll(async () => {
  await lnd.stop();
});

/** Checks an order out in LBTC (0.0002 BTC) the way checkout does, and stores it. */
async function lightningOrder(merchant = live, payAmount = '0.0002') {
  const now = new Date(clock * 1000);
  const expiresAt = new Date(now.getTime() + 3600_000);
  const order = testOrder({ user_id: merchant.user_id, sandbox: merchant.sandbox, title: `Order ${randomUUID().slice(0, 8)}`, created_at: now.toISOString(), updated_at: now.toISOString() });
  const invoiceId = newTimeOrderedId();
  const details = await methods.paymentDetails({
    merchant,
    orderId: order.order_id,
    invoiceId,
    currency: 'LBTC',
    amount: parseDecimal(payAmount),
    description: order.title,
    expiresAt,
    mobile: false,
    fast: false,
    now,
  });
  const invoice: Invoice = {
    invoice_id: invoiceId,
    order_id: order.order_id,
    user_id: order.user_id,
    merchant_order_id: '',
    pay_amount: payAmount,
    pay_currency: 'LBTC',
    receive_amount: '13',
    receive_currency: 'USD',
    status: 'NEW',
    created_at: now.toISOString(),
    expired_at: expiresAt.toISOString(),
    ...details,
    rate: { numerator: '1', denominator: '65000', source: 'test', as_of: now.toISOString() },
  };
  const checkedOut = { ...checkedOutWith(order, invoice), callback_url: 'https://shop.example/callback' };
  await insertOrder(checkedOut, invoice);
  return { order: checkedOut, invoice };
}

/** What the watcher core does with an indexed source's transfers (see shared/watchers/sources/port.ts). */
async function bookFrom(source: IndexedSource, cursor: string | undefined) {
  const { transfers, next } = await source.after(cursor, 100);
  const booked = [];
  for (const transfer of transfers) {
    const target = await invoiceAtAddress(transfer.currency, transfer.address, transfer.memo);
    if (!target) continue; // another application's invoice on the same node
    booked.push(await recordPayment({ orderId: target.orderId, txid: transfer.key, amount: transfer.amount, confirmations: 1, now: new Date(clock * 1000) }));
  }
  return { booked, next, transfers };
}

describe('a live merchant paid over Lightning (LND)', () => {
  it('checkout asks the node for the invoice: the amount, the title as memo, the invoice lifetime', async () => {
    const { invoice } = await lightningOrder();
    const decoded = decodeIndependently(invoice.payment_address);
    expect(decoded.amountMsat).toBe('20000000'); // 0.0002 BTC
    expect(decoded.payeeNodeKey).toBe(lnd.identityPubkey);
    expect(decoded.expiry).toBe(3600);
    expect(invoice.payment_uri).toBe(`lightning:${invoice.payment_address}`);
    expect(lnd.find(decoded.paymentHash).memo).toMatch(/^Order /);
  });

  it('a settled invoice makes the order PAID through recordPayment, once, with its callback', async () => {
    const source = new LndSettlements(client, { clock: () => new Date(clock * 1000) });
    const start = await source.after(undefined, 100); // the watcher's first run
    const { order, invoice } = await lightningOrder();
    lnd.addForeignInvoice(5000n); // someone else's invoice on the node, settled too
    lnd.settle(lnd.invoices.at(-1)!.paymentHash.toString('hex'));
    const hash = decodeIndependently(invoice.payment_address).paymentHash;
    lnd.settle(hash);

    const first = await bookFrom(source, start.next);
    expect(first.transfers).toHaveLength(2);
    expect(first.booked).toHaveLength(1);
    const paid = first.booked[0]!;
    expect(paid.order).toMatchObject({ order_id: order.order_id, status: 'PAID', receive_currency: 'USD' });
    expect(paid.invoice?.payments).toEqual([{ txid: hash, amount: '0.0002', confirmations: 1, seen_at: expect.any(String) }]);
    expect(await findDelivery(order.order_id, paid.order.version)).toMatchObject({ status: 'PAID' });

    // The same settlement again (a second run from the old cursor, a restart) changes nothing.
    const again = await bookFrom(source, start.next);
    expect(again.booked[0]!.order.version).toBe(paid.order.version);
    expect((await findOrderWithInvoice(order.order_id))!.order.version).toBe(paid.order.version);
  });

  it('an overpaid invoice (Lightning lets a payer pay more) is UNRESOLVED OVERPAID with the amount received', async () => {
    const source = new LndSettlements(client, { clock: () => new Date(clock * 1000) });
    const start = await source.after(undefined, 100);
    const { order, invoice } = await lightningOrder();
    lnd.settle(decodeIndependently(invoice.payment_address).paymentHash, 30_000_000n);
    const { booked } = await bookFrom(source, start.next);
    expect(booked[0]!.order).toMatchObject({ order_id: order.order_id, status: 'UNRESOLVED', unresolved_reason: 'OVERPAID' });
    expect(formatDecimal(parseDecimal(booked[0]!.invoice!.payments![0]!.amount))).toBe('0.0003');
  });

  it('an invoice that expires unpaid expires the order; the node cancels it and nothing is booked', async () => {
    const source = new LndSettlements(client, { clock: () => new Date(clock * 1000) });
    const start = await source.after(undefined, 100);
    const { order, invoice } = await lightningOrder();
    clock += 3600;
    const hash = decodeIndependently(invoice.payment_address).paymentHash;
    expect(await new LndRestNode(client).lookupInvoice(hash)).toMatchObject({ state: 'CANCELED' });
    expect(() => lnd.settle(hash)).toThrow(/CANCELED/);
    await expireDueOrders(new Date(clock * 1000 + 1000));
    expect((await findOrderWithInvoice(order.order_id))!.order.status).toBe('EXPIRED');
    expect((await bookFrom(source, start.next)).booked).toEqual([]);
  });

  it('the node down at checkout is PAYMENT_NOT_AVAILABLE (400, try later), never a sandbox invoice', async () => {
    lnd.faults.push('unavailable');
    await expect(lightningOrder()).rejects.toBeInstanceOf(PaymentNotAvailableError);
  });

  it('a sandbox merchant still gets the sandbox node with LND configured: the node is not asked', async () => {
    const before = lnd.received.length;
    const { invoice } = await lightningOrder({ ...live, user_id: live.user_id + 1, sandbox: true });
    expect(decodeIndependently(invoice.payment_address).payeeNodeKey).toBe(new SandboxLightningNode().nodeId);
    expect(lnd.received.length).toBe(before);
  });
});
