import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, describe, expect, it } from 'vitest';
import { awsRouteKey } from '#infra/cdk/constructs/order-api';
import { constructId } from '#infra/cdk/constructs/service-function';
import { DEFAULT_TOKEN_KEY_PARAMETER } from '#infra/cdk/config';
import { FUNCTION_CALLS } from '#infra/cdk/function-calls.generated';
import { callsOf, QUOTA_SITES, READ_ACTIONS } from '#infra/cdk/permissions';
import { CryptoPayStack, EVENT_FUNCTIONS, functionNeeds, functionsGranted, STREAMED_CONCURRENCY } from '#infra/cdk/stack';
import { ROUTES } from '#shared/http/routes';
import { TABLE_KEYS } from '#shared/store/table';
import { API_TOKEN_PREFIX, QUOTA_PREFIX } from '#shared/store/keys';
import { actionsOf, deployConfig, logicalId, type PolicyStatement, resourcesOf, serviceFunctions, statementsOfRole, TEST_ENV, testApp } from './support.ts';

const ALIPAY_PARAMETER = '/crypto-pay/test/alipay';

// One synthesis for the whole file; bundling is skipped here and proven in bundling.test.ts.
// CloudFormation's validation too, for this configuration (testApp).
const { app, cleanup } = testApp({ bundle: false, validate: true });
const stack = new CryptoPayStack(app, 'Test', {
  env: TEST_ENV,
  config: deployConfig({
    INVOICE_TTL_CRYPTO_SECONDS: '1800',
    ALIPAY_CREDENTIALS_PARAMETER: ALIPAY_PARAMETER,
    ALARM_EMAIL: 'oncall@example.com',
  }),
  paymentPageDir: join(tmpdir(), 'crypto-pay-test-no-page'),
  portalDir: join(tmpdir(), 'crypto-pay-test-no-portal'),
});
const template = Template.fromStack(stack);
afterAll(cleanup);

// What each function may do with the table: its routes' access, write for the event-driven
// ones, nothing for the $default route's not-found function.
const NEEDS = functionNeeds(ROUTES);
const EVENT_FOLDERS: string[] = Object.values(EVENT_FUNCTIONS).map((event) => event.fn);
const ACCESS = new Map([...NEEDS].filter(([, needs]) => needs.route).map(([folder, needs]) => [folder, needs.access]));
/** Route functions that authenticate merchants' API tokens. */
const AUTHENTICATING = new Set([...NEEDS].filter(([, needs]) => needs.authenticates).map(([folder]) => folder));
const GATEWAY_FUNCTIONS = new Set(functionsGranted('gateways'));
// not-found touches nothing; order-events reads only its stream (granted by the event source) and sends to the queue.
const NO_TABLE: string[] = [EVENT_FUNCTIONS.notFound.fn, EVENT_FUNCTIONS.orderEvents.fn];
for (const folder of EVENT_FOLDERS) ACCESS.set(folder, NO_TABLE.includes(folder) ? 'none' : 'write');
const FOLDERS = [...ACCESS.keys()];
/** The functions whose code counts its clients' requests (shared/store/quotas.ts): the API's routes, not the portal's. */
const COUNTS_REQUESTS = new Set(FOLDERS.filter((folder) => callsOf(FUNCTION_CALLS[folder] ?? {}).some((call) => QUOTA_SITES.includes(call.site))));
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:ConditionCheckItem'];

// The routes' functions are in their nested stack (RouteFunctions), the others here.
const PLACED = serviceFunctions(stack, template);
const placedOf = (folder: string) => {
  const placed = PLACED.get(folder);
  if (!placed || !stack.functions.has(folder)) throw new Error(`no function for ${folder}`);
  return placed;
};
const fnOf = (folder: string) => placedOf(folder).fn;
const templateOf = (folder: string) => placedOf(folder).template;
const inRouteStack = (folder: string) => placedOf(folder).stack === stack.routeFunctions;
const functionId = (folder: string) => logicalId(placedOf(folder).stack, fnOf(folder).function);
const roleId = (folder: string) => logicalId(placedOf(folder).stack, fnOf(folder).role);
/** The nested stack's parameters as the main stack passes them: a reference to the table there is `{ Ref: parameter }`. */
const ROUTE_STACK_PARAMETERS = (resourcesOf(template, 'AWS::CloudFormation::Stack')[stack.getLogicalId(stack.routeFunctions.nestedStackResource!)]?.Properties?.Parameters ?? {}) as Record<
  string,
  unknown
>;
/** A value of a function's template with its stack's parameters replaced by what the main stack passes: comparable with the main stack's references. */
const inMainTerms = <T>(folder: string, value: T): T =>
  inRouteStack(folder)
    ? (JSON.parse(JSON.stringify(value), (_key, inner: unknown) => {
        const ref = (inner as { Ref?: unknown } | null)?.Ref;
        return typeof ref === 'string' && Object.keys(inner as object).length === 1 && ref in ROUTE_STACK_PARAMETERS ? ROUTE_STACK_PARAMETERS[ref] : inner;
      }) as T)
    : value;
const statementsOf = (folder: string) => inMainTerms(folder, statementsOfRole(templateOf(folder), roleId(folder)));
/** How the main stack names a function's ARN: its own attribute, or the route functions' stack's output. */
const functionArnInMain = (folder: string): unknown =>
  inRouteStack(folder)
    ? { 'Fn::GetAtt': [stack.getLogicalId(stack.routeFunctions.nestedStackResource!), expect.stringMatching(new RegExp(`^Outputs\\..*RouteFunctions${constructId(folder)}Function[0-9A-F]{8}Arn$`))] }
    : { 'Fn::GetAtt': [functionId(folder), 'Arn'] };
const tableId = logicalId(stack, stack.table.table);
const queueId = logicalId(stack, stack.callbacks.queue);
const dlqId = logicalId(stack, stack.callbacks.deadLetterQueue);
const functionProps = (folder: string) => inMainTerms(folder, resourcesOf(templateOf(folder), 'AWS::Lambda::Function')[functionId(folder)]?.Properties ?? {});
const environmentOf = (folder: string) => (functionProps(folder).Environment as { Variables: Record<string, unknown> }).Variables;

// Streamed routes are served by function URLs behind the portal's CloudFront, not by the HTTP API.
const API_ROUTES = ROUTES.filter((route) => !route.stream);
const STREAMED = ROUTES.filter((route) => route.stream);

describe('HTTP API', () => {
  const routes = resourcesOf(template, 'AWS::ApiGatewayV2::Route');
  const integrations = resourcesOf(template, 'AWS::ApiGatewayV2::Integration');

  it('sends every unknown path and method to the not-found function ($default route)', () => {
    const fallback = Object.values(routes).find((route) => route.Properties?.RouteKey === '$default');
    const target = fallback?.Properties?.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
    expect(integrations[target['Fn::Join'][1][1].Ref]?.Properties?.IntegrationUri).toEqual({
      'Fn::GetAtt': [functionId(EVENT_FUNCTIONS.notFound.fn), 'Arn'],
    });
  });

  it('has one route per route-table entry, each integrated with the function of its folder', () => {
    const byKey = new Map(
      Object.values(routes)
        .filter((route) => route.Properties?.RouteKey !== '$default')
        .map((route) => [route.Properties?.RouteKey as string, route]),
    );
    expect(byKey.size).toBe(new Set(API_ROUTES.map(awsRouteKey)).size);
    for (const entry of API_ROUTES) {
      const route = byKey.get(awsRouteKey(entry));
      expect(route, awsRouteKey(entry)).toBeDefined();
      const target = route?.Properties?.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
      const integration = integrations[target['Fn::Join'][1][1].Ref];
      expect(integration?.Properties?.IntegrationUri).toEqual(functionArnInMain(entry.fn));
      expect(integration?.Properties?.PayloadFormatVersion).toBe('2.0');
    }
  });

  it('serves the trailing-slash spelling of a path through the route without it', () => {
    const slashed = ROUTES.filter((route) => route.path.length > 1 && route.path.endsWith('/'));
    expect(slashed.length).toBeGreaterThan(0);
    for (const route of slashed) expect(awsRouteKey(route)).toBe(`${route.method} ${route.path.replace(/\/+$/, '')}`);
  });

  it('throttles the stage and every route, write routes tighter than reads, the public page routes at half', () => {
    const stage = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Stage'));
    expect(stage).toHaveLength(1);
    const properties = stage[0]?.Properties ?? {};
    expect(properties.StageName).toBe('$default');
    expect(properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 });
    const settings = properties.RouteSettings as Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
    for (const entry of API_ROUTES) {
      const expected = (entry.access === 'write' ? [200, 400] : [500, 1000]).map((limit) => (entry.public ? limit / 2 : limit));
      const setting = settings[awsRouteKey(entry)];
      expect([setting?.ThrottlingRateLimit, setting?.ThrottlingBurstLimit], awsRouteKey(entry)).toEqual(expected);
    }
  });

  it('writes JSON access logs without request headers', () => {
    const stage = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Stage'))[0]?.Properties ?? {};
    const settings = stage.AccessLogSettings as { DestinationArn: unknown; Format: string };
    expect(settings.DestinationArn).toEqual({ 'Fn::GetAtt': [logicalId(stack, stack.api.accessLogs), 'Arn'] });
    const format = JSON.parse(settings.Format) as Record<string, string>;
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status', routeKey: '$context.routeKey' });
    expect(settings.Format).not.toMatch(/requestHeader|token/i);
  });

  it('allows only the payment page origin for CORS', () => {
    const cors = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Api'))[0]?.Properties?.CorsConfiguration as {
      AllowOrigins: unknown[];
    };
    expect(cors.AllowOrigins).toEqual([{ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalId(stack, stack.paymentPage.distribution), 'DomainName'] }]] }]);
  });
});

describe('functions', () => {
  it('are exactly the route-table folders plus the event-driven ones', () => {
    expect([...stack.functions.keys()].sort()).toEqual([...FOLDERS].sort());
  });

  it("puts the functions behind the HTTP API in the route functions' nested stack, the others here", () => {
    for (const folder of FOLDERS) {
      // The renewal function stands beside its queues in the nested stack too (infra/cdk/stack.ts).
      const nested = API_ROUTES.some((route) => route.fn === folder) || folder === EVENT_FUNCTIONS.renewSubscriptions.fn;
      expect(inRouteStack(folder), folder).toBe(nested);
    }
    const routeTemplate = Template.fromStack(stack.routeFunctions);
    expect(Object.keys(resourcesOf(template, 'AWS::Lambda::Function')).length + Object.keys(resourcesOf(routeTemplate, 'AWS::Lambda::Function')).length).toBe(FOLDERS.length);
    for (const folder of FOLDERS) expect(fnOf(folder).tableAccess, folder).toBe(ACCESS.get(folder));
  });

  it.each(FOLDERS)('%s: Node.js 22 on arm64, 512 MB, JSON logs into its own log group with retention', (folder) => {
    const fn = functionProps(folder);
    expect(fn.Runtime).toBe('nodejs22.x');
    expect(fn.Architectures).toEqual(['arm64']);
    expect(fn.MemorySize).toBe(512);
    expect(fn.Handler).toBe('index.handler');
    expect(fn.LoggingConfig).toEqual({
      LogFormat: 'JSON',
      ApplicationLogLevel: 'INFO',
      SystemLogLevel: 'WARN',
      LogGroup: { Ref: logicalId(placedOf(folder).stack, fnOf(folder).logGroup) },
    });
    expect(resourcesOf(templateOf(folder), 'AWS::Logs::LogGroup')[logicalId(placedOf(folder).stack, fnOf(folder).logGroup)]?.Properties).toEqual({
      RetentionInDays: 30,
    });
  });

  it('not-found has no table access and no table name', () => {
    expect(environmentOf(EVENT_FUNCTIONS.notFound.fn)).not.toHaveProperty('TABLE_NAME');
    const actions = statementsOf(EVENT_FUNCTIONS.notFound.fn).flatMap(actionsOf);
    expect(actions.filter((action) => action.startsWith('dynamodb:'))).toEqual([]);
  });

  it.each(FOLDERS.filter((folder) => ACCESS.get(folder) !== 'none'))('%s: gets the table, the page URL and the Powertools settings', (folder) => {
    expect(environmentOf(folder)).toMatchObject({
      TABLE_NAME: { Ref: tableId },
      PAYMENT_PAGE_URL: {
        'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalId(stack, stack.paymentPage.distribution), 'DomainName'] }, '/']],
      },
      POWERTOOLS_SERVICE_NAME: 'crypto-pay-orders',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      CALLBACK_QUEUE_URL: { Ref: queueId },
      INVOICE_TTL_CRYPTO_SECONDS: '1800',
    });
    // The local-only SSRF allowance never reaches AWS.
    expect(environmentOf(folder)).not.toHaveProperty('CALLBACK_ALLOW_LOOPBACK');
    // Unset settings are left to the handlers' documented defaults.
    expect(environmentOf(folder)).not.toHaveProperty('INVOICE_TTL_GATEWAY_SECONDS');
  });

  it.each([
    [EVENT_FUNCTIONS.expireOrders.fn, 'rate(1 minute)'],
    [EVENT_FUNCTIONS.sweepCallbacks.fn, 'rate(5 minutes)'],
  ])('runs %s on schedule %s, without retries', (folder, schedule) => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: schedule,
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId(folder), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
  });

  it('feeds order-events from the table stream: partial failures, bisection, bounded retries, failure queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId(EVENT_FUNCTIONS.orderEvents.fn) },
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(stack, stack.callbacks.streamFailureQueue!), 'Arn'] } } },
    });
  });

  it('feeds deliver-callback from the callback queue with partial batch failures, and names the DLQ', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId(EVENT_FUNCTIONS.deliverCallback.fn) },
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(environmentOf(EVENT_FUNCTIONS.deliverCallback.fn).CALLBACK_DLQ_URL).toEqual({ Ref: dlqId });
    expect(Object.keys(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'))).toHaveLength(2);
  });
});

describe('least privilege', () => {
  const allStatements: PolicyStatement[] = [
    ...FOLDERS.flatMap(statementsOf),
    ...Object.values(resourcesOf(template, 'AWS::IAM::Policy')).flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: PolicyStatement[] }).Statement),
  ];

  it('grants no wildcard action anywhere', () => {
    expect(allStatements.length).toBeGreaterThan(FOLDERS.length);
    expect(allStatements.flatMap(actionsOf).filter((action) => action.includes('*'))).toEqual([]);
  });

  it('scopes table actions to the table and its indexes, stream reading to order-events', () => {
    const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const streamArn = { 'Fn::GetAtt': [tableId, 'StreamArn'] };
    for (const statement of allStatements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')))) {
      if (JSON.stringify(statement.Resource) === JSON.stringify(streamArn)) continue;
      // Item actions on the table alone (the quota counters' UpdateItem of read-only roles
      // conditioned to their keys); only a Query on the indexes (tests/infra/permissions.test.ts
      // proves each is one the function's code makes).
      if (statement.Condition || JSON.stringify(statement.Resource) === JSON.stringify(tableArn)) expect(statement.Resource).toEqual(tableArn);
      else {
        expect(statement.Resource).toEqual({ 'Fn::Join': ['', [tableArn, '/index/*']] });
        expect(statement.Action).toBe('dynamodb:Query');
      }
    }
    for (const folder of FOLDERS) {
      const onStream = statementsOf(folder).filter((s) => JSON.stringify(s.Resource) === JSON.stringify(streamArn));
      if (folder !== EVENT_FUNCTIONS.orderEvents.fn) expect(onStream, folder).toEqual([]);
      else {
        expect(onStream.flatMap(actionsOf).sort()).toEqual(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams']);
      }
    }
  });

  it('lets only the functions that queue deliveries send to the callback queue, and only deliver-callback consume it', () => {
    // deliver-callback queues the next attempt of a failed delivery itself.
    expect(functionsGranted('callback-queue').sort()).toEqual(['portal-resend-callback', 'redeliver-callback', EVENT_FUNCTIONS.sweepCallbacks.fn].sort());
    const senders = new Set([...functionsGranted('callback-queue'), EVENT_FUNCTIONS.orderEvents.fn, EVENT_FUNCTIONS.deliverCallback.fn]);
    for (const folder of FOLDERS) {
      const onQueue = statementsOf(folder)
        .filter((s) => JSON.stringify(s.Resource).includes(`"${queueId}"`))
        .flatMap(actionsOf);
      expect(onQueue.includes('sqs:SendMessage'), `${folder} sends`).toBe(senders.has(folder));
      expect(onQueue.includes('sqs:ReceiveMessage'), `${folder} receives`).toBe(folder === EVENT_FUNCTIONS.deliverCallback.fn);
      const onDlq = statementsOf(folder)
        .filter((s) => JSON.stringify(s.Resource).includes(`"${dlqId}"`))
        .flatMap(actionsOf);
      expect(onDlq, folder).toEqual(folder === EVENT_FUNCTIONS.deliverCallback.fn ? ['sqs:SendMessage'] : []);
    }
  });

  it("counts requests in the API's functions (their quota counters' grant is needed), not in the portal's", () => {
    expect(COUNTS_REQUESTS.has('get-order')).toBe(true);
    expect(COUNTS_REQUESTS.has('pay-get-order')).toBe(true);
    expect(COUNTS_REQUESTS.has('portal-list-orders')).toBe(false);
  });

  it.each(FOLDERS.filter((folder) => ACCESS.get(folder) === 'read'))("%s (read-only) cannot write the table, but for its request quota counters and its tokens' last use", (folder) => {
    const statements = statementsOf(folder);
    const onTable = statements.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));
    expect(onTable.length, folder).toBeGreaterThan(0);
    expect(
      onTable.filter((action) => !READ_ACTIONS.includes(action) && !WRITE_ACTIONS.includes(action)),
      folder,
    ).toEqual([]);
    const writes = statements.filter((s) => actionsOf(s).some((action) => WRITE_ACTIONS.includes(action)));
    // The two writes: UpdateItem on the table, only on items whose partition key is a quota's
    // (where the function counts requests: the portal's do not), and on API token items, only
    // their last_used_at (a token cannot be made or moved).
    expect(writes).toEqual([
      ...(COUNTS_REQUESTS.has(folder)
        ? [
            expect.objectContaining({
              Action: 'dynamodb:UpdateItem',
              Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
              Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${QUOTA_PREFIX}*`] } },
            }),
          ]
        : []),
      ...(AUTHENTICATING.has(folder)
        ? [
            expect.objectContaining({
              Action: 'dynamodb:UpdateItem',
              Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
              Condition: {
                'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${API_TOKEN_PREFIX}*`] },
                'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['PK', 'SK', 'last_used_at'] },
              },
            }),
          ]
        : []),
    ]);
  });

  it('list-orders reads a deep page (numbers, then the orders at once) with read grants only; expire-orders, the numbering run, writes numbers in transactions', () => {
    const onTable = (folder: string) =>
      statementsOf(folder)
        .filter((s) => JSON.stringify(s.Resource).includes(`"${tableId}"`))
        .filter((s) => !('Condition' in s));
    const listing = onTable('list-orders');
    expect(listing.flatMap(actionsOf)).toEqual(expect.arrayContaining(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']));
    expect(listing.flatMap(actionsOf).filter((action) => WRITE_ACTIONS.includes(action))).toEqual([]);
    // The indexes (GSI1 for the count of the newest orders) are covered by the same statement.
    expect(JSON.stringify(listing.map((s) => s.Resource))).toContain('/index/*');
    // A transaction is authorised per action: its Puts need PutItem.
    expect(onTable(EVENT_FUNCTIONS.expireOrders.fn).flatMap(actionsOf)).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:GetItem']));
  });

  it.each(FOLDERS.filter((folder) => ACCESS.get(folder) === 'none'))('%s has no access to the table items', (folder) => {
    const tableArn = JSON.stringify({ 'Fn::GetAtt': [tableId, 'Arn'] });
    const onTable = statementsOf(folder).filter((s) => JSON.stringify(s.Resource).includes(tableArn));
    expect(onTable).toEqual([]);
  });

  it.each(FOLDERS.filter((folder) => ACCESS.get(folder) === 'write'))('%s (writer) can write the table as its code does', (folder) => {
    // The writes its code makes, and only those (tests/infra/permissions.test.ts).
    const actions = statementsOf(folder).flatMap(actionsOf);
    expect(actions.filter((action) => WRITE_ACTIONS.includes(action)).length, folder).toBeGreaterThan(0);
  });

  it.each(FOLDERS)('%s writes only to its own log group, with no managed policy', (folder) => {
    const logStatements = statementsOf(folder).filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));
    expect(logStatements).toEqual([
      expect.objectContaining({
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [logicalId(placedOf(folder).stack, fnOf(folder).logGroup), 'Arn'] },
      }),
    ]);
    expect(resourcesOf(templateOf(folder), 'AWS::IAM::Role')[roleId(folder)]?.Properties?.ManagedPolicyArns).toBeUndefined();
  });

  /** The SSM statements of a function's role naming this parameter. */
  const ssmReading = (folder: string, parameter: string) =>
    statementsOf(folder).filter((s) => actionsOf(s).some((a) => a.startsWith('ssm:')) && JSON.stringify(s.Resource).includes(`:parameter${parameter}"`));

  it('lets only the functions that call a gateway read its credential parameters, by name, and tells them the API URL', () => {
    for (const folder of GATEWAY_FUNCTIONS) {
      expect(ACCESS.has(folder) || EVENT_FOLDERS.includes(folder as never), `${folder} is not a function folder`).toBe(true);
    }
    expect([...GATEWAY_FUNCTIONS].sort()).toEqual(
      [
        'create-order',
        'checkout-order',
        'pay-checkout-order',
        'pay-create-link-order',
        'refund-order',
        'portal-refund-order',
        'expire-orders',
        'alipay-notify',
        'aliglobal-notify',
        'wechat-notify',
      ].sort(),
    );
    for (const folder of [...FOLDERS, ...EVENT_FOLDERS]) {
      const ssm = ssmReading(folder, ALIPAY_PARAMETER);
      if (GATEWAY_FUNCTIONS.has(folder)) {
        expect(ssm).toHaveLength(1);
        expect(actionsOf(ssm[0]!)).toContain('ssm:GetParameter');
        expect(environmentOf(folder).ALIPAY_CREDENTIALS_PARAMETER).toBe(ALIPAY_PARAMETER);
        expect(environmentOf(folder).LIVE_GATEWAYS).toBe('ALIPAY');
        expect(JSON.stringify(environmentOf(folder).PUBLIC_API_URL)).toContain('execute-api');
      } else {
        expect(ssm, folder).toEqual([]);
        expect(environmentOf(folder)).not.toHaveProperty('ALIPAY_CREDENTIALS_PARAMETER');
        // The page's functions learn which gateways have credentials, not where they are.
        expect(environmentOf(folder).LIVE_GATEWAYS, folder).toBe('ALIPAY');
      }
    }
  });

  it('gives every function that reads an SSM parameter the Parameters and Secrets extension (arm64), and no other function', () => {
    for (const folder of [...FOLDERS, ...EVENT_FOLDERS]) {
      const reads = statementsOf(folder).some((s) => actionsOf(s).includes('ssm:GetParameter'));
      const layers = JSON.stringify(functionProps(folder).Layers ?? []);
      if (reads) {
        expect(layers, folder).toMatch(/:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\d+/);
        expect(environmentOf(folder).PARAMETERS_SECRETS_EXTENSION_HTTP_PORT, folder).toBe('2773');
      } else {
        expect(layers, folder).not.toContain('Parameters-and-Secrets');
        expect(environmentOf(folder), folder).not.toHaveProperty('PARAMETERS_SECRETS_EXTENSION_HTTP_PORT');
      }
    }
  });

  it('lets only the functions that authenticate merchants (and the portal one that makes tokens) read the API token key, and nothing else from SSM', () => {
    const authenticating = new Set(functionsGranted('token-key'));
    // The portal's functions that declare it: making tokens, and the refund links' secrets.
    const declaring = ROUTES.filter((route) => route.grants?.includes('token-key')).map((route) => route.fn);
    expect(declaring).toContain('portal-create-token');
    expect([...authenticating].sort()).toEqual([...new Set([...AUTHENTICATING, ...declaring])].sort());
    expect([...authenticating]).toEqual(expect.arrayContaining(['create-order', 'get-order', 'list-orders', 'redeliver-callback']));
    expect(authenticating.has('pay-get-order')).toBe(false);
    expect(authenticating.has('alipay-notify')).toBe(false);
    for (const folder of [...FOLDERS, ...EVENT_FOLDERS]) {
      const ssm = ssmReading(folder, DEFAULT_TOKEN_KEY_PARAMETER);
      const parameters = statementsOf(folder)
        .filter((s) => actionsOf(s).some((a) => a.startsWith('ssm:')))
        .flatMap((s) => JSON.stringify(s.Resource).match(/:parameter\/[^"]+/g) ?? []);
      const expected = [...(authenticating.has(folder) ? [`:parameter${DEFAULT_TOKEN_KEY_PARAMETER}`] : []), ...(GATEWAY_FUNCTIONS.has(folder) ? [`:parameter${ALIPAY_PARAMETER}`] : [])];
      expect(parameters.sort(), folder).toEqual(expected.sort());
      if (authenticating.has(folder)) {
        expect(ssm, folder).toHaveLength(1);
        expect(actionsOf(ssm[0]!)).toContain('ssm:GetParameter');
        expect(environmentOf(folder).TOKEN_HMAC_KEY_PARAMETER).toBe(DEFAULT_TOKEN_KEY_PARAMETER);
      } else {
        expect(ssm, folder).toEqual([]);
        expect(environmentOf(folder)).not.toHaveProperty('TOKEN_HMAC_KEY_PARAMETER');
      }
    }
  });
});

describe('table', () => {
  const key = (name: string, type: 'HASH' | 'RANGE') => ({ AttributeName: name, KeyType: type });

  it('is keyed and indexed as TABLE_KEYS says, with TTL', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [key(TABLE_KEYS.partitionKey, 'HASH'), key(TABLE_KEYS.sortKey, 'RANGE')],
      GlobalSecondaryIndexes: TABLE_KEYS.indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [key(index.partitionKey, 'HASH'), key(index.sortKey, 'RANGE')],
        Projection: { ProjectionType: index.projection },
      })),
      TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttlAttribute, Enabled: true },
    });
  });

  it("projects whole orders into the list indexes and only keys into the sweepers' index and the order log", () => {
    expect(Object.fromEntries(TABLE_KEYS.indexes.map((index) => [index.name, index.projection]))).toEqual({
      GSI1: 'ALL',
      GSI2: 'ALL',
      GSI3: 'KEYS_ONLY',
      GSI4: 'KEYS_ONLY',
    });
  });

  it('is on-demand, streams old and new images, is encrypted, recoverable and protected', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
        Replicas: [
          Match.objectLike({
            Region: TEST_ENV.region,
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      }),
    });
  });
});

describe('callback queues', () => {
  it('dead-letters a job after 15 receives, with room for six delivery timeouts', () => {
    const deliveryTimeout = functionProps(EVENT_FUNCTIONS.deliverCallback.fn).Timeout as number;
    expect(deliveryTimeout).toBe(15);
    expect(resourcesOf(template, 'AWS::SQS::Queue')[queueId]?.Properties).toMatchObject({
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 15 },
      VisibilityTimeout: 6 * deliveryTimeout,
    });
  });

  it.each([
    ['queue', queueId],
    ['dead-letter queue', dlqId],
  ])('%s: SQS-managed encryption, 14 days retention, TLS only', (_, id) => {
    expect(resourcesOf(template, 'AWS::SQS::Queue')[id]?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: id }],
      PolicyDocument: {
        Statement: [Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })],
      },
    });
  });
});

describe('payment page', () => {
  const bucketId = logicalId(stack, stack.paymentPage.bucket);

  it('keeps its bucket private, encrypted, versioned, logged and retained', () => {
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        VersioningConfiguration: { Status: 'Enabled' },
        LoggingConfiguration: Match.objectLike({ DestinationBucketName: { Ref: logicalId(stack, stack.paymentPage.logsBucket) } }),
      }),
    });
    expect(resourcesOf(template, 'AWS::S3::Bucket')[bucketId]).toBeDefined();
  });

  it('is read by CloudFront through origin access control only, over HTTPS', () => {
    // One per distribution: the payment page's is under PaymentPage (the portal has its own).
    const oac = Object.keys(resourcesOf(template, 'AWS::CloudFront::OriginAccessControl')).filter((id) => id.startsWith('PaymentPage'));
    expect(oac).toHaveLength(1);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: 'index.html',
        DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: 'redirect-to-https' }),
        Origins: [
          Match.objectLike({
            OriginAccessControlId: { 'Fn::GetAtt': [oac[0], 'Id'] },
            S3OriginConfig: { OriginAccessIdentity: '' },
          }),
        ],
      }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Action: 's3:GetObject',
            Condition: { StringEquals: { 'AWS:SourceArn': Match.anyValue() } },
          }),
        ]),
      },
    });
  });

  it('sends the security headers', () => {
    const policy = Object.values(resourcesOf(template, 'AWS::CloudFront::ResponseHeadersPolicy'))[0];
    const headers = (policy?.Properties?.ResponseHeadersPolicyConfig as { SecurityHeadersConfig: Record<string, Record<string, unknown>> }).SecurityHeadersConfig;
    expect(headers.StrictTransportSecurity).toMatchObject({ AccessControlMaxAgeSec: 730 * 86_400, IncludeSubdomains: true });
    expect(headers.ContentTypeOptions).toEqual({ Override: true });
    expect(headers.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(headers.ReferrerPolicy).toEqual({ ReferrerPolicy: 'strict-origin-when-cross-origin', Override: true });
    const csp = JSON.stringify(headers.ContentSecurityPolicy);
    for (const directive of ["default-src 'none'", "frame-ancestors 'none'", "script-src 'self'", 'connect-src']) {
      expect(csp).toContain(directive);
    }
  });

  it('deploys no content when the built page is missing, and says so', () => {
    expect(resourcesOf(template, 'Custom::CDKBucketDeployment')).toEqual({});
    expect(stack.paymentPage.contentDeployed).toBe(false);
    template.hasOutput('PaymentPageContent', { Value: Match.stringLikeRegexp('^NOT deployed') });
    Annotations.fromStack(stack).hasWarning('/Test/PaymentPage', Match.stringLikeRegexp('No built payment page'));
  });
});

describe('alarms', () => {
  const topic = { Ref: logicalId(stack, stack.alarms.topic) };

  it('fires when the callback dead-letter queue holds any message', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack, stack.callbacks.deadLetterQueue), 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      AlarmActions: [topic],
    });
  });

  it('fires when stream records fail for good, and when order-events falls behind the stream', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack, stack.callbacks.streamFailureQueue!), 'QueueName'] } }],
      Threshold: 0,
      AlarmActions: [topic],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(EVENT_FUNCTIONS.orderEvents.fn) } }],
      AlarmActions: [topic],
    });
  });

  // The event-driven functions, and the streamed routes (their function URL is not behind the API).
  const EVENT_DRIVEN = [
    EVENT_FUNCTIONS.expireOrders.fn,
    EVENT_FUNCTIONS.sweepCallbacks.fn,
    EVENT_FUNCTIONS.orderEvents.fn,
    EVENT_FUNCTIONS.deliverCallback.fn,
    ...ROUTES.filter((route) => route.stream).map((route) => route.fn),
  ];
  const errorAlarmsOf = (folder: string) =>
    Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).filter(
      (alarm) => alarm.Properties?.MetricName === 'Errors' && JSON.stringify(alarm.Properties?.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: { Ref: functionId(folder) } }]),
    );

  it.each(EVENT_DRIVEN)('fires on any error of the event-driven %s', (folder) => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(folder) } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      AlarmActions: [topic],
    });
  });

  it('fires on any 5xx of the HTTP API, which answers for every route function (one alarm, not one per function)', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Dimensions: [{ Name: 'ApiId', Value: { Ref: logicalId(stack, stack.api.api as unknown as { node: { defaultChild?: unknown } }) } }],
      Statistic: 'Sum',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      AlarmActions: [topic],
    });
    for (const folder of FOLDERS.filter((candidate) => !EVENT_DRIVEN.includes(candidate as (typeof EVENT_DRIVEN)[number]))) {
      expect(errorAlarmsOf(folder), folder).toHaveLength(0);
    }
  });

  it('keeps the alarms few: CloudWatch bills each one a month, idle or not', () => {
    // The callback DLQ, stream failures, stream lag, the API's 5xx, the four event-driven functions, the two streamed
    // exports, and the renewals' dead letters and their function's errors (that function is in the nested stack).
    expect(Object.keys(resourcesOf(template, 'AWS::CloudWatch::Alarm'))).toHaveLength(12);
  });

  it('notifies a TLS-only topic with the configured subscriber (no KMS key of its own: $1 a month for alarm names)', () => {
    expect(resourcesOf(template, 'AWS::KMS::Key')).toEqual({});
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com', TopicArn: topic });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: [Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })] },
    });
  });
});

it('outputs what operators and the merchant CLI need', () => {
  for (const name of ['ApiUrl', 'PaymentPageUrl', 'TableName', 'CallbackQueueUrl']) template.hasOutput(name, {});
  template.hasOutput('TableName', { Value: { Ref: tableId } });
  template.hasOutput('CallbackQueueUrl', { Value: { Ref: queueId } });
});

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing unacknowledged in the stack', () => {
    const report = new AwsSolutionsChecks(undefined, { verbose: false }).validateScope(app);
    const findings = report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
    expect(findings, findings.join('\n')).toEqual([]);
  });

  it('does find a violation in a stack built to have one (the check can fail)', () => {
    const { app: other, cleanup: done } = testApp({ bundle: false });
    new Queue(new Stack(other, 'Bad'), 'Plain', { encryption: undefined, enforceSSL: false });
    const report = new AwsSolutionsChecks(undefined).validateScope(other);
    done();
    expect(report.violations.map((v) => v.ruleName)).toEqual(expect.arrayContaining(['AwsSolutions-SQS3', 'AwsSolutions-SQS4']));
  });

  it('carries a written reason on every acknowledgement', () => {
    const reasons: [string, string][] = [];
    const visit = (construct: IConstruct) => {
      for (const entry of construct.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [rule, reason] of Object.entries(entry.data as Record<string, string>)) reasons.push([rule, reason]);
      }
      construct.node.children.forEach(visit);
    };
    visit(stack);
    expect(reasons.length).toBeGreaterThan(0);
    for (const [rule, reason] of reasons) expect(reason.length, rule).toBeGreaterThanOrEqual(60);
  });
});

describe('merchant portal', () => {
  it('serves its files and its API on one CloudFront origin: /v1/portal/* to the HTTP API, uncached, cookies forwarded', () => {
    const distributions = Object.values(resourcesOf(template, 'AWS::CloudFront::Distribution'));
    const portal = distributions.find((resource) => JSON.stringify(resource.Properties).includes('/v1/portal/*'));
    expect(portal).toBeDefined();
    const config = (portal!.Properties as { DistributionConfig: { CacheBehaviors: { PathPattern: string; AllowedMethods: string[]; ViewerProtocolPolicy: string; CachePolicyId: string }[] } })
      .DistributionConfig;
    const api = config.CacheBehaviors.find((behavior) => behavior.PathPattern === '/v1/portal/*')!;
    expect(api.AllowedMethods).toContain('POST');
    expect(api.ViewerProtocolPolicy).toBe('https-only');
    // CachePolicy.CACHING_DISABLED
    expect(api.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    template.hasResourceProperties('AWS::CloudFront::OriginRequestPolicy', {
      OriginRequestPolicyConfig: Match.objectLike({ CookiesConfig: { CookieBehavior: 'all' } }),
    });
  });

  it("adds a generated secret to every portal API request at CloudFront (the streamed export's function URL too), and gives the same secret to every portal function (which refuses requests without it)", () => {
    const secrets = Object.entries(resourcesOf(template, 'AWS::SecretsManager::Secret')).filter(([, resource]) => JSON.stringify(resource.Properties).includes('x-origin-verify'));
    expect(secrets).toHaveLength(1);
    const [secretId, secret] = secrets[0]!;
    expect((secret.Properties as { GenerateSecretString?: { PasswordLength?: number } }).GenerateSecretString?.PasswordLength).toBeGreaterThanOrEqual(32);
    const distributions = Object.values(resourcesOf(template, 'AWS::CloudFront::Distribution'));
    const portal = distributions.find((resource) => JSON.stringify(resource.Properties).includes('/v1/portal/*'))!;
    type Origin = { OriginCustomHeaders?: { HeaderName: string; HeaderValue: unknown }[]; CustomOriginConfig?: unknown };
    const origins = (portal.Properties as { DistributionConfig: { Origins: Origin[] } }).DistributionConfig.Origins;
    const functionOrigins = origins.filter((origin) => origin.CustomOriginConfig !== undefined);
    // The HTTP API and each streamed route's function URL.
    expect(functionOrigins).toHaveLength(1 + ROUTES.filter((route) => route.stream).length);
    const headers = functionOrigins.map((origin) => origin.OriginCustomHeaders?.find((entry) => entry.HeaderName === 'x-origin-verify'));
    for (const other of headers) expect(other?.HeaderValue).toEqual(headers[0]!.HeaderValue);
    const header = headers[0];
    // A dynamic reference to the generated secret (resolved by CloudFormation): never a literal in the template.
    expect(JSON.stringify(header?.HeaderValue)).toContain('resolve:secretsmanager');
    expect(JSON.stringify(header?.HeaderValue)).toContain(secretId);
    for (const route of ROUTES.filter((entry) => entry.portal)) {
      expect(environmentOf(route.fn).PORTAL_ORIGIN_SECRET, route.fn).toEqual(header!.HeaderValue);
    }
    // The API's own functions never get it.
    expect(environmentOf('get-order').PORTAL_ORIGIN_SECRET).toBeUndefined();
  });

  it("gives every portal function the portal's origin (WebAuthn origin, CSRF check) and the API token key only to those that make tokens or show refund links", () => {
    for (const route of ROUTES.filter((entry) => entry.portal)) {
      const variables = environmentOf(route.fn);
      expect(variables.PORTAL_ORIGIN, route.fn).toBeDefined();
      if (functionsGranted('token-key').includes(route.fn)) expect(variables.TOKEN_HMAC_KEY_PARAMETER, route.fn).toBeDefined();
      else expect(variables.TOKEN_HMAC_KEY_PARAMETER, route.fn).toBeUndefined();
    }
    expect(environmentOf('portal-list-team').TOKEN_HMAC_KEY_PARAMETER).toBeUndefined();
  });
});

describe("the streamed export (a function URL behind the portal's CloudFront)", () => {
  type Behavior = { PathPattern: string; TargetOriginId: string; AllowedMethods: string[]; ViewerProtocolPolicy: string; CachePolicyId: string; OriginRequestPolicyId: unknown };
  type Origin = { Id: string; DomainName: unknown; OriginAccessControlId?: unknown; CustomOriginConfig?: { OriginProtocolPolicy: string; OriginReadTimeout?: number } };
  const distributions = Object.entries(resourcesOf(template, 'AWS::CloudFront::Distribution'));
  const [portalId, portal] = distributions.find(([, resource]) => JSON.stringify(resource.Properties).includes('/v1/portal/*'))!;
  const config = (portal.Properties as { DistributionConfig: { CacheBehaviors: Behavior[]; Origins: Origin[] } }).DistributionConfig;
  const urls = resourcesOf(template, 'AWS::Lambda::Url');

  it('is a GET route of the portal, in the route table with stream: true', () => {
    expect(STREAMED.map((route) => `${route.method} ${route.path}`)).toEqual(['GET /v1/portal/orders/export', 'GET /v1/portal/subscriptions/export']);
    expect(STREAMED.every((route) => route.portal && route.access === 'read')).toBe(true);
  });

  it.each(STREAMED)('$path: its function has a URL in RESPONSE_STREAM mode that needs IAM (only CloudFront can sign)', (route) => {
    const mine = Object.values(urls).filter((url) => JSON.stringify(url.Properties?.TargetFunctionArn) === JSON.stringify({ 'Fn::GetAtt': [functionId(route.fn), 'Arn'] }));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.Properties).toMatchObject({ AuthType: 'AWS_IAM', InvokeMode: 'RESPONSE_STREAM' });
    // No function URL of the stack is open to anyone.
    for (const url of Object.values(urls)) expect(url.Properties?.AuthType).toBe('AWS_IAM');
  });

  it.each(STREAMED)('$path: is not an HTTP API route (that would buffer it); the path there gets the $default 404', (route) => {
    const keys = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map((entry) => entry.Properties?.RouteKey);
    expect(keys).not.toContain(awsRouteKey(route));
  });

  it.each(STREAMED)('$path: a CloudFront behavior before /v1/portal/*, to the function URL with origin access control, uncached, forwarding what the portal API gets', (route) => {
    const paths = config.CacheBehaviors.map((behavior) => behavior.PathPattern);
    expect(paths.indexOf(route.path)).toBeGreaterThanOrEqual(0);
    expect(paths.indexOf(route.path)).toBeLessThan(paths.indexOf('/v1/portal/*'));
    const behavior = config.CacheBehaviors.find((entry) => entry.PathPattern === route.path)!;
    expect(behavior.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(behavior.ViewerProtocolPolicy).toBe('https-only');
    expect(behavior.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    // The same origin request policy as the portal API's behavior: cookies, query, Origin, CSRF, viewer address.
    const api = config.CacheBehaviors.find((entry) => entry.PathPattern === '/v1/portal/*')!;
    expect(behavior.OriginRequestPolicyId).toEqual(api.OriginRequestPolicyId);
    const origin = config.Origins.find((entry) => entry.Id === behavior.TargetOriginId)!;
    const urlId = Object.entries(urls).find(([, url]) => JSON.stringify(url.Properties?.TargetFunctionArn).includes(functionId(route.fn)))![0];
    expect(JSON.stringify(origin.DomainName)).toContain(urlId);
    expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginReadTimeout: 60 });
    const oacId = (origin.OriginAccessControlId as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(resourcesOf(template, 'AWS::CloudFront::OriginAccessControl')[oacId]?.Properties?.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 'lambda',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
  });

  it.each(STREAMED)('$path: only this distribution may invoke the function (through its URL), and nothing else may', (route) => {
    const urlId = Object.entries(urls).find(([, url]) => JSON.stringify(url.Properties?.TargetFunctionArn).includes(functionId(route.fn)))![0];
    // Every permission on the function, named by its ARN or through its URL's: the API Gateway's is gone too.
    const permissions = Object.values(resourcesOf(template, 'AWS::Lambda::Permission')).filter((permission) => {
      const name = JSON.stringify(permission.Properties?.FunctionName);
      return name.includes(`"${functionId(route.fn)}"`) || name.includes(`"${urlId}"`);
    });
    expect(permissions.map((permission) => permission.Properties?.Action).sort()).toEqual(['lambda:InvokeFunction', 'lambda:InvokeFunctionUrl']);
    for (const permission of permissions) {
      expect(permission.Properties?.Principal).toBe('cloudfront.amazonaws.com');
      expect(JSON.stringify(permission.Properties?.SourceArn)).toContain(`distribution/`);
      expect(JSON.stringify(permission.Properties?.SourceArn)).toContain(portalId);
    }
    expect(permissions.find((permission) => permission.Properties?.Action === 'lambda:InvokeFunction')?.Properties?.InvokedViaFunctionUrl).toBe(true);
  });

  it.each(STREAMED)("$path: its function has the route's timeout, a few at a time, and read-only table access", (route) => {
    expect(functionProps(route.fn).Timeout).toBe(route.timeoutSeconds);
    expect(functionProps(route.fn).ReservedConcurrentExecutions).toBe(STREAMED_CONCURRENCY);
    expect(ACCESS.get(route.fn)).toBe('read');
    const writes = statementsOf(route.fn).filter((s) => actionsOf(s).some((action) => WRITE_ACTIONS.includes(action)));
    // Nothing at all: not orders, merchants or sessions, and no request quota counters (a portal
    // route counts none: every request comes from one of CloudFront's addresses).
    expect(COUNTS_REQUESTS.has(route.fn)).toBe(false);
    expect(writes).toEqual([]);
  });

  it.each(STREAMED)('$path: its function knows an https portal origin without depending on the distribution', (route) => {
    const origin = environmentOf(route.fn).PORTAL_ORIGIN;
    expect(origin).toBe('https://portal-origin.invalid');
    expect(environmentOf(route.fn).PORTAL_CLIENT_IP_HEADER).toBe('cloudfront-viewer-address');
  });
});

describe("CloudFormation's validation at synthesis", () => {
  // The syntheses that validate (testApp's `validate`) fail on a template CloudFormation would refuse; the others skip it.
  it.each([true, false])('validate: %s', (validate) => {
    const { app: other, cleanup: done } = testApp({ bundle: false, validate });
    try {
      const bad = new Stack(other, 'Refused', { env: TEST_ENV });
      new CfnResource(bad, 'Queue', { type: 'AWS::SQS::Queue', properties: { VisibilityTimeout: 'soon' } });
      const synth = () => Template.fromStack(bad);
      if (validate) expect(synth).toThrow(/VisibilityTimeout: 'soon' is not of type 'integer'/);
      else expect(synth).not.toThrow();
    } finally {
      done();
    }
  });
});
