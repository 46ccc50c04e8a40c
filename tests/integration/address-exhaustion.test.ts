import { randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { HDKey } from '@scure/bip32';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TooManyInvoicesError } from '#shared/domain/errors';
import type { Invoice } from '#shared/domain/order';
import { MAX_INVOICES_PER_ORDER } from '#shared/domain/limits';
import { keyOf, PAY_CURRENCIES } from '#shared/domain/currencies';
import { deriveAddress } from '#shared/payments/addresses/index';
import { counterName } from '#shared/payments/payment-methods';
import { createMerchant, type MerchantCredentials } from '#shared/services/merchants';
import { checkoutOrder } from '#shared/services/orders';
import { db, tableName } from '#shared/store/client';
import { findMerchant } from '#shared/store/merchants';
import { addressKey, counterKey, orderPartition, returnedAddressPartition } from '#shared/store/keys';
import { client, startApi } from '../support/api';
import { recordAttack } from '../support/security-report';

/**
 * Address exhaustion through the public page (issue 14, item 1): anyone holding a payment
 * link can call POST /v1/pay/<id>/checkout in a loop. Each attack runs against a merchant
 * with its own extended public key, so the key's counter moves only by what the attack does.
 */

const HD = ['BTC', 'LTC', 'BCH', 'ETH'] as const;
/** The keys their addresses come from: the HD currencies' own, and TRON's (USDT_TRC20). */
const KEYS = [...HD, 'TRX'] as const;
/** As many currencies a sandbox merchant offers as one order may have invoices (there are more pay currencies than that). */
const ALL = PAY_CURRENCIES.slice(0, MAX_INVOICES_PER_ORDER);

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  api = await startApi();
  call = client(api.url);
});

afterAll(async () => {
  await api.close();
});

/** A sandbox merchant whose BTC, LTC, BCH, ETH (every EVM network) and TRON addresses come from a key of its own. */
async function merchantWithOwnKey(): Promise<MerchantCredentials & { xpub: string }> {
  const xpub = HDKey.fromMasterSeed(randomBytes(32)).derive("m/84'/0'/0'").publicExtendedKey;
  const credentials = await createMerchant({
    name: 'Exhaustion Shop',
    sandbox: true,
    xpubs: { BTC: xpub, LTC: xpub, BCH: xpub, ETH: xpub, TRX: xpub },
  });
  return { ...credentials, xpub };
}

async function newOrder(merchant: MerchantCredentials, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await call('POST', '/v1/orders', { token: merchant.api_token, body: { price_amount: 25, ...extra } });
  expect(response.status, response.text).toBe(200);
  return response.body.order.order_id;
}

/** How far the key's counter has moved for one currency (0 before its first address). */
async function counterOf(code: string, xpub: string): Promise<number> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: counterKey(counterName(code as never, xpub)) }));
  return Number(result.Item?.value ?? 0);
}

/** Indexes given back to the key's sequence, lowest first. */
async function returnedIndexes(code: string, xpub: string): Promise<number[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': returnedAddressPartition(counterName(code as never, xpub)) },
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map((item) => Number(item.address_index));
}

/** The invoice items stored in the order's partition. */
async function invoicesOf(orderId: string): Promise<Invoice[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': orderPartition(orderId), ':prefix': 'INVOICE#' },
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []) as Invoice[];
}

/** The address-index items that lead to the order (one GetItem per address its invoices name). */
async function addressItemsOf(invoices: Invoice[]): Promise<number> {
  let count = 0;
  for (const invoice of invoices) {
    const item = await db().send(new GetCommand({ TableName: tableName(), Key: addressKey(invoice.pay_currency, invoice.payment_address, invoice.memo) }));
    if (item.Item?.invoice_id === invoice.invoice_id) count += 1;
  }
  return count;
}

describe('address exhaustion through POST /v1/pay/{order_id}/checkout', () => {
  it('100 anonymous checkouts in a loop over every currency leave one invoice and one address per currency', async () => {
    const merchant = await merchantWithOwnKey();
    const orderId = await newOrder(merchant);
    const statuses = new Map<number, number>();
    const shown = new Map<string, Set<string>>();
    for (let i = 0; i < 100; i += 1) {
      const currency = ALL[i % ALL.length]!;
      const response = await call('POST', `/v1/pay/${orderId}/checkout`, { body: { pay_currency: currency } });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status === 200) {
        if (!shown.has(currency)) shown.set(currency, new Set());
        shown.get(currency)!.add(response.body.invoice.payment_address);
      }
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 100 });
    // Switching back shows the same address again.
    for (const currency of ALL) expect(shown.get(currency)?.size, currency).toBe(1);
    const invoices = await invoicesOf(orderId);
    expect(invoices).toHaveLength(ALL.length);
    expect(await addressItemsOf(invoices)).toBe(ALL.length);
    for (const code of KEYS) {
      // Every EVM network's coins and tokens are paid to addresses of the ETH key: one ETH address each.
      expect(await counterOf(code, merchant.xpub), code).toBe(ALL.filter((currency) => keyOf(currency) === code).length);
      expect(await returnedIndexes(code, merchant.xpub), code).toEqual([]);
    }
    // The address shown is the key's first child: no gap before it.
    expect([...shown.get('BTC')!]).toEqual([deriveAddress('BTC', merchant.xpub, 0)]);
    const counters = await Promise.all(KEYS.map(async (code) => `${code} ${await counterOf(code, merchant.xpub)}`));
    recordAttack('address-exhaustion', {
      attack: `Anonymous POST /v1/pay/{id}/checkout in a loop on one order, over as many currencies as an order may have invoices (${ALL.length})`,
      count: 100,
      outcome:
        `${[...statuses].map(([status, n]) => `${status} x${n}`).join(', ')}; switching back answers the same invoice: ` +
        `${invoices.length} invoices and ${await addressItemsOf(invoices)} address items in all; the merchant key's counters moved ${counters.join(', ')}; ` +
        `at most ${MAX_INVOICES_PER_ORDER} invoices an order, then 429 TOO_MANY_INVOICES`,
      test: 'tests/integration/address-exhaustion.test.ts',
    });
  }, 180_000);

  it('100 anonymous checkouts, 20 at a time, take at most MAX_INVOICES_PER_ORDER invoices and indexes of a key, and every unused address goes back', async () => {
    const merchant = await merchantWithOwnKey();
    const orderId = await newOrder(merchant);
    // Five waves of 20 at once (100 sockets at once overwhelm DynamoDB Local on a small machine).
    const responses: Awaited<ReturnType<typeof call>>[] = [];
    for (let wave = 0; wave < 5; wave += 1) {
      responses.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => call('POST', `/v1/pay/${orderId}/checkout`, { body: { pay_currency: HD[(wave + i) % HD.length] } })))));
    }
    for (const response of responses) {
      // Won, lost the race (retry), or the order's invoices are used up: never anything else.
      expect([200, 409, 429], response.text).toContain(response.status);
      if (response.status === 429) {
        expect(response.body).toMatchObject({ status: 429, error_code: 'TOO_MANY_INVOICES' });
      }
    }
    const invoices = await invoicesOf(orderId);
    expect(invoices.length).toBeGreaterThan(0);
    expect(invoices.length).toBeLessThanOrEqual(MAX_INVOICES_PER_ORDER);
    // The order's current invoice is one of them, and every 200 showed a kept one.
    const current = (await call('GET', `/v1/pay/${orderId}`)).body.invoice;
    const kept = new Set(invoices.map((invoice) => invoice.payment_address));
    expect(kept).toContain(current.payment_address);
    for (const response of responses.filter((r) => r.status === 200)) expect(kept).toContain(response.body.invoice.payment_address);
    expect(await addressItemsOf(invoices)).toBe(invoices.length);
    for (const code of HD) {
      const counter = await counterOf(code, merchant.xpub);
      const returned = await returnedIndexes(code, merchant.xpub);
      const kept = invoices.filter((invoice) => invoice.pay_currency === code);
      // Every index the counter handed out is either an invoice's or given back.
      expect(counter - returned.length, code).toBe(kept.length);
      expect(
        kept.map((invoice) => invoice.address_index!).sort((a, b) => a - b),
        code,
      ).toEqual(Array.from({ length: counter }, (_, i) => i).filter((i) => !returned.includes(i)));
      // The counter moves only while nothing was given back: per currency, never past the slots.
      expect(counter, code).toBeLessThanOrEqual(MAX_INVOICES_PER_ORDER);
    }
    // The next invoice of the key takes the lowest index given back, before the counter moves.
    const btcReturned = await returnedIndexes('BTC', merchant.xpub);
    const before = await counterOf('BTC', merchant.xpub);
    const next = await call('POST', `/v1/pay/${await newOrder(merchant)}/checkout`, { body: { pay_currency: 'BTC' } });
    expect(next.status, next.text).toBe(200);
    if (btcReturned.length > 0) {
      expect(next.body.invoice.payment_address).toBe(deriveAddress('BTC', merchant.xpub, btcReturned[0]!));
      expect(await counterOf('BTC', merchant.xpub)).toBe(before);
    } else {
      expect(next.body.invoice.payment_address).toBe(deriveAddress('BTC', merchant.xpub, before));
    }
  }, 180_000);

  it('answers 429 TOO_MANY_INVOICES once an order has had MAX_INVOICES_PER_ORDER, and still shows a valid one again', async () => {
    const merchant = await merchantWithOwnKey();
    const profile = (await findMerchant(merchant.user_id))!;
    const orderId = await newOrder(merchant);
    // The most invoices an order may have, each made after the one before expired (an hour and a bit apart, in the past).
    const hour = 61 * 60 * 1000;
    const start = Date.now() - MAX_INVOICES_PER_ORDER * hour;
    for (let i = 0; i < MAX_INVOICES_PER_ORDER; i += 1) {
      await checkoutOrder(profile, orderId, HD[i % HD.length]!, new Date(start + i * hour));
    }
    expect(await invoicesOf(orderId)).toHaveLength(MAX_INVOICES_PER_ORDER);
    await expect(checkoutOrder(profile, orderId, 'EOS', new Date(start + MAX_INVOICES_PER_ORDER * hour))).rejects.toBeInstanceOf(TooManyInvoicesError);

    const refused = await call('POST', `/v1/pay/${orderId}/checkout`, { body: { pay_currency: 'LTC' } });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      status: 429,
      error: expect.stringContaining(`${MAX_INVOICES_PER_ORDER} invoices`),
      error_code: 'TOO_MANY_INVOICES',
    });
    const merchantSide = await call('POST', `/v1/orders/${orderId}/checkout`, { token: merchant.api_token, body: { pay_currency: 'BCH' } });
    expect([merchantSide.status, merchantSide.body.error_code]).toEqual([429, 'TOO_MANY_INVOICES']);
    expect(await invoicesOf(orderId)).toHaveLength(MAX_INVOICES_PER_ORDER);
    // The last invoice is shown again while it is valid.
    const last = HD[(MAX_INVOICES_PER_ORDER - 1) % HD.length]!;
    const again = await checkoutOrder(profile, orderId, last, new Date(start + (MAX_INVOICES_PER_ORDER - 1) * hour + 60_000));
    expect(again.invoice.address_index).toBe(Math.floor((MAX_INVOICES_PER_ORDER - 1) / HD.length));
  });

  it('a refused Create Order (merchant_order_id taken) gives its address back', async () => {
    const merchant = await merchantWithOwnKey();
    await newOrder(merchant, { merchant_order_id: 'moid-1', pay_currency: 'ETH' });
    const taken = await call('POST', '/v1/orders', {
      token: merchant.api_token,
      body: { price_amount: 25, merchant_order_id: 'moid-1', pay_currency: 'ETH' },
    });
    expect([taken.status, taken.body.error_code]).toEqual([400, 'ORDER_MERCHANTID_EXIST']);
    expect(await returnedIndexes('ETH', merchant.xpub)).toEqual([1]);
    const next = await call('POST', '/v1/orders', { token: merchant.api_token, body: { price_amount: 25, pay_currency: 'ETH' } });
    expect(next.status, next.text).toBe(200);
    const orderId = next.body.order.order_id;
    const got = await call('GET', `/v1/orders/${orderId}`, { token: merchant.api_token });
    expect(got.body.invoice.payment_address).toBe(deriveAddress('ETH', merchant.xpub, 1));
    expect(await counterOf('ETH', merchant.xpub)).toBe(2);
  });
});
