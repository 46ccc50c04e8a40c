/** Failed authentications per address in the local adapter's memory (tests/support/auth-failures.ts). */
import { afterAll, beforeAll } from 'vitest';
import { startApi } from '../support/api';
import { describeAuthFailures } from '../support/auth-failures';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  // Request quotas off (rate 0): only the failure budget is under test.
  api = await startApi({ quotas: { merchant: { rate: 0, burst: 1 }, public: { rate: 0, burst: 1 }, authFailures: { limit: 3, windowSeconds: 600 }, maxKeys: 1000 } });
});
afterAll(() => api.close());

describeAuthFailures('local adapter', () => api.url, 3, { record: 'tests/integration/auth-failures-local.test.ts' });
