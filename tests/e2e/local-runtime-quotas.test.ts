/**
 * `npm start` counts request quotas and failed authentications with the code AWS runs (issue
 * #42, item 4): its handlers count in the table on DynamoDB Local (QUOTA_STORE=table, as the
 * stack sets it), its HTTP adapter nothing of its own. The answers are the contract's: 429 with
 * Retry-After and the JSON error body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '#shared/store/client';
import { quotaKey } from '#shared/store/keys';
import { windowLimit, windowOf } from '#shared/store/quotas';
import type { ApiResponse } from '../support/api';
import { demoToken } from '../support/local-runtime';
import { killGroup, sharedDynamoDb, startScript, type Started } from '../support/processes';
import { expectRateLimited } from '../support/quotas';

const dataDir = mkdtempSync(join(tmpdir(), 'runtime-quotas-e2e-'));
const dynamodb = sharedDynamoDb();
/** 5 requests a 5 s window per merchant; 2 failed authentications per address in 600 s. */
const LIMIT = windowLimit(1, 5);
let runtime: Started;
let url = '';
let userId = 0;

beforeAll(async () => {
  runtime = startScript('infra/local/start.ts', [], {
    PORT: '0',
    DATA_DIR: dataDir,
    TOKEN_HMAC_KEY: '',
    DEMO_API_TOKEN: demoToken,
    ...dynamodb,
    QUOTA_MERCHANT_RATE: '1',
    QUOTA_MERCHANT_BURST: '5',
    QUOTA_AUTH_FAILURES: '2',
    QUOTA_AUTH_FAILURE_WINDOW_SECONDS: '600',
  });
  [, url = ''] = await runtime.waitFor(/API:\s+(http:\/\/\S+)/);
  const [, id] = await runtime.waitFor(/Demo merchant:\s+user_id (\d+)/);
  userId = Number(id);
  await runtime.waitFor(/Ctrl-C stops everything/);
}, 120_000);
afterAll(() => {
  if (runtime) killGroup(runtime.child);
  rmSync(dataDir, { recursive: true, force: true });
});

async function getOrders(token: string): Promise<ApiResponse> {
  const response = await fetch(`${url}/v1/orders`, { headers: { token } });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

/** Waits for the start of a fresh window, so the test's requests all fall in one. */
async function freshWindow(): Promise<void> {
  const windowMs = LIMIT.windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < 3500) await new Promise((resolve) => setTimeout(resolve, left + 20));
}

describe('npm start counts quotas in the table, as AWS does', { timeout: 60_000 }, () => {
  it('answers bad tokens 401 within the address budget, then 429; a merchant past its quota 429, its window counted in the table', async () => {
    await freshWindow();
    const window = windowOf(LIMIT, Date.now());
    for (let i = 0; i < 2; i += 1) expect((await getOrders(`${demoToken}-wrong`)).status).toBe(401);
    // The failures' window is a fixed 600 s one: Retry-After is what is left of it, anywhere from 1 to 600 s (it was
    // asserted at least 60, which failed whenever the run fell in the window's last minute).
    const refused = await getOrders(`${demoToken}-wrong`);
    expectRateLimited(refused);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(600);

    // The same address's good token is never refused for its failures; its own quota is 5 a window.
    for (let i = 0; i < 5; i += 1) expect((await getOrders(demoToken)).status).toBe(200);
    expectRateLimited(await getOrders(demoToken));
    const item = await db().send(new GetCommand({ TableName: dynamodb.TABLE_NAME, Key: quotaKey(`M${userId}`, window), ConsistentRead: true }));
    expect(item.Item).toMatchObject({ used: 5, type: 'QUOTA' });
  });
});
