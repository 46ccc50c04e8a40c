import { afterAll, beforeAll, expect, inject } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import { tableName } from '#shared/store/client';
import { client, newMerchant, startApi } from './api';
import type { FaultyServer } from './chain-http';
import { reportAllHealthy } from './source-health';

/** A test file's shop whose orders a chain watcher follows: its own table, the API, a sandbox merchant. */
export interface WatchedShop {
  call: ReturnType<typeof client>;
  /** The merchant's API token. */
  token: string;
  /** Chain servers to close after the file. */
  servers: FaultyServer[];
}

/**
 * Sets up (beforeAll) and tears down (afterAll) a {@link WatchedShop} in a table of its own
 * (`<table>-<pid>`): a watcher test may move clocks or read a whole chain's lists, which other
 * files sharing a table would feel. The returned object is filled in before the first test.
 */
export function watchedShop(table: string, name: string): WatchedShop {
  const shop = { servers: [] } as unknown as WatchedShop;
  let api: Awaited<ReturnType<typeof startApi>>;
  beforeAll(async () => {
    const own = `${table}-${process.pid}`;
    // No stream: nothing reads it here (ensureTable's comment says what stream records cost).
    await ensureTable(inject('dynamodbEndpoint'), own, { stream: false });
    process.env.TABLE_NAME = own;
    expect(tableName()).toBe(own);
    api = await startApi();
    shop.call = client(api.url);
    shop.token = (await newMerchant(true, name)).api_token;
    // Live checkouts are offered only while their source reports healthy: as its watcher would have.
    await reportAllHealthy();
  });
  afterAll(async () => {
    await api?.close();
    for (const server of shop.servers) await server.close();
  });
  return shop;
}
