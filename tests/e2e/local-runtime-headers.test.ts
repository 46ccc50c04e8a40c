import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '#infra/local/ports';
import { startRuntime } from '#infra/local/runtime';
import { securityHeaderFields, siteSecurityHeaders, type SiteName } from '#shared/core/site-headers';

/**
 * `npm start` serves the payment page and the portal with the security headers their CloudFront
 * adds in AWS (shared/core/site-headers.ts; the policies: tests/infra/site-headers.test.ts):
 * every static answer of /pay/ and /portal/ (the app, its files, its redirect) carries the
 * declared set. In process, on the test setup's DynamoDB Local; the browser tests
 * (tests/e2e/page.test.ts, portal.test.ts) run the apps under that CSP.
 */
let runtime: Awaited<ReturnType<typeof startRuntime>>;

beforeAll(async () => {
  runtime = await startRuntime({
    port: await freePort(),
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    tableName: `runtime-headers-${process.pid}`,
    demoApiToken: `headers-token-${'h'.repeat(20)}`,
    expirySweepSeconds: 3600,
  });
}, 60_000);

afterAll(async () => {
  await runtime?.stop();
});

const PATHS: Record<SiteName, string[]> = {
  page: ['/pay/', '/pay/?id=00000000-0000-4000-8000-000000000000', '/pay/app.js', '/pay/app.css', '/pay/sandbox-gateway/alipay', '/pay', '/favicon.ico'],
  portal: ['/portal/', '/portal/app.js', '/portal/app.css', '/portal/orders', '/portal'],
};

describe("the local runtime's static sites", () => {
  for (const [site, paths] of Object.entries(PATHS) as [SiteName, string[]][]) {
    it(`answers every ${site} path with exactly the declared security headers`, async () => {
      const declared = securityHeaderFields(siteSecurityHeaders(site));
      for (const path of paths) {
        const answer = await fetch(`${runtime.url}${path}`, { redirect: 'manual' });
        expect(answer.status, path).toBe(path.endsWith('/pay') || path.endsWith('/portal') ? 301 : 200);
        for (const [name, value] of Object.entries(declared)) expect(answer.headers.get(name), `${path} ${name}`).toBe(value);
        await answer.arrayBuffer();
      }
      // The app's own page under its CSP: nothing inline it would block.
      const html = await (await fetch(`${runtime.url}/${site === 'page' ? 'pay' : 'portal'}/`)).text();
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle="|\son[a-z]+="/i);
    });
  }
});
