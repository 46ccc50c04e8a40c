import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN_KEY_PARAMETER } from '#infra/cdk/config';
import { CryptoPayStack, watcherKey } from '#infra/cdk/stack';
import { actionsOf, deployConfig, logicalId, resourcesOf, statementsOfRole, TEST_ENV, testApp } from './support.ts';

const BTC_PARAMETER = '/crypto-pay/test/btc-rpc';

const { app, cleanup } = testApp({ bundle: false });
const stack = new CryptoPayStack(app, 'Watched', {
  env: TEST_ENV,
  config: deployConfig({ BTC_RPC_URL: BTC_PARAMETER, LTC_ESPLORA_URL: 'https://esplora.example/ltc/api', WATCH_INTERVAL_SECONDS: '5', BTC_CONFIRMATIONS: '3' }),
  paymentPageDir: join(tmpdir(), 'crypto-pay-test-no-page'),
  portalDir: join(tmpdir(), 'crypto-pay-test-no-portal'),
});
const template = Template.fromStack(stack);
afterAll(cleanup);

const fnOf = (key: string) => stack.functions.get(key)!;
const props = (key: string) => resourcesOf(template, 'AWS::Lambda::Function')[logicalId(stack, fnOf(key).function)]!.Properties!;
const variables = (key: string) => (props(key).Environment as { Variables: Record<string, unknown> }).Variables;

describe('chain watchers in AWS', () => {
  it('one watch-chain function per chain with a source, reserved to one run at a time, 2-minute timeout', () => {
    expect([...stack.functions.keys()].filter((key) => key.startsWith('watch-chain'))).toEqual([watcherKey('BTC'), watcherKey('LTC')]);
    for (const chain of ['BTC', 'LTC']) {
      expect(props(watcherKey(chain))).toMatchObject({ Timeout: 120, MemorySize: 256, ReservedConcurrentExecutions: 1 });
      expect(variables(watcherKey(chain))).toMatchObject({ WATCH_CHAIN: chain, WATCH_INTERVAL_SECONDS: '5', BTC_CONFIRMATIONS: '3' });
    }
    const invokeConfigs = Object.values(resourcesOf(template, 'AWS::Lambda::EventInvokeConfig')).map((r) => r.Properties);
    expect(invokeConfigs).toHaveLength(2);
    for (const config of invokeConfigs) expect(config).toMatchObject({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 });
  });

  it('starts each watcher every minute', () => {
    for (const chain of ['BTC', 'LTC']) {
      const rule = Object.values(resourcesOf(template, 'AWS::Events::Rule')).find((r) =>
        JSON.stringify(r.Properties?.Targets).includes(logicalId(stack, fnOf(watcherKey(chain)).function)),
      );
      expect(rule?.Properties?.ScheduleExpression).toBe('rate(1 minute)');
    }
  });

  it("tells every function which chains are watched (names only); only BTC's watcher may read its node's URL", () => {
    for (const key of ['checkout-order', 'create-order', watcherKey('LTC')]) {
      expect(variables(key)).toMatchObject({ BTC_RPC_URL_PARAMETER: BTC_PARAMETER, LTC_ESPLORA_URL: 'https://esplora.example/ltc/api' });
    }
    // Every parameter a function may read, but the API token key (the merchant routes' own).
    const parametersOf = (key: string) =>
      statementsOfRole(template, logicalId(stack, fnOf(key).role))
        .filter((statement) => actionsOf(statement).includes('ssm:GetParameter'))
        .flatMap((statement) => JSON.stringify(statement.Resource).match(/:parameter\/[^"]+/g) ?? [])
        .filter((parameter) => parameter !== `:parameter${DEFAULT_TOKEN_KEY_PARAMETER}`);
    const readers = [...stack.functions.keys()].filter((key) => parametersOf(key).length > 0);
    expect(readers).toEqual([watcherKey('BTC')]);
    const statement = statementsOfRole(template, logicalId(stack, fnOf(watcherKey('BTC')).role)).find((s) => actionsOf(s).includes('ssm:GetParameter'))!;
    expect(JSON.stringify(statement.Resource)).toContain(`parameter${BTC_PARAMETER}`);
  });

  it('alarms when a watcher falls behind the tip or goes silent, and on its errors', () => {
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties!);
    const lag = alarms.filter((a) => a.MetricName === 'ChainBlocksBehind');
    expect(lag.map((a) => [(a.Dimensions as { Name: string; Value: string }[]).map((d) => `${d.Name}=${d.Value}`).sort().join(','), a.Threshold])).toEqual([
      ['Chain=BTC,service=crypto-pay-orders', 3],
      ['Chain=LTC,service=crypto-pay-orders', 12],
    ]);
    for (const alarm of lag) {
      expect(alarm).toMatchObject({ Namespace: 'CryptoPayOrders', Statistic: 'Minimum', EvaluationPeriods: 3, TreatMissingData: 'breaching', ComparisonOperator: 'GreaterThanThreshold' });
    }
    const errors = alarms.filter((a) => a.MetricName === 'Errors' && JSON.stringify(a.Dimensions).includes(logicalId(stack, fnOf(watcherKey('BTC')).function)));
    expect(errors).toHaveLength(1);
  });

  it("alarms when a source has a currency that is not ok (UnhealthyCurrencies per Source, the worst of ten in one alarm) for 10 minutes", () => {
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties!);
    const health = alarms.filter((a) => JSON.stringify(a.Metrics ?? []).includes('UnhealthyCurrencies'));
    expect(health).toHaveLength(1);
    const sources = (health[0]!.Metrics as { MetricStat?: { Metric: { Dimensions: { Name: string; Value: string }[] } } }[])
      .flatMap((m) => m.MetricStat?.Metric.Dimensions.filter((d) => d.Name === 'Source').map((d) => d.Value) ?? [])
      .sort();
    expect(sources).toEqual(['BTC', 'LTC']);
    expect(health[0]).toMatchObject({ EvaluationPeriods: 2, Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    expect(health[0]!.AlarmActions).toHaveLength(1);
  });

  it('refuses a node URL given in place of its SSM parameter name, and a plain-http Esplora', () => {
    expect(() => deployConfig({ BTC_RPC_URL: 'http://user:secret@node:8332/' })).toThrow(/btcRpcUrl \(BTC_RPC_URL\) must be an SSM parameter name/);
    expect(() => deployConfig({ BTC_ESPLORA_URL: 'http://esplora.example/api' })).toThrow(/btcEsploraUrl \(BTC_ESPLORA_URL\) must use https/);
  });

  it('passes cdk-nag AwsSolutions with the watchers in', () => {
    const report = new AwsSolutionsChecks(undefined, { verbose: false }).validateScope(app);
    const findings = report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
    expect(findings, findings.join('\n')).toEqual([]);
  });
});

describe('the other networks in AWS', () => {
  const ARBITRUM_PARAMETER = '/crypto-pay/test/arbitrum-rpc';
  const { app: networksApp, cleanup: cleanupNetworks } = testApp({ bundle: false });
  const networks = new CryptoPayStack(networksApp, 'Networks', {
    env: TEST_ENV,
    config: deployConfig({ ARBITRUM_RPC_URL: ARBITRUM_PARAMETER, TRON_API_URL: 'https://api.trongrid.io', SOLANA_RPC_URL: 'https://solana.example/' }),
    paymentPageDir: join(tmpdir(), 'crypto-pay-test-no-page'),
  });
  const networksTemplate = Template.fromStack(networks);
  afterAll(cleanupNetworks);
  const networkVariables = (key: string) =>
    (resourcesOf(networksTemplate, 'AWS::Lambda::Function')[logicalId(networks, networks.functions.get(key)!.function)]!.Properties!.Environment as { Variables: Record<string, unknown> })
      .Variables;

  it('one watch-chain function per EVM network with a node, and one each for TRON and Solana; every function knows they are watched', () => {
    expect([...networks.functions.keys()].filter((key) => key.startsWith('watch-chain'))).toEqual([watcherKey('ARBITRUM'), watcherKey('TRON'), watcherKey('SOLANA')]);
    expect(networkVariables(watcherKey('ARBITRUM'))).toMatchObject({ WATCH_CHAIN: 'ARBITRUM', ARBITRUM_RPC_URL_PARAMETER: ARBITRUM_PARAMETER });
    for (const key of ['checkout-order', watcherKey('TRON')]) {
      expect(networkVariables(key)).toMatchObject({ ARBITRUM_RPC_URL_PARAMETER: ARBITRUM_PARAMETER, TRON_API_URL: 'https://api.trongrid.io/', SOLANA_RPC_URL: 'https://solana.example/' });
    }
    const lag = Object.values(resourcesOf(networksTemplate, 'AWS::CloudWatch::Alarm'))
      .map((a) => a.Properties!)
      .filter((a) => a.MetricName === 'ChainBlocksBehind')
      .map((a) => [(a.Dimensions as { Name: string; Value: string }[]).find((d) => d.Name === 'Chain')!.Value, a.Threshold]);
    expect(lag).toEqual([
      ['ARBITRUM', 7200],
      ['TRON', 0],
      ['SOLANA', 0],
    ]);
  });

  it('refuses a plain-http TRON API and a node URL in place of its parameter name', () => {
    expect(() => deployConfig({ TRON_API_URL: 'http://api.trongrid.io' })).toThrow(/tronApiUrl \(TRON_API_URL\) must use https/);
    expect(() => deployConfig({ BASE_RPC_URL: 'https://base.example/key' })).toThrow(/baseRpcUrl \(BASE_RPC_URL\) must be an SSM parameter name/);
  });
});
