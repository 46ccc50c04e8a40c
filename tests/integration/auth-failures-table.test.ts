/** Failed authentications per address counted in the table, as in AWS and `npm start` (tests/support/auth-failures.ts). */
import { afterAll, beforeAll } from 'vitest';
import { startApi } from '../support/api';
import { describeAuthFailures } from '../support/auth-failures';

const saved = { ...process.env };
let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  // Read by the handlers' configuration on first use, which is after this. Request quotas off.
  Object.assign(process.env, { QUOTA_STORE: 'table', QUOTA_MERCHANT_RATE: '0', QUOTA_AUTH_FAILURES: '3', QUOTA_AUTH_FAILURE_WINDOW_SECONDS: '600' });
  api = await startApi();
});
afterAll(async () => {
  await api.close();
  process.env = saved;
});

describeAuthFailures('table, as in AWS', () => api.url, 3, { record: 'tests/integration/auth-failures-table.test.ts' });
