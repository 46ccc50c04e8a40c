import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN_KEY_PARAMETER } from '#infra/cdk/config';
import { TICK_FOLDER, WAKE_FOLDER, watcherKey } from '#infra/cdk/constructs/chain-watchers';
import { CryptoPayStack } from '#infra/cdk/stack';
import { deployConfig, logicalId, type PlacedFunction, resourcesOf, serviceFunctions, ssmParametersOf, TEST_ENV, testApp, variablesOf } from './support.ts';

const MACAROON = '/crypto-pay/test/lnd-macaroon';
const CERT = '/crypto-pay/test/lnd-tls-cert';
const SETTINGS = {
  LND_REST_URL: 'https://lnd.internal.example:8080/',
  LND_MACAROON_PARAMETER: MACAROON,
  LND_TLS_CERT_PARAMETER: CERT,
  EOS_ACCOUNT: 'shoppay.a1',
  EOS_HISTORY_URL: 'https://eos.hyperion.example/',
};

const { app, cleanup } = testApp({ bundle: false });
const stack = new CryptoPayStack(app, 'LightningAndEos', {
  env: TEST_ENV,
  config: deployConfig(SETTINGS),
  paymentPageDir: join(tmpdir(), 'crypto-pay-test-no-page'),
  portalDir: join(tmpdir(), 'crypto-pay-test-no-portal'),
});
const template = Template.fromStack(stack);
const watchers = stack.watchers!;
const watchersTemplate = Template.fromStack(watchers);
const functions = serviceFunctions(stack, template);
afterAll(cleanup);

const placed = (key: string): PlacedFunction => functions.get(key)!;
const props = (key: string) => resourcesOf(watchersTemplate, 'AWS::Lambda::Function')[logicalId(watchers, placed(key).fn.function)]!.Properties!;
const variables = (key: string) => variablesOf(placed(key));
/** Functions that may read an SSM parameter other than the API token key (the merchant routes' own). */
const ssmReaders = () => [...functions.keys()].filter((key) => ssmParametersOf(placed(key)).some((parameter) => parameter !== `:parameter${DEFAULT_TOKEN_KEY_PARAMETER}`));

describe('Lightning (LND) and EOS (Hyperion) in AWS', () => {
  it('one watch-chain function each for LBTC and EOS (and the waker and the ticker), every minute, two runs at most (a step of the line and the minute run)', () => {
    expect([...watchers.functions.keys()]).toEqual([watcherKey('LBTC'), watcherKey('EOS'), WAKE_FOLDER, TICK_FOLDER]);
    for (const chain of ['LBTC', 'EOS']) {
      expect(props(watcherKey(chain))).toMatchObject({ Timeout: 120, ReservedConcurrentExecutions: 2 });
      expect(variables(watcherKey(chain))).toMatchObject({ WATCH_CHAIN: chain });
      const rule = Object.values(resourcesOf(watchersTemplate, 'AWS::Events::Rule')).find((r) =>
        JSON.stringify(r.Properties?.Targets).includes(logicalId(watchers, placed(watcherKey(chain)).fn.function)),
      );
      expect(rule?.Properties?.ScheduleExpression).toBe('rate(1 minute)');
    }
  });

  it('tells every function the node, account and history API (names of secrets only), so the page offers LBTC and EOS', () => {
    for (const key of ['pay-get-order', 'checkout-order', watcherKey('EOS')]) expect(variables(key)).toMatchObject(SETTINGS);
    for (const json of [template.toJSON(), watchersTemplate.toJSON()]) expect(JSON.stringify(json)).not.toMatch(/macaroon[^"]*"\s*:\s*"[0-9a-f]{40,}/i);
  });

  it('only the invoice makers and the LBTC watcher may read the macaroon and certificate', () => {
    expect(ssmReaders().sort()).toEqual(['checkout-order', 'create-order', 'pay-checkout-order', 'pay-create-link-order', watcherKey('LBTC')].sort());
    for (const key of ssmReaders()) {
      const readable = JSON.stringify(ssmParametersOf(placed(key)));
      expect(readable).toContain(`parameter${MACAROON}`);
      expect(readable).toContain(`parameter${CERT}`);
    }
  });

  it("alarms on the sources' health (a silent or stuck watcher included) and on every EOS transfer no invoice takes, one series each", () => {
    const alarms = Object.values(resourcesOf(watchersTemplate, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties!);
    const dimensions = (alarm: Record<string, unknown>) =>
      (alarm.Dimensions as { Name: string; Value: string }[])
        .map((d) => `${d.Name}=${d.Value}`)
        .sort()
        .join(',');
    // Beside them wake-watchers' and tick-watchers' errors alarms (tests/infra/watchers.test.ts).
    expect(alarms.map((a) => a.MetricName).sort()).toEqual(['Errors', 'Errors', 'UnhealthyCurrencies', 'UnmatchedPayments']);
    const unmatched = alarms.find((a) => a.MetricName === 'UnmatchedPayments')!;
    expect(dimensions(unmatched)).toBe('service=crypto-pay-orders');
    expect(unmatched).toMatchObject({ Statistic: 'Sum', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', TreatMissingData: 'notBreaching' });
    expect(alarms.find((a) => a.MetricName === 'UnhealthyCurrencies')).toMatchObject({ TreatMissingData: 'breaching' });
  });

  it('refuses half configurations and secrets in place of parameter names at synth', () => {
    expect(() => deployConfig({ LND_REST_URL: SETTINGS.LND_REST_URL })).toThrow(/lndMacaroonParameter \(LND_MACAROON_PARAMETER\) is required with lndRestUrl/);
    expect(() => deployConfig({ LND_MACAROON_PARAMETER: MACAROON })).toThrow(/lndRestUrl \(LND_REST_URL\) is required/);
    expect(() => deployConfig({ LND_REST_URL: SETTINGS.LND_REST_URL, LND_MACAROON_PARAMETER: '0201036c6e64' })).toThrow(/lndMacaroonParameter .* SSM parameter name/);
    expect(() => deployConfig({ LND_REST_URL: 'http://lnd:8080', LND_MACAROON_PARAMETER: MACAROON })).toThrow(/lndRestUrl .* https/);
    expect(() => deployConfig({ EOS_HISTORY_URL: SETTINGS.EOS_HISTORY_URL })).toThrow(/eosHistoryUrl .* needs eosAccount/);
    expect(() => deployConfig({ EOS_ACCOUNT: 'shoppay.a1', EOS_HISTORY_URL: 'http://eos.example' })).toThrow(/eosHistoryUrl .* https/);
    // EOS_ACCOUNT alone is accepted (as before) and watches nothing: live merchants' EOS stays closed.
    expect(deployConfig({ EOS_ACCOUNT: 'shoppay.a1' }).indexedSources).toEqual([]);
  });

  it('passes cdk-nag AwsSolutions', () => {
    const report = new AwsSolutionsChecks(undefined, { verbose: false }).validateScope(app);
    const findings = report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
    expect(findings, findings.join('\n')).toEqual([]);
  });
});
