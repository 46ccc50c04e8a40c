import { Annotations, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type CfnStage, CorsHttpMethod, HttpApi, HttpMethod, type HttpRoute, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Throttle } from '#infra/cdk/config';
import type { Route } from '#shared/http/routes';

export interface OrderApiProps {
  readonly routes: readonly Route[];
  /** The function serving each `fn` folder named in `routes`. */
  readonly handlers: ReadonlyMap<string, IFunction>;
  /** The only browser origin allowed to call the API: the payment page's. */
  readonly allowedOrigin: string;
  /**
   * `read` is also the stage default (it covers any route without its own setting). `public`
   * limits the payment page's token-free routes; by default half of their read or write limit.
   */
  readonly throttle: {
    readonly read: Throttle;
    readonly write: Throttle;
    readonly public?: { readonly read: Throttle; readonly write: Throttle };
  };
  /** Serves the `$default` route: every unknown path or method gets the service's JSON 404. */
  readonly notFound: IFunction;
}

/**
 * The payment page's routes answer anyone who holds an order id: they get a tighter limit than
 * the merchant routes, so a flood of them cannot take the merchants' share of the account's
 * Lambda concurrency and table capacity. Half, but never below 1.
 */
export function publicThrottle(limit: Throttle): Throttle {
  return { rateLimit: Math.max(1, Math.floor(limit.rateLimit / 2)), burstLimit: Math.max(1, Math.floor(limit.burstLimit / 2)) };
}

/**
 * The route's path as API Gateway takes it. HTTP APIs reject route paths ending in "/" and
 * route "/a/" to the "/a" route anyway, so the contract's trailing-slash spelling is served
 * by the route without it.
 */
export const awsRoutePath = (path: string): string => (path.length > 1 ? path.replace(/\/+$/, '') : path);

export const awsRouteKey = (route: Pick<Route, 'method' | 'path'>): string => `${route.method} ${awsRoutePath(route.path)}`;

/**
 * Pairs of routes naming the path variable at one level differently (`/a/{id}` and
 * `/a/{order_id}/b`). API Gateway refuses the second one with a ConflictException at deploy
 * time, so we want to know at synth time.
 */
export function conflictingPathVariables(paths: readonly string[]): string[] {
  const seen = new Map<string, { name: string; path: string }>();
  const conflicts: string[] = [];
  for (const path of new Set(paths.map(awsRoutePath))) {
    const segments = path.split('/');
    segments.forEach((segment, level) => {
      const variable = /^\{([^}+]+)\+?\}$/.exec(segment)?.[1];
      if (!variable) return;
      const parent = segments.slice(0, level).join('/');
      const earlier = seen.get(parent);
      if (!earlier) seen.set(parent, { name: variable, path });
      else if (earlier.name !== variable) {
        conflicts.push(`${path} names {${variable}} where ${earlier.path} names {${earlier.name}}`);
      }
    });
  }
  return conflicts;
}

// JSON access log lines; no headers, so the merchant's `token` never reaches the logs.
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    sourceIp: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    routeKey: '$context.routeKey',
    path: '$context.path',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationStatus: '$context.integrationStatus',
    integrationError: '$context.integrationErrorMessage',
    error: '$context.error.message',
  }),
);

/**
 * The merchant API: an HTTP API with one route per entry of the route table (but the streamed
 * ones, which an HTTP API cannot serve: see MerchantPortal), each to its
 * function; stage and per-route throttling; JSON access logs; CORS for the payment page only.
 */
export class OrderApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: OrderApiProps) {
    super(scope, id);

    this.api = new HttpApi(this, 'Api', {
      description: 'Merchant order API (MugglePay v1 compatible)',
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration('not-found-integration', props.notFound),
      corsPreflight: {
        allowOrigins: [props.allowedOrigin],
        allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.OPTIONS],
        allowHeaders: ['content-type'],
        // The page waits as long as a 429 says; a cross-origin script reads only exposed headers.
        exposeHeaders: ['retry-after'],
        maxAge: Duration.hours(1),
      },
    });

    const routes = this.addRoutes(props.routes, props.handlers);
    Validations.of(this.api.node.findChild('DefaultRoute')).acknowledge(
      {
        id: 'AwsSolutions-APIG4',
        reason: 'The $default route only answers the JSON 404 for paths that do not exist; it reads no data, so there is nothing to authorize.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason: 'The $default route only answers the JSON 404 for unknown paths; merchants are API clients with a static token, not Cognito users.',
      },
    );
    for (const conflict of conflictingPathVariables(props.routes.map((route) => route.path))) {
      const message = `API Gateway will refuse this route at deploy time: ${conflict}`;
      Annotations.of(this).addWarningV2('crypto-pay:route-variable-conflict', message);
    }

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      // Longer than function logs: access lines are the trail for disputes and abuse reports.
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle.read,
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs), format: ACCESS_LOG_FORMAT },
    });

    // Route-level throttling has no L2 property; route keys must exist before the stage names them.
    const cfnStage = this.stage.node.defaultChild as CfnStage;
    cfnStage.routeSettings = Object.fromEntries(
      [...routes].map(([key, { access, isPublic }]) => {
        const limit = isPublic ? (props.throttle.public?.[access] ?? publicThrottle(props.throttle[access])) : props.throttle[access];
        return [key, { ThrottlingRateLimit: limit.rateLimit, ThrottlingBurstLimit: limit.burstLimit }];
      }),
    );
    for (const { route } of routes.values()) this.stage.node.addDependency(route);
  }

  get url(): string {
    return this.stage.url;
  }

  private addRoutes(table: readonly Route[], handlers: ReadonlyMap<string, IFunction>): Map<string, { route: HttpRoute; access: Route['access']; isPublic: boolean }> {
    const integrations = new Map<string, HttpLambdaIntegration>();
    const routes = new Map<string, { route: HttpRoute; access: Route['access']; fn: string; isPublic: boolean }>();
    for (const entry of table) {
      // HTTP APIs cannot stream an answer: a streamed route is served by its function URL
      // behind the portal's CloudFront instead; here its path gets the $default route's 404.
      if (entry.stream) continue;
      const key = awsRouteKey(entry);
      const existing = routes.get(key);
      if (existing) {
        if (existing.fn !== entry.fn) throw new Error(`route ${key} is served by both ${existing.fn} and ${entry.fn}`);
        if (entry.access === 'write') existing.access = 'write';
        continue;
      }
      const handler = handlers.get(entry.fn);
      if (!handler) throw new Error(`no function for ${entry.fn} (route ${key})`);
      let integration = integrations.get(entry.fn);
      if (!integration) integrations.set(entry.fn, (integration = new HttpLambdaIntegration(`${entry.fn}-integration`, handler)));
      const [route] = this.api.addRoutes({
        path: awsRoutePath(entry.path),
        methods: [HttpMethod[entry.method]],
        integration,
      });
      if (!route) throw new Error(`API Gateway route ${key} was not created`);
      Validations.of(route).acknowledge(
        {
          id: 'AwsSolutions-APIG4',
          reason: entry.public
            ? 'A payment page route: buyers have no credentials; the unguessable order id is the capability, the answer is buyer-safe and the route has a tighter throttle.'
            : 'Merchants authenticate with the MugglePay `token` header, checked by the handler middleware against its keyed hash (HMAC-SHA256) in the table; the contract fixes its 401 body, which an API Gateway authorizer cannot produce.',
        },
        {
          id: 'AwsSolutions-COG4',
          reason: entry.public ? 'Buyers on the payment page are anonymous, not Cognito users.' : 'Merchants are API clients with a static API token (MugglePay contract), not Cognito users.',
        },
      );
      routes.set(key, { route, access: entry.access, fn: entry.fn, isPublic: entry.public === true });
    }
    return routes;
  }
}
