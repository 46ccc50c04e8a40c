import { existsSync } from 'node:fs';
import { Annotations, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  Function as CloudFrontFunction,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestCookieBehavior,
  OriginRequestHeaderBehavior,
  OriginRequestQueryStringBehavior,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { FunctionUrlOrigin, HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { FunctionUrlAuthType, type FunctionUrl, type IFunction, InvokeMode } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

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
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
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
 * The merchant portal on one origin: CloudFront serves its static files from a private S3
 * bucket and forwards `/v1/portal/*` to the HTTP API, so the session cookie is first-party
 * (SameSite=Strict, `__Host-`), the API needs no CORS for it, and the WebAuthn origin is this one.
 */
export class MerchantPortal extends Construct {
  readonly bucket: Bucket;
  /** The function URL serving each streamed path (RESPONSE_STREAM, AWS_IAM: only this distribution may call it). */
  readonly functionUrls: ReadonlyMap<string, FunctionUrl>;
  readonly distribution: Distribution;
  /** `https://<domain>`: PORTAL_ORIGIN of the portal's functions, and the passkeys' origin. */
  readonly origin: string;
  readonly contentDeployed: boolean;
  /**
   * The value CloudFront adds to every portal API request as `x-origin-verify` (a dynamic
   * reference, resolved by CloudFormation at deploy): PORTAL_ORIGIN_SECRET of the portal's
   * functions, which refuse requests without it (someone calling the API's own URL could forge
   * the viewer-address header the sign-in limit keys on).
   */
  readonly originSecret: string;

  constructor(scope: Construct, id: string, props: MerchantPortalProps) {
    super(scope, id);
    const logsBucket = new Bucket(this, 'LogsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(logsBucket).acknowledge({ id: 'AwsSolutions-S1', reason: "This is the merchant portal's access-log bucket; logging it into itself would loop forever." });
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(90) }],
      serverAccessLogsBucket: logsBucket,
      serverAccessLogsPrefix: 's3-portal-bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const routing = new CloudFrontFunction(this, 'PortalRouting', {
      comment: 'Portal app paths get its index.html; / goes to /portal/',
      code: FunctionCode.fromInline(PORTAL_ROUTING_FUNCTION),
      runtime: FunctionRuntime.JS_2_0,
    });
    const certificate = props.customDomain ? Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn) : undefined;
    const headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Merchant portal: HSTS, no framing, no sniffing, strict CSP',
      securityHeadersBehavior: {
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        contentSecurityPolicy: {
          contentSecurityPolicy:
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
          override: true,
        },
      },
    });
    // Generated once at deploy, never in the template or the repository.
    const originSecret = new Secret(this, 'OriginSecret', {
      description: 'Added by the portal CloudFront to requests for the portal API (x-origin-verify); the portal functions refuse requests without it',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(originSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'A shared origin-verify value between CloudFront and the portal functions: rotating it needs both updated in one deployment (change the secret, deploy); it guards a rate limit, not data.',
    });
    this.originSecret = originSecret.secretValue.unsafeUnwrap();
    // The API sees the viewer's address in CloudFront-Viewer-Address (its own source is CloudFront's).
    const toApi = new OriginRequestPolicy(this, 'ApiRequests', {
      comment: 'Portal API: cookies, query and the headers the handlers read (Origin, CSRF token, viewer address)',
      cookieBehavior: OriginRequestCookieBehavior.all(),
      queryStringBehavior: OriginRequestQueryStringBehavior.all(),
      headerBehavior: OriginRequestHeaderBehavior.allowList('origin', 'x-csrf-token', 'sec-fetch-site', 'content-type', 'CloudFront-Viewer-Address'),
    });
    // A streamed answer cannot pass through the HTTP API (it buffers, 6 MB at most): its path goes
    // to the function's URL in RESPONSE_STREAM mode. AWS_IAM with origin access control: only
    // this distribution can call it (CloudFront signs each request; the origin adds the
    // lambda:InvokeFunctionUrl and lambda:InvokeFunction permissions for its service principal,
    // scoped to this distribution). Same request policy as the API: the handler stack is the same.
    const functionUrls = new Map<string, FunctionUrl>();
    const streamedBehaviors = Object.fromEntries(
      (props.streamed ?? []).map(({ path, handler }) => {
        const url = handler.addFunctionUrl({ authType: FunctionUrlAuthType.AWS_IAM, invokeMode: InvokeMode.RESPONSE_STREAM });
        functionUrls.set(path, url);
        return [
          path,
          {
            // Bytes come at least once a page (a Query, well under a second); 60 s covers a slow one.
            origin: FunctionUrlOrigin.withOriginAccessControl(url, { readTimeout: Duration.seconds(60), customHeaders: { 'x-origin-verify': this.originSecret } }),
            allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
            viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
            cachePolicy: CachePolicy.CACHING_DISABLED,
            originRequestPolicy: toApi,
            responseHeadersPolicy: headers,
          },
        ];
      }),
    );
    this.functionUrls = functionUrls;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Merchant portal (static app and its API on one origin)',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        functionAssociations: [{ function: routing, eventType: FunctionEventType.VIEWER_REQUEST }],
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        compress: true,
      },
      // CloudFront takes the first matching behavior in this order: the exact streamed paths first.
      additionalBehaviors: {
        ...streamedBehaviors,
        '/v1/portal/*': {
          origin: new HttpOrigin(`${props.api.apiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`, {
            protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
            customHeaders: { 'x-origin-verify': this.originSecret },
          }),
          allowedMethods: AllowedMethods.ALLOW_ALL,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: toApi,
          responseHeadersPolicy: headers,
        },
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: logsBucket,
      logFilePrefix: 'cloudfront/',
      ...(props.customDomain && certificate
        ? { domainNames: [props.customDomain.domainName], certificate, minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021 }
        : {}),
    });
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'Merchants sign in from any country; where a merchant may work from is not the platform\'s decision.' },
      { id: 'AwsSolutions-CFR2', reason: 'The portal API limits sign-in attempts per client address itself, and every other portal route needs a session.' },
      ...(props.customDomain ? [] : [{ id: 'AwsSolutions-CFR4', reason: 'Without portalDomain the default *.cloudfront.net certificate is used, whose TLS policy cannot be chosen.' }]),
    );
    this.origin = `https://${props.customDomain?.domainName ?? this.distribution.distributionDomainName}`;

    this.contentDeployed = existsSync(props.contentDir);
    if (this.contentDeployed) {
      new BucketDeployment(this, 'Content', {
        sources: [Source.asset(props.contentDir)],
        destinationBucket: this.bucket,
        destinationKeyPrefix: PORTAL_PATH.slice(1),
        distribution: this.distribution,
        distributionPaths: [`${PORTAL_PATH}*`],
        memoryLimit: 256,
      });
    } else {
      Annotations.of(this).addWarningV2('crypto-pay:portal-not-built', `No built portal at ${props.contentDir}: its bucket is deployed empty. Build it (npm run build:web), then deploy again.`);
    }
  }
}
