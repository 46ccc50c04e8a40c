import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  type BehaviorOptions,
  CachePolicy,
  OriginProtocolPolicy,
  OriginRequestCookieBehavior,
  OriginRequestHeaderBehavior,
  OriginRequestQueryStringBehavior,
  OriginRequestPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { FunctionUrlOrigin, HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { FunctionUrlAuthType, type FunctionUrl, type IFunction, InvokeMode } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { type CustomDomain, StaticSite } from '#infra/cdk/constructs/static-site';
import { siteSecurityHeaders } from '#shared/core/site-headers';

export interface MerchantPortalProps {
  /** The built portal (web/portal/dist). Deployed only if the folder exists at synth time. */
  readonly contentDir: string;
  /** The HTTP API whose `/v1/portal/*` routes the portal calls, through this same distribution. */
  readonly api: IHttpApi;
  /**
   * The portal's streamed routes (route table entries with `stream: true`): each path is served
   * by its function's URL (response streaming), not by the HTTP API, on this same origin.
   */
  readonly streamed?: readonly { readonly path: string; readonly handler: IFunction }[];
  /** The portal's own domain (certificate in us-east-1); default: the CloudFront name. */
  readonly customDomain?: CustomDomain;
}

/** Where the portal's files live, in the bucket and in URLs (the local runtime serves the same path). */
export const PORTAL_PATH = '/portal/';

/**
 * Viewer-request routing of the portal's static files: `/` goes to `/portal/`, and any
 * extensionless path under it gets the app's index.html (the app routes by URL fragment).
 */
export const PORTAL_ROUTING_FUNCTION = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === '/' || uri === '/portal') {
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '${PORTAL_PATH}' } } };
  }
  if (uri.indexOf('.', uri.lastIndexOf('/') + 1) === -1) request.uri = '${PORTAL_PATH}index.html';
  return request;
}`;

/**
 * The merchant portal on one origin: a {@link StaticSite} under `/portal/` whose distribution
 * also forwards `/v1/portal/*` to the HTTP API (and each streamed path to its function's URL),
 * so the session cookie is first-party (SameSite=Strict, `__Host-`), the API needs no CORS for
 * it, and the WebAuthn origin is this one.
 */
export class MerchantPortal extends StaticSite {
  /** The function URL serving each streamed path (RESPONSE_STREAM, AWS_IAM: only this distribution may call it). */
  readonly functionUrls: ReadonlyMap<string, FunctionUrl>;
  /**
   * The value CloudFront adds to every portal API request as `x-origin-verify` (a dynamic
   * reference, resolved by CloudFormation at deploy): PORTAL_ORIGIN_SECRET of the portal's
   * functions, which refuse requests without it (someone calling the API's own URL could forge
   * the viewer-address header the sign-in limit keys on).
   */
  readonly originSecret: string;

  constructor(scope: Construct, id: string, props: MerchantPortalProps) {
    super(scope, id, {
      title: 'merchant portal',
      comment: 'Merchant portal (static app and its API on one origin)',
      contentDir: props.contentDir,
      path: PORTAL_PATH,
      routing: { id: 'PortalRouting', comment: 'Portal app paths get its index.html; / goes to /portal/', code: PORTAL_ROUTING_FUNCTION },
      accessLogsPrefix: 's3-portal-bucket/',
      headers: siteSecurityHeaders('portal'),
      ...(props.customDomain ? { customDomain: props.customDomain } : {}),
      nagReasons: {
        geoRestriction: "Merchants sign in from any country; where a merchant may work from is not the platform's decision.",
        waf: 'The portal API limits sign-in attempts per client address itself, and every other portal route needs a session.',
      },
      domainSetting: 'portalDomain',
    });
    // Generated once at deploy, never in the template or the repository.
    const originSecret = new Secret(this, 'OriginSecret', {
      description: 'Added by the portal CloudFront to requests for the portal API (x-origin-verify); the portal functions refuse requests without it',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(originSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A shared origin-verify value between CloudFront and the portal functions: rotating it needs both updated in one deployment (change the secret, deploy); it guards a rate limit, not data.',
    });
    this.originSecret = originSecret.secretValue.unsafeUnwrap();
    // The API sees the viewer's address in CloudFront-Viewer-Address (its own source is CloudFront's).
    const toApi = new OriginRequestPolicy(this, 'ApiRequests', {
      comment: 'Portal API: cookies, query and the headers the handlers read (Origin, CSRF token, viewer address)',
      cookieBehavior: OriginRequestCookieBehavior.all(),
      queryStringBehavior: OriginRequestQueryStringBehavior.all(),
      headerBehavior: OriginRequestHeaderBehavior.allowList('origin', 'x-csrf-token', 'sec-fetch-site', 'content-type', 'CloudFront-Viewer-Address'),
    });
    const uncached = {
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: toApi,
      responseHeadersPolicy: this.headers,
    } satisfies Partial<BehaviorOptions>;
    // CloudFront takes the first matching behavior in the order they are added: the exact
    // streamed paths first. A streamed answer cannot pass through the HTTP API (it buffers, 6 MB
    // at most): its path goes to the function's URL in RESPONSE_STREAM mode. AWS_IAM with origin
    // access control: only this distribution can call it (CloudFront signs each request; the
    // origin adds the lambda:InvokeFunctionUrl and lambda:InvokeFunction permissions for its
    // service principal, scoped to this distribution). Same request policy as the API: the
    // handler stack is the same.
    const functionUrls = new Map<string, FunctionUrl>();
    for (const { path, handler } of props.streamed ?? []) {
      const url = handler.addFunctionUrl({ authType: FunctionUrlAuthType.AWS_IAM, invokeMode: InvokeMode.RESPONSE_STREAM });
      functionUrls.set(path, url);
      // Bytes come at least once a page (a Query, well under a second); 60 s covers a slow one.
      const origin = FunctionUrlOrigin.withOriginAccessControl(url, { readTimeout: Duration.seconds(60), customHeaders: { 'x-origin-verify': this.originSecret } });
      this.distribution.addBehavior(path, origin, { ...uncached, allowedMethods: AllowedMethods.ALLOW_GET_HEAD });
    }
    this.functionUrls = functionUrls;
    const api = new HttpOrigin(`${props.api.apiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      customHeaders: { 'x-origin-verify': this.originSecret },
    });
    this.distribution.addBehavior('/v1/portal/*', api, { ...uncached, allowedMethods: AllowedMethods.ALLOW_ALL });
  }
}
