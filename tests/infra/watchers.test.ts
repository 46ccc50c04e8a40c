import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN_KEY_PARAMETER } from '#infra/cdk/config';
import { TICK_FOLDER, WAKE_FOLDER, watcherKey } from '#infra/cdk/constructs/chain-watchers';
import { WATCH_DEMAND_PATTERN } from '#shared/store/watch-demand';
import { CryptoPayStack, functionsGranted } from '#infra/cdk/stack';
import { actionsOf, deployConfig, logicalId, resourcesOf, serviceFunctions, ssmParametersOf, statementsOfRole, TEST_ENV, testApp, variablesOf } from './support.ts';

const BTC_PARAMETER = '/crypto-pay/test/btc-rpc';

const { app, cleanup } = testApp({ bundle: false });
const stack = new CryptoPayStack(app, 'Watched', {
  env: TEST_ENV,
  config: deployConfig({ BTC_RPC_URL: BTC_PARAMETER, LTC_ESPLORA_URL: 'https://esplora.example/ltc/api', WATCH_INTERVAL_SECONDS: '5', BTC_CONFIRMATIONS: '3' }),
  paymentPageDir: join(tmpdir(), 'crypto-pay-test-no-page'),
  portalDir: join(tmpdir(), 'crypto-pay-test-no-portal'),
});
const template = Template.fromStack(stack);
// The watchers are a nested stack: a template of their own, the table and topic passed in as parameters.
const watchers = stack.watchers!;
const watchersTemplate = Template.fromStack(watchers);
const functions = serviceFunctions(stack, template);
afterAll(cleanup);

const fnOf = (key: string) => watchers.functions.get(key)!;
const props = (key: string) => resourcesOf(watchersTemplate, 'AWS::Lambda::Function')[logicalId(watchers, fnOf(key).function)]!.Properties!;
const variables = (key: string) => variablesOf(functions.get(key)!);

describe('chain watchers in AWS', () => {
  it('one watch-chain function per chain with a source (and the waker and the ticker), reserved to two runs (a step of the line and the minute run), 2-minute timeout, BTC with the memory a full block needs', () => {
    expect([...watchers.functions.keys()]).toEqual([watcherKey('BTC'), watcherKey('LTC'), WAKE_FOLDER, TICK_FOLDER]);
    expect([...stack.functions.keys()].filter((key) => key.startsWith('watch-chain'))).toEqual([]);
    for (const [chain, memory] of [
      ['BTC', 512],
      ['LTC', 256],
    ] as const) {
      expect(props(watcherKey(chain))).toMatchObject({ Timeout: 120, MemorySize: memory, ReservedConcurrentExecutions: 2 });
      expect(variables(watcherKey(chain))).toMatchObject({ WATCH_CHAIN: chain, WATCH_INTERVAL_SECONDS: '5', BTC_CONFIRMATIONS: '3' });
    }
    const invokeConfigs = Object.values(resourcesOf(watchersTemplate, 'AWS::Lambda::EventInvokeConfig')).map((r) => r.Properties);
    expect(invokeConfigs).toHaveLength(2);
    for (const config of invokeConfigs) expect(config).toMatchObject({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 });
  });

  it('starts each watcher every minute', () => {
    for (const chain of ['BTC', 'LTC']) {
      const rule = Object.values(resourcesOf(watchersTemplate, 'AWS::Events::Rule')).find((r) => JSON.stringify(r.Properties?.Targets).includes(logicalId(watchers, fnOf(watcherKey(chain)).function)));
      expect(rule?.Properties?.ScheduleExpression).toBe('rate(1 minute)');
    }
  });

  it("tells every function which chains are watched (names only); only BTC's watcher may read its node's URL", () => {
    for (const key of ['checkout-order', 'create-order', watcherKey('LTC')]) {
      expect(variables(key)).toMatchObject({ BTC_RPC_URL_PARAMETER: BTC_PARAMETER, LTC_ESPLORA_URL: 'https://esplora.example/ltc/api' });
    }
    // Every parameter a function may read, but the API token key (the merchant routes' own).
    const parametersOf = (key: string) => ssmParametersOf(functions.get(key)!).filter((parameter) => parameter !== `:parameter${DEFAULT_TOKEN_KEY_PARAMETER}`);
    const readers = [...functions.keys()].filter((key) => parametersOf(key).length > 0);
    // And the refund-txid functions, which check a transaction through the same sources (the chain-sources grant).
    expect(readers.sort()).toEqual([...functionsGranted('chain-sources'), watcherKey('BTC')].sort());
    const statement = statementsOfRole(watchersTemplate, logicalId(watchers, fnOf(watcherKey('BTC')).role)).find((s) => actionsOf(s).includes('ssm:GetParameter'))!;
    expect(JSON.stringify(statement.Resource)).toContain(`parameter${BTC_PARAMETER}`);
  });

  it("alarms once for every source (UnhealthyCurrencies, one series, silence breaching) on the main stack's topic, and not per watcher", () => {
    // Beside wake-watchers' and tick-watchers' errors alarms (their own tests, below).
    const helpers = [watchers.waker, watchers.ticker].map((fn) => logicalId(watchers, fn.function));
    const alarms = Object.values(resourcesOf(watchersTemplate, 'AWS::CloudWatch::Alarm'))
      .map((a) => a.Properties!)
      .filter((a) => !helpers.some((id) => JSON.stringify(a.Dimensions).includes(id)));
    // A failing, silent or lagging watcher makes its source unhealthy: no lag or error alarm per
    // watcher. The other alarm is the one for payments no invoice takes (a block chain's too).
    expect(alarms.map((alarm) => alarm.MetricName).sort()).toEqual(['UnhealthyCurrencies', 'UnmatchedPayments']);
    expect(alarms.find((alarm) => alarm.MetricName === 'UnhealthyCurrencies')).toMatchObject({
      Namespace: 'CryptoPayOrders',
      MetricName: 'UnhealthyCurrencies',
      Dimensions: [{ Name: 'service', Value: 'crypto-pay-orders' }],
      Statistic: 'Minimum',
      Period: 300,
      EvaluationPeriods: 2,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'breaching',
    });
    // Every alarm here notifies the one topic on-call subscribes to: the main stack passes its ARN in.
    const topicParameter = watchers.resolve(stack.alarms.topic.topicArn) as unknown;
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([topicParameter]);
    expect(JSON.stringify(topicParameter)).toMatch(/"Ref":"referenceto\w+AlarmsTopic\w+Ref"/);
    expect(resourcesOf(watchersTemplate, 'AWS::SNS::Topic')).toEqual({});
  });

  it("gets the main stack's table by parameter, and each watcher's role names only that table", () => {
    const nestedStack = Object.entries(resourcesOf(template, 'AWS::CloudFormation::Stack'))
      .filter(([id]) => id === stack.getLogicalId(watchers.nestedStackResource!))
      .map(([, resource]) => resource);
    expect(nestedStack).toHaveLength(1);
    const passed = nestedStack[0]!.Properties!.Parameters as Record<string, unknown>;
    const tableArnParameter = Object.keys(passed).find((name) => JSON.stringify(passed[name]) === JSON.stringify({ 'Fn::GetAtt': [logicalId(stack, stack.table.table), 'Arn'] }));
    expect(tableArnParameter).toBeDefined();
    for (const chain of ['BTC', 'LTC']) {
      const onTable = statementsOfRole(watchersTemplate, logicalId(watchers, fnOf(watcherKey(chain)).role)).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
      expect(onTable.length).toBeGreaterThan(0);
      for (const statement of onTable) {
        // The items, or (a Query only) the indexes, of the main stack's table.
        expect([{ Ref: tableArnParameter }, { 'Fn::Join': ['', [{ Ref: tableArnParameter }, '/index/*']] }]).toContainEqual(statement.Resource);
      }
      expect(variables(watcherKey(chain)).TABLE_NAME).toEqual({ Ref: expect.stringMatching(/^referenceto\w+OrdersTable\w+Ref$/) });
    }
  });

  it('wakes an idle chain: wake-watchers reads the stream filtered to demand writes, bounded retries, from the latest record', () => {
    const waker = logicalId(watchers, watchers.waker.function);
    const mappings = Object.values(resourcesOf(watchersTemplate, 'AWS::Lambda::EventSourceMapping'))
      .map((m) => m.Properties!)
      .filter((m) => JSON.stringify(m.FunctionName).includes(waker));
    expect(mappings).toEqual([
      expect.objectContaining({
        FunctionName: { Ref: waker },
        StartingPosition: 'LATEST',
        BatchSize: 10,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 2,
        MaximumRecordAgeInSeconds: 120,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        // The pattern the local stream poller applies, passed as it is.
        FilterCriteria: { Filters: [{ Pattern: JSON.stringify(WATCH_DEMAND_PATTERN) }] },
      }),
    ]);
    // The stream's ARN comes from the main stack's table, as a parameter.
    expect(JSON.stringify(mappings[0]!.EventSourceArn)).toMatch(/"Ref":"referenceto\w+OrdersTable\w+StreamArn\w*"/);
    expect(variables(WAKE_FOLDER)).toMatchObject({ WATCHER_FUNCTIONS: expect.anything(), TABLE_NAME: { Ref: expect.stringMatching(/^referenceto\w+OrdersTable\w+Ref$/) } });
    // Each watched chain's function name, resolved by CloudFormation into the JSON.
    const names = JSON.stringify(variables(WAKE_FOLDER).WATCHER_FUNCTIONS);
    for (const chain of ['BTC', 'LTC']) expect(names).toContain(logicalId(watchers, fnOf(watcherKey(chain)).function));
    // Its errors alarm, like every function's.
    const errors = Object.values(resourcesOf(watchersTemplate, 'AWS::CloudWatch::Alarm')).filter(
      (a) => a.Properties?.MetricName === 'Errors' && JSON.stringify(a.Properties.Dimensions).includes(waker),
    );
    expect(errors).toHaveLength(1);
  });

  it('steps a chain in demand by the timer queue: each watcher may send to it (and knows its URL), tick-watchers reads it (partial batch failures) and may only invoke the watchers', () => {
    const queues = resourcesOf(watchersTemplate, 'AWS::SQS::Queue');
    expect(Object.keys(queues)).toHaveLength(1);
    const [queueId, queue] = Object.entries(queues)[0]!;
    // A tick older than five minutes is worth nothing: the minute run replaces a lost line.
    expect(queue.Properties).toMatchObject({ MessageRetentionPeriod: 300, VisibilityTimeout: 30, SqsManagedSseEnabled: true });
    const ticker = logicalId(watchers, watchers.ticker.function);
    const mappings = Object.values(resourcesOf(watchersTemplate, 'AWS::Lambda::EventSourceMapping'))
      .map((m) => m.Properties!)
      .filter((m) => JSON.stringify(m.FunctionName).includes(ticker));
    expect(mappings).toEqual([expect.objectContaining({ EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] }, BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] })]);
    for (const chain of ['BTC', 'LTC']) {
      expect(variables(watcherKey(chain)).WATCH_TICK_QUEUE_URL).toEqual({ Ref: queueId });
      const sends = statementsOfRole(watchersTemplate, logicalId(watchers, fnOf(watcherKey(chain)).role)).filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
      expect(sends).toEqual([expect.objectContaining({ Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } })]);
      expect(sends.flatMap(actionsOf).filter((a) => !['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].includes(a))).toEqual([]);
    }
    const statements = statementsOfRole(watchersTemplate, logicalId(watchers, watchers.ticker.role));
    expect(statements.filter((s) => actionsOf(s).includes('lambda:InvokeFunction'))).toEqual([
      expect.objectContaining({ Resource: ['BTC', 'LTC'].map((chain) => ({ 'Fn::GetAtt': [logicalId(watchers, fnOf(watcherKey(chain)).function), 'Arn'] })) }),
    ]);
    expect(statements.flatMap(actionsOf).filter((a) => a.startsWith('dynamodb:') || a.startsWith('ssm:'))).toEqual([]);
    expect(JSON.stringify(variables(TICK_FOLDER).WATCHER_FUNCTIONS)).toContain(logicalId(watchers, fnOf(watcherKey('BTC')).function));
  });

  it('lets wake-watchers invoke exactly the watcher functions, read only the leases of the watched chains, and read its stream; nothing else', () => {
    const statements = statementsOfRole(watchersTemplate, logicalId(watchers, watchers.waker.role));
    const invoke = statements.filter((s) => actionsOf(s).includes('lambda:InvokeFunction'));
    expect(invoke).toEqual([
      expect.objectContaining({
        Action: 'lambda:InvokeFunction',
        Resource: ['BTC', 'LTC'].map((chain) => ({ 'Fn::GetAtt': [logicalId(watchers, fnOf(watcherKey(chain)).function), 'Arn'] })),
      }),
    ]);
    const onTable = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    const reads = onTable.filter((s) => !actionsOf(s).some((a) => (a.startsWith('dynamodb:') && a.includes('Stream')) || a === 'dynamodb:ListStreams'));
    expect(reads).toEqual([
      expect.objectContaining({
        Action: 'dynamodb:GetItem',
        Condition: {
          'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['CHAIN#BTC', 'CHAIN#LTC'], 'dynamodb:Attributes': ['PK', 'SK', 'lease_until'] },
          StringEqualsIfExists: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
        },
      }),
    ]);
    // The rest is the event source's stream read: no write, no Query, no Scan anywhere.
    const actions = onTable.flatMap(actionsOf);
    expect(actions.filter((a) => !['dynamodb:GetItem', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'].includes(a))).toEqual([]);
    expect(statements.flatMap(actionsOf).filter((a) => a.startsWith('sqs:') || a.startsWith('ssm:'))).toEqual([]);
  });

  it('refuses a node URL given in place of its SSM parameter name, and a plain-http Esplora', () => {
    expect(() => deployConfig({ BTC_RPC_URL: 'http://user:secret@node:8332/' })).toThrow(/btcRpcUrl \(BTC_RPC_URL\) must be an SSM parameter name/);
    expect(() => deployConfig({ BTC_ESPLORA_URL: 'http://esplora.example/api' })).toThrow(/btcEsploraUrl \(BTC_ESPLORA_URL\) must use https/);
  });

  it('passes cdk-nag AwsSolutions with the watchers in (both stacks)', () => {
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
  const networkFunctions = serviceFunctions(networks);
  afterAll(cleanupNetworks);
  const networkVariables = (key: string) => variablesOf(networkFunctions.get(key)!);

  it('one watch-chain function per EVM network with a node, and one each for TRON and Solana; every function knows they are watched', () => {
    expect([...networks.watchers!.functions.keys()]).toEqual([watcherKey('ARBITRUM'), watcherKey('TRON'), watcherKey('SOLANA'), WAKE_FOLDER, TICK_FOLDER]);
    expect(networkVariables(watcherKey('ARBITRUM'))).toMatchObject({ WATCH_CHAIN: 'ARBITRUM', ARBITRUM_RPC_URL_PARAMETER: ARBITRUM_PARAMETER });
    for (const key of ['checkout-order', watcherKey('TRON')]) {
      expect(networkVariables(key)).toMatchObject({ ARBITRUM_RPC_URL_PARAMETER: ARBITRUM_PARAMETER, TRON_API_URL: 'https://api.trongrid.io/', SOLANA_RPC_URL: 'https://solana.example/' });
    }
    // One health alarm for all three; TRON and Solana transfers no invoice takes are a buyer's money: the unmatched alarm.
    const alarms = Object.values(resourcesOf(Template.fromStack(networks.watchers!), 'AWS::CloudWatch::Alarm')).map((a) => a.Properties!.MetricName);
    // And wake-watchers' and tick-watchers' errors alarms.
    expect(alarms.sort()).toEqual(['Errors', 'Errors', 'UnhealthyCurrencies', 'UnmatchedPayments']);
  });

  it("TON's key stays in SSM: every function knows its name, only the TON watcher and the refund checks may read it", () => {
    const { app: tonApp, cleanup: cleanupTon } = testApp({ bundle: false });
    try {
      const stack = new CryptoPayStack(tonApp, 'Ton', {
        env: TEST_ENV,
        config: deployConfig({ TON_API_URL: 'https://toncenter.com', TON_API_KEY_PARAMETER: '/crypto-pay/test/toncenter-key' }),
        paymentPageDir: join(tmpdir(), 'crypto-pay-test-no-page'),
      });
      const functions = serviceFunctions(stack);
      const readers = [...functions].filter(([, placed]) => ssmParametersOf(placed).includes(':parameter/crypto-pay/test/toncenter-key')).map(([key]) => key);
      expect(readers.sort()).toEqual([watcherKey('TON'), 'portal-report-refund-txid', 'report-refund-txid'].sort());
      expect(variablesOf(functions.get('checkout-order')!)).toMatchObject({ TON_API_URL: 'https://toncenter.com/', TON_API_KEY_PARAMETER: '/crypto-pay/test/toncenter-key' });
      expect(() => deployConfig({ TON_API_KEY_PARAMETER: '/crypto-pay/test/toncenter-key' })).toThrow(/tonApiKeyParameter .* is set without tonApiUrl/);
      expect(() => deployConfig({ TON_API_URL: 'https://toncenter.com', TON_API_KEY_PARAMETER: 'the-key-itself' })).toThrow(/must be an SSM parameter name/);
    } finally {
      cleanupTon();
    }
  });

  it('refuses a plain-http TRON API and a node URL in place of its parameter name', () => {
    expect(() => deployConfig({ TRON_API_URL: 'http://api.trongrid.io' })).toThrow(/tronApiUrl \(TRON_API_URL\) must use https/);
    expect(() => deployConfig({ BASE_RPC_URL: 'https://base.example/key' })).toThrow(/baseRpcUrl \(BASE_RPC_URL\) must be an SSM parameter name/);
  });
});
