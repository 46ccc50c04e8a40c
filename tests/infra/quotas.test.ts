/**
 * Per-client request quotas in AWS (issue 14, item 3). The API is an HTTP API, which AWS WAF
 * cannot be attached to, so the route functions count each merchant's and each client
 * address's requests in the table (docs/security.md compares the costs); API Gateway's
 * per-route throttling stays as the ceiling over all clients. This checks the stack wires that:
 * every route function counts (QUOTA_STORE=table), with the deploy settings forwarded, and the
 * quota keys are what the read-only roles may write.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { CryptoPayStack, EVENT_FUNCTIONS } from '#infra/cdk/stack';
import { readQuotaConfig } from '#shared/core/config';
import { ROUTES } from '#shared/http/routes';
import { QUOTA_PREFIX, quotaKey } from '#shared/store/keys';
import { deployConfig, resourcesOf, serviceFunctions, TEST_ENV, testApp, variablesOf } from './support.ts';

const { app, cleanup } = testApp({ bundle: false });
const stack = new CryptoPayStack(app, 'QuotaTest', {
  env: TEST_ENV,
  config: deployConfig({ QUOTA_MERCHANT_RATE: '50', QUOTA_MERCHANT_BURST: '100', QUOTA_PUBLIC_RATE: '0' }),
  paymentPageDir: join(tmpdir(), 'crypto-pay-test-no-page'),
  portalDir: join(tmpdir(), 'crypto-pay-test-no-portal'),
});
const template = Template.fromStack(stack);
afterAll(cleanup);

const placed = serviceFunctions(stack, template);
const environmentOf = (folder: string) => variablesOf(placed.get(folder)!) as Record<string, string>;

describe('request quotas in the stack', () => {
  it('is an HTTP API (no WAF web ACL can attach to it), so the quotas are counted by the functions', () => {
    expect(Object.keys(resourcesOf(template, 'AWS::ApiGatewayV2::Api'))).toHaveLength(1);
    expect(resourcesOf(template, 'AWS::ApiGateway::RestApi')).toEqual({});
    expect(resourcesOf(template, 'AWS::WAFv2::WebACLAssociation')).toEqual({});
  });

  it('has every route function count requests in the table, with the deploy settings the handlers read', () => {
    for (const folder of new Set(ROUTES.map((route) => route.fn))) {
      const environment = environmentOf(folder);
      expect(environment, folder).toMatchObject({ QUOTA_STORE: 'table', QUOTA_MERCHANT_RATE: '50', QUOTA_MERCHANT_BURST: '100', QUOTA_PUBLIC_RATE: '0' });
      // What a cold start will read from that environment.
      const quota = readQuotaConfig(environment);
      expect(quota).toEqual({ store: 'table', merchant: { rate: 50, burst: 100 }, public: { rate: 0, burst: 10 }, authFailures: { limit: 20, windowSeconds: 60 } });
    }
    for (const { fn: folder } of Object.values(EVENT_FUNCTIONS)) expect(environmentOf(folder), folder).not.toHaveProperty('QUOTA_STORE');
  });

  it('keys quota items under the prefix the read-only roles may write', () => {
    expect(quotaKey('M7', 123).PK.startsWith(QUOTA_PREFIX)).toBe(true);
    expect(quotaKey('P203.0.113.9', 123)).toEqual({ PK: 'QUOTA#P203.0.113.9', SK: 'W#123' });
  });

  it('refuses a quota setting that is not a number', () => {
    expect(() => deployConfig({ QUOTA_MERCHANT_BURST: '0' })).toThrow(/quotaMerchantBurst .* positive integer/);
    expect(() => deployConfig({ QUOTA_PUBLIC_RATE: 'fast' })).toThrow(/quotaPublicRate .* non-negative integer/);
  });
});
