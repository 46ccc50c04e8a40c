import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readQuotaConfig } from '#shared/core/config';
import { client, newMerchant } from './api';
import { expectRateLimited, requestFrom } from './quotas';
import { recordAttack } from './security-report';

/** A loopback address of its own for each test (Linux routes all of 127.0.0.0/8 to lo). */
export const freshLoopback = (): string => `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;

/**
 * Failed authentications counted per client address (issue 21, item 5), with a budget of
 * `budget` failures: past it the address's failures are 429 with Retry-After; its good token,
 * and other addresses, are untouched. Run by tests/integration/auth-failures-*.test.ts; the
 * one with `record` writes the flood's row of docs/security.md's attack table.
 */
export function describeAuthFailures(where: string, url: () => string, budget: number, options: { record?: string } = {}): void {
  describe(`failed authentications per client address (${where})`, () => {
    const get = (address: string, token: string) => requestFrom(address, `${url()}/v1/orders`, { headers: { token } });

    it('past the budget an address gets 429 with Retry-After for bad tokens; its good token and other addresses are untouched', async () => {
      const shop = await newMerchant(true, `Auth Failures ${where}`);
      const attacker = freshLoopback();
      const bad = `${shop.api_token.slice(0, -4)}zzzz`;
      for (let i = 0; i < budget; i += 1) expect((await get(attacker, bad)).status).toBe(401);
      expectRateLimited(await get(attacker, bad));
      expectRateLimited(await get(attacker, 'not-even-a-token'));
      // The same address with a good token: never refused for the failures.
      expect((await get(attacker, shop.api_token)).status).toBe(200);
      // Another address is still within its own budget.
      expect((await get(freshLoopback(), bad)).status).toBe(401);
    });

    it('a flood of bad tokens from one address, with a good token among them: the good one is answered 200', async () => {
      const shop = await newMerchant(true, `Auth Flood ${where}`);
      const attacker = freshLoopback();
      const flood = Array.from({ length: 40 }, (_, i) => get(attacker, `${shop.api_token.slice(0, -6)}${String(i).padStart(6, 'y')}`));
      const good = get(attacker, shop.api_token);
      const answers = await Promise.all(flood);
      const goodAnswer = await good;
      expect(goodAnswer.status).toBe(200);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      for (const answer of refused) expectRateLimited(answer);
      expect(answers.every((answer) => answer.status === 401 || answer.status === 429)).toBe(true);
      expect((await client(url())('GET', '/v1/orders', { token: shop.api_token })).status).toBe(200);
      const elsewhere = await get(freshLoopback(), `${shop.api_token.slice(0, -4)}zzzz`);
      expect(elsewhere.status).toBe(401);
      if (options.record) {
        const deployed = readQuotaConfig({}).authFailures;
        const unauthorized = answers.filter((answer) => answer.status === 401).length;
        recordAttack('auth-failure-flood', {
          attack: `Bad API tokens from one client address, ${flood.length} at once (failure budget ${budget} here; by default ${deployed.limit} per ${deployed.windowSeconds} s), with the address's good token sent amid them`,
          count: flood.length + 1,
          outcome:
            `bad tokens: 401 AUTHENTICATION_FAILED x${unauthorized}, 429 API_LIMIT_EXCEEDED with Retry-After x${refused.length}; the good token from the same address: ${goodAnswer.status}; ` +
            `another address's bad token: ${elsewhere.status} (its own budget); counted in the table, as in AWS and npm start; another merchant's Get Order under a 600-request flood: docs/performance.md`,
          test: options.record,
        });
      }
    });
  });
}
