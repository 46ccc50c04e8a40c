/**
 * The operator's merchant CLI against a table named by TABLE_NAME (as against the AWS table;
 * here the test run's DynamoDB Local): every command, its JSON with --json, and its errors.
 * The same commands against the local runtime's table are covered in local-runtime.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-base';
import { runScript } from '../support/processes';
import { HorizonTestServer, USDC } from '../support/horizon-server';

const env = {
  TABLE_NAME: process.env.TABLE_NAME!,
  DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!,
  TOKEN_HMAC_KEY: process.env.TOKEN_HMAC_KEY!,
  PORTAL_ORIGIN: 'https://portal.shop.test',
};
const BIP84_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';

async function cli(...args: string[]) {
  const result = await runScript('infra/local/merchant-cli.ts', args, env);
  return { ...result, json: () => JSON.parse(result.output.trim().split('\n').at(-1)!) };
}

// Each command is a new Node process with tsx and the AWS SDK: seconds each on a loaded machine.
describe('npm run merchant', { timeout: 120_000 }, () => {
  it('creates, lists, shows, sets, disables and enables a merchant, and keeps its audit log', async () => {
    const created = (await cli('create', '--name', 'CLI Admin Shop', '--sandbox')).json();
    expect(created).toMatchObject({
      user_id: expect.any(Number),
      api_token: expect.any(String),
      callback_secret: expect.stringMatching(/^whsec_/),
      portal_invite: expect.stringMatching(/^https:\/\/portal\.shop\.test\/portal\/#\/invite\/[\w-]+$/),
    });
    const id = String(created.user_id);

    const list = (await cli('list', '--json')).json() as { user_id: number; name: string }[];
    expect(list.find((merchant) => merchant.user_id === created.user_id)).toMatchObject({ name: 'CLI Admin Shop', sandbox: true });
    expect(JSON.stringify(list)).not.toMatch(/whsec_|token_hash|callback_secret/);

    const set = (await cli('set', id, '--xpub', `BTC=${BIP84_ZPUB}`, '--callback-statuses', 'all', '--json')).json();
    expect(set.addresses.BTC[0]).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(set.merchant.callback_statuses).toBe('all');
    const refused = await cli('set', id, '--xpub', 'BTC=xpub-not-really');
    expect(refused.code).toBe(2);
    expect(refused.output).toContain('merchant set:');

    expect((await cli('disable', id, '--json')).json()).toMatchObject({ user_id: created.user_id, disabled: true });
    expect((await cli('enable', id)).output).toContain('enabled');
    const shown = (await cli('show', id, '--json')).json();
    expect(shown.merchant).toMatchObject({ user_id: created.user_id, disabled: false, callback_statuses: 'all' });
    expect(shown.tokens.map((token: { name: string }) => token.name)).toEqual(['default']);

    const audit = (await cli('audit', id, '--json')).json() as { action: string; who: string; from: string }[];
    // create's portal invite is recorded too (member.invited), by the operator at the CLI.
    expect(audit.map((entry) => entry.action)).toEqual(['merchant.enabled', 'merchant.disabled', 'settings.changed', 'member.invited', 'merchant.created']);
    expect(audit[3]).toMatchObject({ who: expect.stringMatching(/^operator:/), details: { role: 'owner' } });
    expect(audit[0]!.who).toMatch(/^operator:/);
    expect(audit[0]!.from).toMatch(/^cli@/);
  });

  it("lists a merchant's subscription plans, newest first, archived ones marked; an unknown merchant is an error", async () => {
    const created = (await cli('create', '--name', 'CLI Plans Shop', '--sandbox')).json();
    const { createPlan, changePlan } = await import('#shared/services/subscriptions');
    const { merchantProfile } = await import('#shared/services/merchants');
    const merchant = await merchantProfile(created.user_id);
    const monthly = await createPlan(merchant, { name: 'Monthly', price_amount: '30', price_currency: 'USD', interval_unit: 'month', interval_count: 1 }, new Date());
    const yearly = await createPlan(merchant, { name: 'Yearly', price_amount: '300', price_currency: 'EUR', interval_unit: 'year', interval_count: 1 }, new Date(Date.now() + 1_000));
    await changePlan(merchant, monthly.plan_id, { archived: true }, new Date());
    const listed = (await cli('plans', String(created.user_id), '--json')).json() as { plan_id: string; archived: boolean }[];
    expect(listed.map((plan) => [plan.plan_id, plan.archived])).toEqual([
      [yearly.plan_id, false],
      [monthly.plan_id, true],
    ]);
    const text = (await cli('plans', String(created.user_id))).output.trim().split('\n');
    expect(text.slice(-2)).toEqual([`${yearly.plan_id}\tavailable\t300 EUR\t1 year\tYearly`, `${monthly.plan_id}\tarchived\t30 USD\t1 month\tMonthly`]);
    const unknown = await cli('plans', '999999999');
    expect(unknown.code).toBe(2);
  });

  it('makes, lists and revokes tokens, and rolls and shows the callback secret', async () => {
    const created = (await cli('create', '--name', 'CLI Token Shop', '--sandbox')).json();
    const id = String(created.user_id);
    const made = (await cli('token', 'create', id, '--name', 'shop backend')).json();
    expect(made).toMatchObject({ token_id: expect.stringMatching(/^tok_/), name: 'shop backend', api_token: expect.any(String) });
    const listed = (await cli('token', 'list', id, '--json')).json() as { token_id: string; name: string; prefix: string }[];
    expect(listed.map((token) => token.name)).toEqual(['default', 'shop backend']);
    expect(listed[1]!.prefix).toBe(made.api_token.slice(0, 6));
    expect(JSON.stringify(listed)).not.toContain(made.api_token);
    expect((await cli('token', 'revoke', id, made.token_id, '--json')).json()).toEqual({ revoked: made.token_id });
    const again = await cli('token', 'revoke', id, made.token_id);
    expect(again.code).toBe(2);
    expect(again.output).toContain('no API token');

    const rolled = (await cli('secret', 'roll', id, '--overlap-hours', '1')).json();
    expect(rolled.callback_secret).toMatch(/^whsec_/);
    const secrets = (await cli('secret', 'show', id, '--json')).json();
    expect(secrets).toMatchObject({ callback_secret: rolled.callback_secret, previous_callback_secret: created.callback_secret });
  });

  it('refuses to create a merchant whose invite link it cannot make, before creating it', async () => {
    const name = `No Portal Shop ${process.pid}-${Date.now()}`;
    const result = await runScript('infra/local/merchant-cli.ts', ['create', '--name', name], { ...env, PORTAL_ORIGIN: '' });
    expect(result.code).toBe(2);
    expect(result.output).toContain('PORTAL_ORIGIN');
    const list = (await cli('list', '--json')).json() as { name: string }[];
    expect(list.filter((merchant) => merchant.name === name)).toEqual([]);
  });

  it("number-orders numbers a merchant's orders stored before numbering (Get Orders beyond offset 1000)", async () => {
    const { seedOrders } = await import('../support/orders');
    const { readNumbering } = await import('#shared/store/order-numbers');
    const created = (await cli('create', '--name', 'CLI Numbering Shop', '--sandbox')).json();
    await seedOrders(created.user_id, 120, { start: new Date('2025-06-01T00:00:00Z') });
    const result = (await cli('number-orders', String(created.user_id), '--json')).json();
    expect(result).toEqual({ numbered: { [created.user_id]: 120 } });
    expect(await readNumbering(created.user_id)).toMatchObject({ count: 120 });
    // Again: nothing left to number.
    expect((await cli('number-orders', String(created.user_id), '--json')).json()).toEqual({ numbered: { [created.user_id]: 0 } });
  });

  it('answers a wrong command, a bad user id and an unknown merchant with exit code 2', async () => {
    for (const args of [['frobnicate'], ['show', 'abc'], ['token', 'burn', '1']]) {
      const result = await cli(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.output).toContain('usage:');
    }
    const missing = await cli('show', '999999999');
    expect(missing.code).toBe(2);
    expect(missing.output).toContain('no merchant has user_id 999999999');
  });

  it("takes TON and Stellar wallets: TON's kept in its canonical form, a Stellar account only if it exists and trusts USDC", async () => {
    const horizon = await new HorizonTestServer().start();
    try {
      const [trusting, untrusting, missing] = [51, 52, 53].map((seed) => Keypair.fromRawEd25519Seed(Buffer.alloc(32, seed)).publicKey());
      for (const account of [trusting!, untrusting!]) horizon.createAccount(account, '100');
      horizon.trust(trusting!, USDC);
      const withHorizon = (...args: string[]) => runScript('infra/local/merchant-cli.ts', args, { ...env, STELLAR_HORIZON_URL: horizon.url });
      // The USDT master in its bounceable form is refused; a wallet's bounceable form is kept non-bounceable.
      const master = await cli('create', '--name', 'CLI TON master', '--wallet', 'USDT_TON=EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs');
      expect(master.code).not.toBe(0);
      expect(master.output).toContain('the USDT jetton master, not a wallet');
      const created = await withHorizon('create', '--name', 'CLI TON Stellar', '--wallet', 'TON=EQB3we_mCY94Qap7o--GvWAXgaKI9iJ-r9QgNAEmR1UokB9I', '--wallet', `USDC_XLM=${trusting}`);
      expect(created.code, created.output).toBe(0);
      const id = String(JSON.parse(created.output.trim().split('\n').at(-1)!).user_id);
      expect((await cli('show', id, '--json')).json().merchant.wallets).toEqual({ TON: 'UQB3we_mCY94Qap7o--GvWAXgaKI9iJ-r9QgNAEmR1UokEKN', XLM: trusting });
      const noTrust = await withHorizon('create', '--name', 'CLI no trustline', '--wallet', `XLM=${untrusting}`);
      expect(noTrust.code).not.toBe(0);
      expect(noTrust.output).toContain("does not trust Circle's USDC");
      const absent = await withHorizon('create', '--name', 'CLI no account', '--wallet', `XLM=${missing}`);
      expect(absent.code).not.toBe(0);
      expect(absent.output).toContain('does not exist on Stellar');
    } finally {
      await horizon.close();
    }
  });
});
