import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CfnParameter, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { CallbackPipeline } from '#infra/cdk/constructs/callback-pipeline';
import { awsRoutePath, conflictingPathVariables, OrderApi } from '#infra/cdk/constructs/order-api';
import { PAGE_ROUTING_FUNCTION, PaymentPage, withApiBaseUrl } from '#infra/cdk/constructs/payment-page';
import { ServiceAlarms } from '#infra/cdk/constructs/service-alarms';
import { StaticSite } from '#infra/cdk/constructs/static-site';
import { CryptoPayStack } from '#infra/cdk/stack';
import { siteSecurityHeaders } from '#shared/core/site-headers';
import { deployConfig, logicalId, resourcesOf, TEST_ENV, testApp, type TestApp } from './support.ts';

const apps: TestApp[] = [];
const scratch = (bundle = false) => {
  const made = testApp({ bundle });
  apps.push(made);
  return { ...made, stack: new Stack(made.app, 'Scratch', { env: TEST_ENV }) };
};
const pageDir = mkdtempSync(join(tmpdir(), 'page-'));
afterAll(() => {
  for (const made of apps) made.cleanup();
  rmSync(pageDir, { recursive: true, force: true });
});

const nagFindings = (made: TestApp) => new AwsSolutionsChecks(undefined).validateScope(made.app).violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);

/** A stand-in for functions not written yet; the test acknowledges what nag says about it. */
function standIn(stack: Stack, id: string, timeout: Duration) {
  const fn = new LambdaFunction(stack, id, {
    runtime: Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: Code.fromInline('export const handler = async () => ({});'),
    timeout,
  });
  const reason = 'test stand-in for a function that does not exist yet';
  Validations.of(fn).acknowledge({ id: 'AwsSolutions-L1', reason }, { id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', reason });
  return fn;
}

describe('API route paths', () => {
  it('drop a trailing slash, which API Gateway refuses in route keys', () => {
    expect(awsRoutePath('/v1/orders/')).toBe('/v1/orders');
    expect(awsRoutePath('/v1/orders')).toBe('/v1/orders');
    expect(awsRoutePath('/')).toBe('/');
  });

  it('report a path variable named differently at the same level', () => {
    expect(conflictingPathVariables(['/v1/orders/{order_id}', '/v1/orders/{id}/checkout'])).toEqual(['/v1/orders/{id}/checkout names {id} where /v1/orders/{order_id} names {order_id}']);
    expect(conflictingPathVariables(['/a/{id}', '/a/{id}/b', '/c/{other}', '/a/{id}/b/{item}', '/a/{id}/d/{x}'])).toEqual([]);
    expect(conflictingPathVariables(['/a/{proxy+}', '/a/{id}'])).toHaveLength(1);
  });

  it('refuse two functions on one route', () => {
    const { stack } = scratch();
    const fn = standIn(stack, 'Fn', Duration.seconds(3));
    expect(
      () =>
        new OrderApi(stack, 'Api', {
          routes: [
            { method: 'GET', path: '/x', fn: 'a', access: 'read' },
            { method: 'GET', path: '/x/', fn: 'b', access: 'read' },
          ],
          handlers: new Map([
            ['a', fn],
            ['b', fn],
          ]),
          notFound: fn,
          allowedOrigin: 'https://pay.example.com',
          throttle: { read: { rateLimit: 1, burstLimit: 1 }, write: { rateLimit: 1, burstLimit: 1 } },
        }),
    ).toThrow('route GET /x is served by both a and b');
  });
});

describe('payment page with a built page and a custom domain', () => {
  mkdirSync(pageDir, { recursive: true });
  writeFileSync(join(pageDir, 'index.html'), '<!doctype html><title>Pay</title>');
  const made = scratch();
  const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/0f1e2d3c-aaaa-bbbb-cccc-123456789abc';
  const page = new PaymentPage(made.stack, 'Page', {
    contentDir: pageDir,
    customDomain: { domainName: 'pay.example.com', certificateArn },
    apiOrigins: ['https://api.example.com'],
  });
  const template = Template.fromStack(made.stack);

  it('deploys the page and invalidates the cache', () => {
    expect(page.contentDeployed).toBe(true);
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketName: { Ref: logicalId(made.stack, page.bucket) },
      DistributionPaths: ['/*'],
    });
  });

  it('serves the custom domain with TLS 1.2 or later', () => {
    expect(page.url).toBe('https://pay.example.com/');
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['pay.example.com'],
        ViewerCertificate: { AcmCertificateArn: certificateArn, MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' },
      }),
    });
  });

  it('is nag-clean, the BucketDeployment findings acknowledged and no TLS finding left to excuse', () => {
    expect(nagFindings(made)).toEqual([]);
    const acknowledged = JSON.stringify(page.distribution.node.metadata);
    expect(acknowledged).not.toContain('AwsSolutions-CFR4');
  });

  it("answers extensionless paths (the sandbox gateway's links) with index.html, files as they are", () => {
    template.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: PAGE_ROUTING_FUNCTION,
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
    });
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          FunctionAssociations: [Match.objectLike({ EventType: 'viewer-request' })],
        }),
      }),
    });
    // The function's own code, run as CloudFront runs it: handler(event) -> request.
    const handler = new Function(`${PAGE_ROUTING_FUNCTION}; return handler;`)() as (event: unknown) => { uri: string };
    const routed = (uri: string) => handler({ request: { uri, querystring: {}, headers: {} } }).uri;
    expect(routed('/sandbox-gateway/alipay')).toBe('/index.html');
    expect(routed('/sandbox-gateway/')).toBe('/index.html');
    expect(routed('/')).toBe('/index.html');
    expect(routed('/app.js')).toBe('/app.js');
    expect(routed('/sandbox-gateway/app.css')).toBe('/sandbox-gateway/app.css');
    expect(routed('/favicon.ico')).toBe('/favicon.ico');
    expect(routed('/v1.2/checkout')).toBe('/index.html');
  });

  it("writes the API's URL, a deploy-time value, into the deployed index.html (no config.json to fetch first)", () => {
    const other = scratch();
    const dir = mkdtempSync(join(pageDir, 'meta-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><meta name="api-base-url" content=""><title>Pay</title>');
    const configured = new PaymentPage(other.stack, 'Page', { contentDir: dir, apiOrigins: [] });
    configured.publishConfig({ apiBaseUrl: new CfnParameter(other.stack, 'ApiUrl').valueAsString });
    const deployments = Object.values(Template.fromStack(other.stack).findResources('Custom::CDKBucketDeployment'));
    expect(deployments).toHaveLength(1);
    const properties = deployments[0]!.Properties as { SourceObjectKeys: unknown[]; SourceMarkers: Record<string, unknown>[] };
    // The built folder, then the filled-in index.html, whose marker the deployment replaces with the URL.
    expect(properties.SourceObjectKeys).toHaveLength(2);
    expect(properties.SourceMarkers[1]).toEqual({ [Object.keys(properties.SourceMarkers[1]!)[0]!]: { Ref: 'ApiUrl' } });

    expect(withApiBaseUrl('<head><meta name="api-base-url" content=""></head>', 'https://api.example.com/')).toBe('<head><meta name="api-base-url" content="https://api.example.com/"></head>');
    expect(() => withApiBaseUrl('<head></head>', 'https://api.example.com/')).toThrow(/api-base-url/);
  });

  it('warns about a page folder without index.html', () => {
    const other = scratch();
    const empty = mkdtempSync(join(pageDir, 'empty-'));
    new PaymentPage(other.stack, 'Page', { contentDir: empty, apiOrigins: [] });
    Annotations.fromStack(other.stack).hasWarning('/Scratch/Page', Match.stringLikeRegexp('has no index.html'));
  });
});

describe('a static site under a path (as the portal is)', () => {
  const made = scratch();
  const dir = mkdtempSync(join(pageDir, 'site-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Site</title>');
  const site = new StaticSite(made.stack, 'Site', {
    title: 'test site',
    comment: 'Test site',
    contentDir: dir,
    path: '/app/',
    routing: { id: 'Routing', comment: 'app paths', code: PAGE_ROUTING_FUNCTION },
    accessLogsPrefix: 's3-site-bucket/',
    headers: siteSecurityHeaders('portal'),
    nagReasons: { geoRestriction: 'test', waf: 'test' },
    domainSetting: 'siteDomain',
  });
  const template = Template.fromStack(made.stack);

  it('deploys its files under the path, invalidates only them, and has no root object', () => {
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketName: { Ref: logicalId(made.stack, site.bucket) },
      DestinationBucketKeyPrefix: 'app/',
      DistributionPaths: ['/app/*'],
    });
    const [distribution] = Object.values(resourcesOf(template, 'AWS::CloudFront::Distribution'));
    expect((distribution!.Properties as { DistributionConfig: Record<string, unknown> }).DistributionConfig.DefaultRootObject).toBeUndefined();
  });

  it('allows scripts to call only its own origin, and says why it has no domain of its own (nag-clean)', () => {
    const [policy] = Object.values(resourcesOf(template, 'AWS::CloudFront::ResponseHeadersPolicy'));
    expect(JSON.stringify(policy!.Properties)).toContain("connect-src 'self';");
    expect(JSON.stringify(site.distribution.node.metadata)).toContain('set siteDomain to enforce TLSv1.2_2021');
    expect(nagFindings(made)).toEqual([]);
  });
});

describe('stack with the payment page hosted elsewhere', () => {
  const made = testApp({ bundle: false });
  apps.push(made);
  const stack = new CryptoPayStack(made.app, 'Elsewhere', {
    env: TEST_ENV,
    config: deployConfig({ PAYMENT_PAGE_URL: 'https://pay.example.com/checkout' }),
    paymentPageDir: join(tmpdir(), 'crypto-pay-test-no-page'),
    portalDir: join(tmpdir(), 'crypto-pay-test-no-portal'),
  });
  const template = Template.fromStack(stack);

  it('gives handlers that URL and allows only its origin', () => {
    for (const fn of Object.values(resourcesOf(template, 'AWS::Lambda::Function'))) {
      expect((fn.Properties?.Environment as { Variables: Record<string, unknown> }).Variables.PAYMENT_PAGE_URL).toBe('https://pay.example.com/checkout');
    }
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({ AllowOrigins: ['https://pay.example.com'] }),
    });
    template.hasOutput('PaymentPageUrl', { Value: 'https://pay.example.com/checkout' });
  });
});

describe('callback pipeline, wired to the functions that will come', () => {
  const made = scratch();
  const table = new TableV2(made.stack, 'Table', {
    partitionKey: { name: 'PK', type: AttributeType.STRING },
    dynamoStream: StreamViewType.NEW_AND_OLD_IMAGES,
  });
  const pipeline = new CallbackPipeline(made.stack, 'Callbacks');
  // Stand-ins have no code to scan: they are allowed the queues and granted no call.
  const calling = (fn: LambdaFunction) => ({ function: fn, allow: () => [] });
  const tooSlow = () => pipeline.addDeliveryFunction(calling(standIn(made.stack, 'SlowDelivery', Duration.seconds(30))));
  const delivery = standIn(made.stack, 'Delivery', Duration.seconds(15));
  pipeline.addDeliveryFunction(calling(delivery));
  const orderEvents = standIn(made.stack, 'OrderEvents', Duration.seconds(30));
  pipeline.addOrderEventsConsumer(calling(orderEvents), table);
  const alarms = new ServiceAlarms(made.stack, 'Alarms');
  alarms.alarmOnStreamLag('Lag', orderEvents);
  const template = Template.fromStack(made.stack);
  const environmentOf = (fn: LambdaFunction) =>
    (
      resourcesOf(template, 'AWS::Lambda::Function')[logicalId(made.stack, fn)]?.Properties?.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;

  it('refuses a delivery function slower than the visibility timeout allows', () => {
    expect(tooSlow).toThrow(/exceeds the 15 s/);
  });

  it('lets the delivery function consume the queue with partial batch failures', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(made.stack, delivery) },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(made.stack, pipeline.queue), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(environmentOf(delivery).CALLBACK_QUEUE_URL).toEqual({ Ref: logicalId(made.stack, pipeline.queue) });
  });

  it('lets the order-events function read the stream with bisection, bounded retries and a failure queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(made.stack, orderEvents) },
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(made.stack, pipeline.streamFailureQueue!), 'Arn'] } },
      },
    });
    expect(environmentOf(orderEvents).CALLBACK_QUEUE_URL).toEqual({ Ref: logicalId(made.stack, pipeline.queue) });
  });

  it('invokes order-events only for the insert of a delivery (event filtering)', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(made.stack, orderEvents) },
      FilterCriteria: {
        Filters: [{ Pattern: Match.serializedJson({ eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['DELIVERY'] } } } }) }],
      },
    });
  });

  it('alarms on stream lag', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(made.stack, orderEvents) } }],
      Threshold: 300_000,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('stays nag-clean with both consumers attached', () => {
    expect(nagFindings(made)).toEqual([]);
  });
});
