import { describe, expect, it, vi } from 'vitest';
import { createHash, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { idempotencyKey } from '#shared/store/keys';
import { newMerchant, type TestApi, useTestApi } from '../support/api';
import { recordAttack } from '../support/security-report';

let call: TestApi['call'];
let token: string;
useTestApi((api) => ({ call, token } = api));

const create = (key: string, body: unknown, as = token) => call('POST', '/v1/orders', { token: as, body, headers: { 'Idempotency-Key': key } });

const listIds = async (as = token) => (await call('GET', '/v1/orders?limit=50', { token: as })).body.orders.map((o: any) => o.order_id as string);

describe('Idempotency-Key', () => {
  it('a Create Order retried with the same key and body returns the first answer and makes one order', async () => {
    const merchant = await newMerchant();
    const key = randomUUID();
    const body = { price_amount: 12.5, merchant_order_id: `idem-${key}` };
    const first = await create(key, body, merchant.api_token);
    const retry = await create(key, body, merchant.api_token);
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await listIds(merchant.api_token)).toEqual([first.body.order.order_id]);
  });

  it('refuses the same key with a different body', async () => {
    const key = randomUUID();
    expect((await create(key, { price_amount: 1 })).status).toBe(200);
    const other = await create(key, { price_amount: 2 });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ status: 422, error_code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('keys are per merchant', async () => {
    const key = randomUUID();
    const other = await newMerchant();
    const mine = await create(key, { price_amount: 3 });
    const theirs = await create(key, { price_amount: 3 }, other.api_token);
    expect(theirs.status).toBe(200);
    expect(theirs.body.order.order_id).not.toBe(mine.body.order.order_id);
  });

  it('concurrent retries with one key make exactly one order', async () => {
    const merchant = await newMerchant();
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 8 }, () => create(key, { price_amount: 7 }, merchant.api_token)));
    for (const response of responses) expect([200, 409], response.text).toContain(response.status);
    const ids = new Set(responses.filter((r) => r.status === 200).map((r) => r.body.order.order_id));
    expect(ids.size).toBe(1);
    expect(await listIds(merchant.api_token)).toHaveLength(1);
    const conflicts = responses.filter((r) => r.status === 409);
    for (const conflict of conflicts) expect(conflict.body.error_code).toBe('IDEMPOTENCY_IN_PROGRESS');
  });

  it('two copies reserving one key in the same millisecond: one holds it, the other is told it is in progress', async () => {
    const { reserve } = await import('#shared/store/idempotency');
    const now = new Date();
    const scope = `M${randomUUID()}`;
    const key = randomUUID();
    // The same instant for both: their items differ only by their claim.
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => reserve(scope, key, 'hash', now, 30)));
    expect(outcomes.filter((outcome) => outcome.kind === 'reserved')).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o.kind !== 'reserved')) expect(outcome).toMatchObject({ kind: 'in-progress', requestHash: 'hash' });
  });

  it('ten copies of one refund at once with one key make one refund; the rest replay it or are told to retry after the lease', async () => {
    const merchant = await newMerchant(true, 'Idempotent refunds');
    const order = (await call('POST', '/v1/orders', { token: merchant.api_token, body: { price_amount: 65, price_currency: 'USD' } })).body.order;
    expect((await call('POST', `/v1/orders/${order.order_id}/checkout`, { token: merchant.api_token, body: { pay_currency: 'BTC' } })).status).toBe(200);
    expect((await call('POST', `/v1/sandbox/orders/${order.order_id}/pay`, { token: merchant.api_token, body: {} })).status).toBe(200);
    const key = randomUUID();
    const refund = () =>
      call('POST', `/v1/orders/${order.order_id}/refund`, {
        token: merchant.api_token,
        body: { basis: 'custom', amount: '0.00001' },
        headers: { 'Idempotency-Key': key },
      });
    const answers = await Promise.all(Array.from({ length: 10 }, refund));
    const fresh = answers.filter((answer) => answer.status === 200 && answer.headers.get('idempotent-replayed') === null);
    expect(fresh, answers.map((answer) => answer.text).join('\n')).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect([answer.status, answer.body.error_code]).toEqual([409, 'IDEMPOTENCY_IN_PROGRESS']);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const { listRefunds } = await import('#shared/store/refunds');
    expect(await listRefunds(order.order_id)).toHaveLength(1);
    // Once the first is done, every retry replays it.
    const later = await refund();
    expect([later.status, later.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(later.text).toBe(fresh[0]!.text);
  });

  it('replays a client error too, and protects other POSTs (cancel twice is one cancel)', async () => {
    const key = randomUUID();
    const bad = await create(key, { price_amount: -1 });
    const again = await create(key, { price_amount: -1 });
    expect(again.status).toBe(400);
    expect(again.text).toBe(bad.text);

    const order = (await call('POST', '/v1/orders', { token, body: { price_amount: 4 } })).body.order;
    const cancelKey = randomUUID();
    const cancel = () => call('POST', `/v1/orders/${order.order_id}/cancel`, { token, body: {}, headers: { 'idempotency-key': cancelKey } });
    const first = await cancel();
    const second = await cancel();
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.order.status).toBe('CANCELED');
    const withoutKey = await call('POST', `/v1/orders/${order.order_id}/cancel`, { token, body: {} });
    expect(withoutKey.body.error_code).toBe('ORDER_CANCELED_FAIILED');
  });

  it('refuses a malformed key; GET ignores it', async () => {
    const response = await create('bad key with spaces', { price_amount: 1 });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('Idempotency-Key');
    const get = await call('GET', '/v1/orders', { token, headers: { 'idempotency-key': 'bad key with spaces' } });
    expect(get.status).toBe(200);
  });

  it('does not keep a 409 ORDER_CONFLICT: the retry with the same key runs again and creates the order', async () => {
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { db } = await import('#shared/store/client');
    const send = db().send.bind(db());
    // A transaction of another request in flight on the order item, three times: a real
    // DynamoDB answers that only under a race this test cannot time.
    let conflicts = 3;
    const spy = vi.spyOn(db(), 'send').mockImplementation(((command: unknown) => {
      if (command instanceof PutCommand && conflicts > 0 && String((command.input.Item as { SK?: string })?.SK) === 'ORDER') {
        conflicts -= 1;
        return Promise.reject(Object.assign(new Error('Transaction is ongoing for the item'), { name: 'TransactionConflictException' }));
      }
      return send(command as never);
    }) as ReturnType<typeof db>['send']);
    try {
      const merchant = await newMerchant();
      const key = randomUUID();
      const body = { price_amount: 4, merchant_order_id: `conflict-${key}` };
      const first = await create(key, body, merchant.api_token);
      expect(first.status, first.text).toBe(409);
      expect(first.body.error_code).toBe('ORDER_CONFLICT');
      const retry = await create(key, body, merchant.api_token);
      expect(retry.status, retry.text).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(await listIds(merchant.api_token)).toEqual([retry.body.order.order_id]);
    } finally {
      spy.mockRestore();
    }
  });

  describe("records only for orders that exist (and are the caller's)", () => {
    const stored = async (scope: string, key: string) => (await db().send(new GetCommand({ TableName: tableName(), Key: idempotencyKey(scope, key), ConsistentRead: true }))).Item;
    const pageScope = (path: string) => `P${createHash('sha256').update(path).digest('hex').slice(0, 32)}`;

    it('200 anonymous cancels of random order ids with a key store nothing', async () => {
      const keys: { path: string; key: string }[] = [];
      const answers = new Map<string, number>();
      for (let i = 0; i < 200; i += 1) {
        const path = `/v1/pay/${randomUUID()}/cancel`;
        const key = randomUUID();
        const response = await call('POST', path, { headers: { 'Idempotency-Key': key } });
        expect([response.status, response.body.error_code]).toEqual([404, 'ORDER_NOT_FOUND']);
        const answer = `${response.status} ${response.body.error_code}`;
        answers.set(answer, (answers.get(answer) ?? 0) + 1);
        keys.push({ path, key });
      }
      let records = 0;
      for (const { path, key } of keys) if (await stored(pageScope(path), key)) records += 1;
      expect(records).toBe(0);
      recordAttack('idempotency-flood', {
        attack: 'Anonymous POST /v1/pay/{random uuid}/cancel, each with a new Idempotency-Key',
        count: keys.length,
        outcome: `${[...answers].map(([answer, n]) => `${answer} x${n}`).join(', ')}; idempotency records stored: ${records} (kept only for real orders of the caller)`,
        test: 'tests/integration/idempotency.test.ts',
      });
    }, 120_000);

    it("a merchant's key is kept for its own order, not for another merchant's or a missing one", async () => {
      const owner = await newMerchant();
      const stranger = await newMerchant();
      const order = (await call('POST', '/v1/orders', { token: owner.api_token, body: { price_amount: 4 } })).body.order;
      const strangerKey = randomUUID();
      const foreign = await call('POST', `/v1/orders/${order.order_id}/cancel`, {
        token: stranger.api_token,
        body: {},
        headers: { 'Idempotency-Key': strangerKey },
      });
      expect([foreign.status, foreign.body.error_code]).toEqual([404, 'ORDER_NOT_FOUND']);
      const missingKey = randomUUID();
      const missing = await call('POST', `/v1/orders/${randomUUID()}/checkout`, {
        token: stranger.api_token,
        body: { pay_currency: 'BTC' },
        headers: { 'Idempotency-Key': missingKey },
      });
      expect([missing.status, missing.body.error]).toEqual([422, 'Order does not exist']);
      const ownKey = randomUUID();
      const own = await call('POST', `/v1/orders/${order.order_id}/cancel`, {
        token: owner.api_token,
        body: {},
        headers: { 'Idempotency-Key': ownKey },
      });
      expect(own.status, own.text).toBe(200);
      expect(await stored(`M${stranger.user_id}`, strangerKey)).toBeUndefined();
      expect(await stored(`M${stranger.user_id}`, missingKey)).toBeUndefined();
      expect(await stored(`M${owner.user_id}`, ownKey)).toMatchObject({ state: 'DONE', status_code: 200 });
    });
  });
});
