import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { CryptoPayStack } from '#infra/cdk/stack';
import { securityHeaderFields, siteSecurityHeaders } from '#shared/core/site-headers';
import { deployConfig, resourcesOf, TEST_ENV, testApp } from './support.ts';

/**
 * The web apps' security headers in AWS are exactly the declared set (shared/core/site-headers.ts),
 * the one `npm start` serves too (tests/e2e/local-runtime-headers.test.ts): each site's
 * synthesized CloudFront ResponseHeadersPolicy, read back as the HTTP fields CloudFront adds.
 */
const { app, cleanup } = testApp({ bundle: false });
const stack = new CryptoPayStack(app, 'Headers', {
  env: TEST_ENV,
  config: deployConfig(),
  paymentPageDir: join(tmpdir(), 'crypto-pay-test-no-page'),
  portalDir: join(tmpdir(), 'crypto-pay-test-no-portal'),
});
const template = Template.fromStack(stack);
afterAll(cleanup);

type Config = Record<string, any>;

/** The policy whose comment starts with `title` (each site has one). */
function policyOf(title: string): Config {
  const found = Object.values(resourcesOf(template, 'AWS::CloudFront::ResponseHeadersPolicy'))
    .map((resource) => resource.Properties!.ResponseHeadersPolicyConfig as Config)
    .filter((config) => String(config.Comment).startsWith(title));
  expect(found, title).toHaveLength(1);
  return found[0]!;
}

/** The HTTP fields a policy makes CloudFront add, failing on anything it holds beyond the declared kinds. */
function fieldsOf(config: Config): Record<string, unknown> {
  // Nothing but security headers: no custom, CORS, removed or Server-Timing headers.
  expect(Object.keys(config).sort()).toEqual(['Comment', 'Name', 'SecurityHeadersConfig']);
  const security = config.SecurityHeadersConfig as Config;
  expect(Object.keys(security).sort()).toEqual(['ContentSecurityPolicy', 'ContentTypeOptions', 'FrameOptions', 'ReferrerPolicy', 'StrictTransportSecurity']);
  // Each replaces whatever the origin sent.
  for (const header of Object.values(security)) expect(header.Override).toBe(true);
  const hsts = security.StrictTransportSecurity;
  expect(Object.keys(hsts).sort()).toEqual(['AccessControlMaxAgeSec', 'IncludeSubdomains', 'Override']);
  expect(security.ContentTypeOptions).toEqual({ Override: true });
  return {
    'strict-transport-security': `max-age=${hsts.AccessControlMaxAgeSec}${hsts.IncludeSubdomains ? '; includeSubDomains' : ''}`,
    'x-content-type-options': 'nosniff',
    'x-frame-options': security.FrameOptions.FrameOption,
    'referrer-policy': security.ReferrerPolicy.ReferrerPolicy,
    'content-security-policy': security.ContentSecurityPolicy.ContentSecurityPolicy,
  };
}

describe("the sites' CloudFront response headers policies", () => {
  it("hold exactly the payment page's declared set (its scripts may also call this region's API hosts)", () => {
    const declared = securityHeaderFields(siteSecurityHeaders('page', [`https://*.execute-api.${stack.region}.${stack.urlSuffix}`]));
    expect(fieldsOf(policyOf('Payment page'))).toEqual(stack.resolve(declared));
  });

  it("hold exactly the merchant portal's declared set, the one npm start serves", () => {
    expect(fieldsOf(policyOf('Merchant portal'))).toEqual(securityHeaderFields(siteSecurityHeaders('portal')));
  });

  it("the portal's API behaviors carry the same policy as its files", () => {
    const portal = Object.entries(resourcesOf(template, 'AWS::CloudFront::ResponseHeadersPolicy')).find(([, resource]) =>
      String((resource.Properties!.ResponseHeadersPolicyConfig as Config).Comment).startsWith('Merchant portal'),
    )![0];
    const distribution = Object.values(resourcesOf(template, 'AWS::CloudFront::Distribution'))
      .map((resource) => resource.Properties!.DistributionConfig as Config)
      .find((config) => (config.CacheBehaviors ?? []).length > 0)!;
    for (const behavior of [distribution.DefaultCacheBehavior, ...distribution.CacheBehaviors]) {
      expect(behavior.ResponseHeadersPolicyId, behavior.PathPattern ?? 'default').toEqual({ Ref: portal });
    }
  });
});
