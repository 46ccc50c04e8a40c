import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newTimeOrderedId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { formatDecimal, parseDecimal } from '#shared/domain/money';
import { checkedOutWith, type Invoice } from '#shared/domain/order';
import { SandboxGateway } from '#shared/payments/gateways/sandbox';
import { SandboxLightningNode } from '#shared/payments/lightning/index';
import { HdPaymentMethods } from '#shared/payments/payment-methods';
import { evmConfig } from '#shared/chains/evm';
import { HyperionTransfers } from '#shared/watchers/sources/hyperion';
import { SourceError } from '#shared/core/source-error';
import { recordPayment } from '#shared/services/payment-reports';
import { insertOrder } from '#shared/store/orders';
import { invoiceAtAddress } from '../support/address-index';
import { HyperionTestServer } from '../support/hyperion-server';
import { testOrder } from '../support/orders';

const ACCOUNT = 'shopreceive1';
let hyperion: HyperionTestServer;

const source = (overrides: Partial<ConstructorParameters<typeof HyperionTransfers>[0]> = {}) =>
  new HyperionTransfers({ url: hyperion.url, account: ACCOUNT, backoffMs: 5, clock: () => new Date('2026-11-23T10:00:00.000Z'), ...overrides });

describe('EOS transfers from Hyperion (the EOS watcher source)', () => {
  beforeEach(async () => {
    hyperion = await new HyperionTestServer().start();
  });
  afterEach(async () => {
    await hyperion.stop();
  });

  it("reports the account's eosio.token EOS transfers (incoming, and outgoing marked so) once irreversible, in global_sequence order, with memo and exact amount", async () => {
    const paid = hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: '17.3625 EOS', memo: ' 01JDKQ4ZQ6V1T2X3Y4Z5A6B7C8 ' });
    const sent = hyperion.transfer({ from: ACCOUNT, to: 'someoneelse1', quantity: '1.0000 EOS', memo: 'outgoing' });
    hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: '5.0000 EOS', memo: 'fake', contract: 'fakeeostoken' });
    hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: '5.0000 TLOS', memo: 'other token' });
    const pending = hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: '2.5000 EOS', memo: 'second' });

    // Nothing is irreversible yet: nothing reported, the cursor stays.
    const first = await source().after(undefined, 100);
    expect(first.transfers).toEqual([]);
    expect(first.next).toBe('0@2026-11-22T10:00:00.000Z');
    expect(hyperion.queries[0]!.get('filter')).toBe('eosio.token:transfer');
    expect(hyperion.queries[0]!.get('checkLib')).toBe('true');

    hyperion.lib = pending.block_num - 1;
    const final = await source().after(first.next, 100);
    expect(final.transfers).toEqual([
      {
        key: String(paid.global_sequence),
        txid: paid.trx_id,
        currency: 'EOS',
        address: ACCOUNT,
        memo: '01JDKQ4ZQ6V1T2X3Y4Z5A6B7C8',
        amount: expect.anything(),
        block: { height: paid.block_num, hash: paid.block_id },
        at: new Date(`${paid['@timestamp']}Z`),
      },
      // Sent by the account (a merchant paying a buyer's refund): addressed to its recipient, marked outgoing.
      {
        key: String(sent.global_sequence),
        txid: sent.trx_id,
        currency: 'EOS',
        address: 'someoneelse1',
        outgoing: true,
        memo: 'outgoing',
        amount: expect.anything(),
        block: { height: sent.block_num, hash: sent.block_id },
        at: new Date(`${sent['@timestamp']}Z`),
      },
    ]);
    expect(formatDecimal(final.transfers[0]!.amount)).toBe('17.3625');
    expect(formatDecimal(final.transfers[1]!.amount)).toBe('1');
    // The cursor passed the skipped actions, not the reversible transfer.
    const skipped = hyperion.actions[3]!; // the TLOS transfer, the last action before the reversible one
    expect(final.next).toBe(`${skipped.global_sequence}@${skipped['@timestamp']}`);

    hyperion.finalize();
    const later = await source().after(final.next, 100);
    expect(later.transfers.map((t) => t.key)).toEqual([String(pending.global_sequence)]);
    expect(later.next).toBe(`${pending.global_sequence}@${pending['@timestamp']}`);
    expect((await source().after(later.next, 100)).transfers).toEqual([]);
  });

  it('returns at most `limit` transfers, the rest on the next call', async () => {
    const sent = [1, 2, 3].map((n) => hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: `${n}.0000 EOS`, memo: `m${n}` }));
    hyperion.finalize();
    const one = await source().after(undefined, 2);
    expect(one.transfers.map((t) => t.memo)).toEqual(['m1', 'm2']);
    const two = await source().after(one.next, 2);
    expect(two.transfers.map((t) => t.memo)).toEqual(['m3']);
    expect(two.next).toBe(`${sent[2]!.global_sequence}@${sent[2]!['@timestamp']}`);
  });

  it('tries again after a 503; garbage and out-of-order answers are a SourceError, never a transfer', async () => {
    hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: '1.0000 EOS', memo: 'a' });
    hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: '2.0000 EOS', memo: 'b' });
    hyperion.finalize();
    hyperion.faults.push('unavailable');
    expect((await source().after(undefined, 10)).transfers).toHaveLength(2);
    hyperion.faults.push('not-json');
    await expect(source().after(undefined, 10)).rejects.toThrow(/not JSON/);
    hyperion.faults.push('unordered');
    await expect(source().after(undefined, 10)).rejects.toThrow(/not in global_sequence order/);
    hyperion.faults.push('unavailable', 'unavailable', 'unavailable');
    await expect(source().after(undefined, 10)).rejects.toBeInstanceOf(SourceError);
    await expect(source().after('nonsense', 10)).rejects.toThrow(/not a Hyperion cursor/);
    expect(() => source({ account: 'Not An Account' })).toThrow(/not an EOS account/);
  });
});

describe('a live merchant paid in EOS', () => {
  const live: MerchantProfile = {
    user_id: 910_000 + Math.floor(Math.random() * 1000),
    name: 'Live EOS Shop',
    sandbox: false,
    receive_currency: 'USD',
    gateways: [],
    created_at: new Date().toISOString(),
  };
  const methods = new HdPaymentMethods({
    platformXpubs: {},
    eosAccount: ACCOUNT,
    lightning: undefined,
    sandboxLightning: new SandboxLightningNode(),
    gateway: undefined,
    sandboxGateway: new SandboxGateway('http://pay.test/pay/'),
    evm: evmConfig({}),
  });

  beforeAll(async () => {
    hyperion = await new HyperionTestServer().start();
  });
  afterAll(async () => {
    await hyperion.stop();
  });

  async function eosOrder(payAmount: string) {
    const now = new Date();
    const order = testOrder({ user_id: live.user_id, sandbox: false, title: `Order ${randomUUID().slice(0, 8)}` });
    const invoiceId = newTimeOrderedId();
    const details = await methods.paymentDetails({
      merchant: live,
      orderId: order.order_id,
      invoiceId,
      currency: 'EOS',
      amount: parseDecimal(payAmount),
      description: order.title,
      expiresAt: new Date(now.getTime() + 3600_000),
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
      pay_currency: 'EOS',
      receive_amount: '10',
      receive_currency: 'USD',
      status: 'NEW',
      created_at: now.toISOString(),
      expired_at: new Date(now.getTime() + 3600_000).toISOString(),
      ...details,
      rate: { numerator: '1', denominator: '1', source: 'test', as_of: now.toISOString() },
    };
    await insertOrder(checkedOutWith(order, invoice), invoice);
    return invoice;
  }

  /** What the watcher core does with each transfer: the address index (account + memo), then recordPayment. */
  async function book(cursor: string | undefined) {
    const { transfers, next } = await source().after(cursor, 100);
    const results = [];
    for (const transfer of transfers) {
      const target = await invoiceAtAddress(transfer.currency, transfer.address, transfer.memo);
      results.push(target ? await recordPayment({ orderId: target.orderId, txid: transfer.key, amount: transfer.amount, confirmations: 1, now: new Date() }) : undefined);
    }
    return { results, next };
  }

  it('the invoice memo ties an irreversible transfer to the order: exact -> PAID, short -> UNRESOLVED UNDERPAID, unknown memo -> nothing', async () => {
    const start = await source().after(undefined, 100);
    const exact = await eosOrder('17.3625');
    const short = await eosOrder('10');
    expect(exact).toMatchObject({ payment_address: ACCOUNT, memo: exact.invoice_id });
    hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: '17.3625 EOS', memo: exact.memo! });
    hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: '9.0000 EOS', memo: short.memo! });
    hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: '10.0000 EOS', memo: 'no such invoice' });
    expect((await book(start.next)).results).toEqual([]); // not irreversible yet
    hyperion.finalize();
    const { results } = await book(start.next);
    expect(results.map((r) => r && [r.order.order_id, r.order.status, r.order.unresolved_reason])).toEqual([
      [exact.order_id, 'PAID', undefined],
      [short.order_id, 'UNRESOLVED', 'UNDERPAID'],
      undefined,
    ]);
  });
});
