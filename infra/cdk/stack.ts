import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { DeployConfig } from '#infra/cdk/config';
import { METRICS_NAMESPACE } from '#shared/core/config';
import { CallbackPipeline } from '#infra/cdk/constructs/callback-pipeline';
import { ChainWatchers, chainSourceParameters, TICK_FOLDER, WAKE_FOLDER, WATCHER_FOLDER } from '#infra/cdk/constructs/chain-watchers';
import { Email, EMAIL_FUNCTIONS } from '#infra/cdk/constructs/email';
import { EVENT_FUNCTIONS, type EventFunction } from '#shared/http/event-functions';
import { EMAIL_EVENT_PATTERNS } from '#shared/email/events';
import { MerchantPortal } from '#infra/cdk/constructs/merchant-portal';
import { OrderApi } from '#infra/cdk/constructs/order-api';
import { OrderTable } from '#infra/cdk/constructs/order-table';
import { PaymentPage } from '#infra/cdk/constructs/payment-page';
import { Renewals } from '#infra/cdk/constructs/renewals';
import { RouteFunctions } from '#infra/cdk/constructs/route-functions';
import { PERIOD_ORDER_PATTERN } from '#shared/services/renewal-queue';
import { ServiceAlarms } from '#infra/cdk/constructs/service-alarms';
import { constructId, ServiceFunction, type TableAccess } from '#infra/cdk/constructs/service-function';
import { FUNCTION_CALLS } from '#infra/cdk/function-calls.generated';
import type { FunctionCalls } from '#infra/cdk/permissions';
import { PAYMENT_PAGE_DIR, PORTAL_DIR } from '#infra/cdk/paths';
import { authenticates, type Grant, ROUTES, type Route, routeGrants } from '#shared/http/routes';
import { API_TOKEN_PREFIX, QUOTA_PREFIX } from '#shared/store/keys';

export interface CryptoPayStackProps extends StackProps {
  readonly config: DeployConfig;
  /** The built payment page (default web/dist); tests point it elsewhere. */
  readonly paymentPageDir?: string;
  /** The built merchant portal (default web/portal/dist). */
  readonly portalDir?: string;
  /** What each function's code calls (default: infra/cdk/function-calls.generated.ts); tests plant other calls. */
  readonly calls?: FunctionCalls;
}

/** Powertools service name and the `service` tag of every resource. */
export const SERVICE_NAME = 'crypto-pay-orders';

export { EVENT_FUNCTIONS, type EventFunction };

/** What one function folder may touch: the union over its routes (write wins), or its event declaration. */
export interface FunctionNeeds {
  access: TableAccess;
  grants: ReadonlySet<Grant>;
  /** Authenticates merchants' API tokens: may also record a token's last use. */
  authenticates: boolean;
  /** Behind a route: counts its clients' requests in the table. */
  route: boolean;
  timeout?: Duration;
}

/** Each function folder of the route table and of {@link EVENT_FUNCTIONS} with what it may touch. */
export function functionNeeds(routes: readonly Route[]): Map<string, FunctionNeeds> {
  const needs = new Map<string, FunctionNeeds>();
  for (const route of routes) {
    const known = needs.get(route.fn);
    needs.set(route.fn, {
      access: known?.access === 'write' ? 'write' : route.access,
      grants: new Set([...(known?.grants ?? []), ...routeGrants(route)]),
      authenticates: (known?.authenticates ?? false) || authenticates(route),
      route: true,
      timeout: known?.timeout ?? (route.timeoutSeconds ? Duration.seconds(route.timeoutSeconds) : undefined),
    });
  }
  for (const event of Object.values(EVENT_FUNCTIONS) as EventFunction[]) {
    needs.set(event.fn, {
      access: event.access,
      grants: new Set(event.grants ?? []),
      authenticates: false,
      route: false,
      timeout: event.timeoutSeconds ? Duration.seconds(event.timeoutSeconds) : undefined,
    });
  }
  return needs;
}

/**
 * Every function folder the stack deploys (those of a full configuration: every watcher and
 * email): what infra/cdk/build-permissions.ts scans for the calls each function's code makes.
 */
export const serviceFolders = (routes: readonly Route[] = ROUTES): string[] =>
  [...new Set([...functionNeeds(routes).keys(), WATCHER_FOLDER, WAKE_FOLDER, TICK_FOLDER, ...Object.values(EMAIL_FUNCTIONS)])].sort();

/** The function folders whose declaration grants this. */
export const functionsGranted = (grant: Grant, routes: readonly Route[] = ROUTES): string[] => [...functionNeeds(routes)].filter(([, needs]) => needs.grants.has(grant)).map(([folder]) => folder);

/**
 * PORTAL_ORIGIN of a streamed route's function. The distribution names the function's URL as
 * its origin, so its domain is unknown when the function is made (the real origin would be a
 * dependency cycle) unless the portal has a custom domain. A streamed route is a GET (the stack
 * refuses others): its handler uses the origin only for the cookie's name and Secure flag,
 * https either way; the CSRF origin check and WebAuthn, which need the exact origin, run only on
 * POST routes, and would refuse (fail closed) with this reserved `.invalid` name.
 */
export function streamedPortalOrigin(config: DeployConfig): string {
  return config.portal.customDomain ? `https://${config.portal.customDomain.domainName}` : 'https://portal-origin.invalid';
}

/** Reserved concurrency of each streamed route's function: concurrent exports beyond it get 429. */
export const STREAMED_CONCURRENCY = 5;

/**
 * The whole service: one stack and its nested stacks (the route functions', the chain
 * watchers', email's; docs/deploy.md "Stack size"). It only wires constructs:
 * the table, one function per function folder of the route table plus the event-driven ones,
 * the HTTP API, the callback queues, the payment page, the alarms and the watchers.
 */
export class CryptoPayStack extends Stack {
  readonly table: OrderTable;
  /** This stack's functions by folder (the watchers' are in {@link watchers}). */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  readonly api: OrderApi;
  readonly callbacks: CallbackPipeline;
  readonly paymentPage: PaymentPage;
  readonly portal: MerchantPortal;
  readonly alarms: ServiceAlarms;
  /**
   * The chain watchers' nested stack (absent when no chain or source is configured: a stack
   * needs a resource). Functions that start the watchers go in it (ChainWatchers.addFunction).
   */
  readonly watchers?: ChainWatchers;
  /** Email's nested stack (absent without an emailDomain setting: no email). */
  readonly email?: Email;
  /** The nested stack of the HTTP API routes' functions (in {@link functions} with the others). */
  readonly routeFunctions: RouteFunctions;
  /** The subscription renewal queue and its dead-letter queue. */
  readonly renewals: Renewals;

  constructor(scope: Construct, id: string, props: CryptoPayStackProps) {
    super(scope, id, { description: 'Hosted crypto payment orders (MugglePay v1 compatible API)', ...props });
    const { config } = props;
    const calls = props.calls ?? FUNCTION_CALLS;

    this.table = new OrderTable(this, 'Orders');
    // The merchant's answer limit plus 5 s to connect and record the attempt (handler default 10 s).
    const deliveryTimeout = Duration.seconds(Math.ceil((config.callbackTimeoutMs ?? 10_000) / 1000) + 5);
    this.callbacks = new CallbackPipeline(this, 'Callbacks', { deliveryTimeout });

    // The API's id cannot appear in the page's CSP: the API already depends on the page's URL
    // (CORS, PAYMENT_PAGE_URL), so the reverse reference would be a cycle. Allow this region's
    // execute-api hosts instead.
    this.paymentPage = new PaymentPage(this, 'PaymentPage', {
      contentDir: props.paymentPageDir ?? PAYMENT_PAGE_DIR,
      customDomain: config.paymentPage.customDomain,
      apiOrigins: [`https://*.execute-api.${this.region}.${this.urlSuffix}`],
    });
    const pageUrl = config.paymentPage.url ?? this.paymentPage.url;
    const pageOrigin = config.paymentPage.url ? new URL(config.paymentPage.url).origin : this.paymentPage.origin;

    // One function per folder, with exactly what its routes (or its EVENT_FUNCTIONS entry) declare;
    // those behind the HTTP API in their nested stack (see RouteFunctions), the others here.
    this.routeFunctions = new RouteFunctions(this, 'RouteFunctions');
    const streamedFolders = new Set(ROUTES.filter((route) => route.stream).map((route) => route.fn));
    const functions = new Map<string, ServiceFunction>();
    for (const [folder, needs] of functionNeeds(ROUTES)) {
      // The renewal function, beside its queues, in the nested stack too: the main stack keeps its room (docs/deploy.md "Stack size").
      const nested = (needs.route && !streamedFolders.has(folder)) || folder === EVENT_FUNCTIONS.renewSubscriptions.fn;
      const scope = nested ? this.routeFunctions : this;
      const fn = new ServiceFunction(scope, constructId(folder), {
        folder,
        calls,
        serviceName: SERVICE_NAME,
        logLevel: config.logLevel,
        table: this.table.table,
        tableAccess: needs.access,
        timeout: folder === EVENT_FUNCTIONS.deliverCallback.fn ? deliveryTimeout : needs.timeout,
        // As the local runtime does, every handler knows the queue URL: modules that read it at
        // load time are shared by functions that never send. Sending needs the grant.
        environment: {
          ...config.handlerEnvironment,
          PAYMENT_PAGE_URL: pageUrl,
          CALLBACK_QUEUE_URL: this.callbacks.queue.queueUrl,
          // Route functions count each client's requests in the table (docs/operator-guide.md "Rate limits").
          ...(needs.route ? { QUOTA_STORE: 'table' } : {}),
        },
        writablePrefix: needs.route ? QUOTA_PREFIX : undefined,
        tokenUsePrefix: needs.authenticates ? API_TOKEN_PREFIX : undefined,
        parameters: {
          ...(needs.grants.has('gateways') ? config.gatewayCredentialParameters : {}),
          ...(needs.grants.has('lightning') ? config.lightningParameters : {}),
          ...(needs.grants.has('token-key') ? { TOKEN_HMAC_KEY_PARAMETER: config.tokenKeyParameter } : {}),
          // The refund checks read the chain sources, TON's key among them.
          ...(needs.grants.has('chain-sources') ? { ...chainSourceParameters(config.chainSources), ...config.tonParameters } : {}),
        },
      });
      if (needs.grants.has('callback-queue')) this.callbacks.grantEnqueue(fn);
      functions.set(folder, fn);
    }
    const eventFunction = (event: EventFunction) => functions.get(event.fn)!;
    // A streamed route has no API Gateway throttle in front (its function URL is behind the
    // portal's CloudFront): a few at a time, so long exports cannot take the account's concurrency.
    for (const route of ROUTES.filter((entry) => entry.stream)) {
      const fn = functions.get(route.fn)?.function;
      if (fn) (fn.node.defaultChild as CfnFunction).reservedConcurrentExecutions = STREAMED_CONCURRENCY;
    }
    this.runEvery(EVENT_FUNCTIONS.expireOrders.fn, eventFunction(EVENT_FUNCTIONS.expireOrders).function, Duration.minutes(EVENT_FUNCTIONS.expireOrders.everyMinutes));
    this.runEvery(EVENT_FUNCTIONS.sweepCallbacks.fn, eventFunction(EVENT_FUNCTIONS.sweepCallbacks).function, Duration.minutes(EVENT_FUNCTIONS.sweepCallbacks.everyMinutes));
    const orderEvents = eventFunction(EVENT_FUNCTIONS.orderEvents);
    // A period order's status change queues its subscription's renewal at once; with email on, the records emails are made from.
    this.callbacks.addOrderEventsConsumer(orderEvents, this.table.table, [PERIOD_ORDER_PATTERN, ...(config.email ? EMAIL_EVENT_PATTERNS : [])]);
    // Subscription renewals: the minute sweep queues the due ones, order-events a paid or lapsed period's, renew-subscriptions takes their steps.
    this.renewals = new Renewals(this.routeFunctions, 'Renewals', { consumerTimeout: Duration.seconds(EVENT_FUNCTIONS.renewSubscriptions.timeoutSeconds) });
    this.renewals.grantEnqueue(eventFunction(EVENT_FUNCTIONS.expireOrders));
    this.renewals.grantEnqueue(orderEvents);
    this.renewals.addConsumer(eventFunction(EVENT_FUNCTIONS.renewSubscriptions));
    this.callbacks.addDeliveryFunction(eventFunction(EVENT_FUNCTIONS.deliverCallback));
    const notFound = eventFunction(EVENT_FUNCTIONS.notFound).function;
    this.functions = functions;

    this.api = new OrderApi(this, 'OrderApi', {
      routes: ROUTES,
      notFound,
      handlers: new Map([...functions].map(([folder, fn]) => [folder, fn.function])),
      allowedOrigin: pageOrigin,
      throttle: config.apiThrottle,
    });
    // The page is static and the API's URL is known only at deploy time: it is written into index.html.
    this.paymentPage.publishConfig({ apiBaseUrl: this.api.url });
    // The portal and its API share one CloudFront origin; its functions check requests against it.
    this.portal = new MerchantPortal(this, 'Portal', {
      contentDir: props.portalDir ?? PORTAL_DIR,
      api: this.api.api,
      streamed: ROUTES.filter((route) => route.portal && route.stream).map((route) => {
        if (route.method !== 'GET') throw new Error(`streamed route ${route.method} ${route.path}: only GET routes can stream (see streamedPortalOrigin)`);
        return { path: route.path, handler: functions.get(route.fn)!.function };
      }),
      customDomain: config.portal.customDomain,
    });
    for (const route of ROUTES.filter((entry) => entry.portal)) {
      const fn = functions.get(route.fn)?.function;
      fn?.addEnvironment('PORTAL_ORIGIN', route.stream ? streamedPortalOrigin(config) : this.portal.origin);
      fn?.addEnvironment('PORTAL_CLIENT_IP_HEADER', 'cloudfront-viewer-address');
      fn?.addEnvironment('PORTAL_ORIGIN_SECRET', this.portal.originSecret);
    }
    // Gateways post their notifications to the API: the functions that open trades name it.
    for (const folder of functionsGranted('gateways')) functions.get(folder)!.function.addEnvironment('PUBLIC_API_URL', this.api.url);

    this.alarms = new ServiceAlarms(this, 'Alarms', { email: config.alarmEmail });
    // The watchers (about ten resources per source) in a nested stack, so that this one stays
    // well under CloudFormation's 500 resources with every network configured.
    if (config.chainSources.length + config.indexedSources.length > 0) {
      this.watchers = new ChainWatchers(this, 'Watchers', {
        config,
        calls,
        serviceName: SERVICE_NAME,
        metricsNamespace: METRICS_NAMESPACE,
        table: this.table.table,
        environment: { PAYMENT_PAGE_URL: pageUrl, CALLBACK_QUEUE_URL: this.callbacks.queue.queueUrl },
        alarmTopic: this.alarms.topic,
      });
    }
    // Email (with an emailDomain): its own nested stack; order-events queues its events.
    if (config.email) {
      this.email = new Email(this, 'Email', {
        config: { ...config, email: config.email },
        calls,
        serviceName: SERVICE_NAME,
        table: this.table.table,
        environment: { PAYMENT_PAGE_URL: pageUrl, PORTAL_ORIGIN: this.portal.origin },
        alarmTopic: this.alarms.topic,
      });
      this.email.grantEnqueue(orderEvents);
      this.email.identity.dkimRecords.forEach((record, index) => {
        new CfnOutput(this, `EmailDkimRecord${index + 1}`, { value: `${record.name} CNAME ${record.value}`, description: 'Add to the DNS of the email domain (docs/deploy.md "Email")' });
      });
    }
    this.alarms.alarmWhenQueueHasMessages(
      'CallbackDeadLetters',
      this.callbacks.deadLetterQueue,
      'Callbacks exhausted their attempts (or could not be processed): merchants missed status changes. Inspect; once the merchant is fixed, redrive the messages to the callback queue (each starts its delivery over) or use the redeliver endpoint.',
    );
    this.alarms.alarmWhenQueueHasMessages(
      'RenewalDeadLetters',
      this.renewals.deadLetterQueue,
      'Subscription renewals failed every attempt (the store, or an order that cannot be made): subscriptions may be late to bill, go past due or be canceled. Each is queued again by the minute sweep once its claim ends; inspect the reason and fix it.',
    );
    if (this.callbacks.streamFailureQueue) {
      this.alarms.alarmWhenQueueHasMessages(
        'OrderEventFailures',
        this.callbacks.streamFailureQueue,
        'Table stream records failed after their retries: those deliveries got no first queue job; sweep-callbacks re-queues them after its grace period.',
      );
    }
    this.alarms.alarmOnStreamLag('OrderEventsLag', orderEvents.function);
    // Route functions answer through the API: one alarm on its 5xx covers them all.
    this.alarms.alarmOnApiServerErrors('ApiServerErrors', this.api.api);
    // Streamed routes answer through their function URL, not the API: an alarm each, as the event-driven functions.
    const streamed = ROUTES.filter((route) => route.stream).map((route) => route.fn);
    for (const folder of [
      EVENT_FUNCTIONS.expireOrders.fn,
      EVENT_FUNCTIONS.sweepCallbacks.fn,
      EVENT_FUNCTIONS.orderEvents.fn,
      EVENT_FUNCTIONS.deliverCallback.fn,
      EVENT_FUNCTIONS.renewSubscriptions.fn,
      ...streamed,
    ]) {
      this.alarms.alarmOnErrors(`${constructId(folder)}Errors`, functions.get(folder)!.function, `${folder} invocations are failing`);
    }

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the merchant API' });
    new CfnOutput(this, 'PortalUrl', { value: `${this.portal.origin}/portal/`, description: 'The merchant portal (set PORTAL_ORIGIN to its origin for npm run merchant -- invite)' });
    new CfnOutput(this, 'PaymentPageUrl', { value: pageUrl, description: 'Base of payment_url' });
    new CfnOutput(this, 'TableName', { value: this.table.table.tableName, description: 'For npm run merchant' });
    new CfnOutput(this, 'CallbackQueueUrl', { value: this.callbacks.queue.queueUrl });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'Subscribe on-call here' });
    new CfnOutput(this, 'PaymentPageBucketName', { value: this.paymentPage.bucket.bucketName });
    new CfnOutput(this, 'PaymentPageContent', {
      value: this.paymentPage.contentDeployed ? 'deployed from web/dist' : 'NOT deployed: web/dist was missing at synth time; build the page and deploy again',
    });
  }

  /** Starts `fn` on a schedule; no retries, the next run does the same work anyway. */
  private runEvery(folder: string, fn: NodejsFunction, every: Duration): void {
    new Rule(this, `${constructId(folder)}Schedule`, {
      description: `Runs ${folder} every ${every.toHumanString()}`,
      schedule: Schedule.rate(every),
      targets: [new LambdaTarget(fn, { retryAttempts: 0 })],
    });
  }
}
