import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  CachePolicy,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  Function as CloudFrontFunction,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { acknowledgeAllFindings } from '#infra/cdk/nag';

/** What the deployed page is told, in its index.html (`<meta name="api-base-url">`; in AWS only). */
export interface PaymentPageConfig {
  /** Base URL of the API the page calls (`<apiBaseUrl>v1/pay/...`); locally the page calls its own origin. */
  readonly apiBaseUrl: string;
}

export interface PaymentPageProps {
  /** The built page. Deployed only if the folder exists at synth time. */
  readonly contentDir: string;
  /** Serve the page on this domain (certificate in us-east-1) instead of the CloudFront name. */
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
  /** Origins the page's scripts may call (CSP connect-src), besides its own. */
  readonly apiOrigins: readonly string[];
}

/**
 * CloudFront viewer-request function: a path without a file extension (the sandbox gateway's
 * `/sandbox-gateway/<name>`, or any page path) is answered with the page's index.html, as the
 * local runtime does. S3 behind origin access control would answer 403 for such a key; the
 * files themselves (app.js, sandbox-gateway/app.js, favicon.ico) pass through unchanged.
 */
export const PAGE_ROUTING_FUNCTION = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.indexOf('.', uri.lastIndexOf('/') + 1) === -1) request.uri = '/index.html';
  return request;
}`;

const API_BASE_META = '<meta name="api-base-url" content="">';

/**
 * The built index.html with the API's base URL in its `api-base-url` meta tag (which web/src/api.ts
 * reads). `apiBaseUrl` may be a deploy-time token. Throws when the page has no such tag: a page
 * that would call its own origin in AWS is a build mismatch, better found at synth.
 */
export function withApiBaseUrl(html: string, apiBaseUrl: string): string {
  if (!html.includes(API_BASE_META)) throw new Error(`the built index.html has no ${API_BASE_META}: rebuild the page (npm run build:web)`);
  return html.replace(API_BASE_META, `<meta name="api-base-url" content="${apiBaseUrl}">`);
}

/**
 * The hosted payment page: a private, versioned S3 bucket read only by CloudFront (origin
 * access control), HTTPS only, strict security headers. Access logs of both go to a logs bucket.
 */
export class PaymentPage extends Construct {
  readonly bucket: Bucket;
  readonly logsBucket: Bucket;
  readonly distribution: Distribution;
  /** Base URL of the page, with a trailing slash (`payment_url` appends `?id=...`). */
  readonly url: string;
  /** The page's origin, for CORS. */
  readonly origin: string;
  /** Whether the built page was found and is deployed with the stack. */
  readonly contentDeployed: boolean;
  private content?: BucketDeployment;
  private readonly contentDir: string;

  constructor(scope: Construct, id: string, props: PaymentPageProps) {
    super(scope, id);
    this.contentDir = props.contentDir;

    this.logsBucket = new Bucket(this, 'LogsBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // CloudFront standard logging still writes through ACLs.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.logsBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log bucket of the payment page; logging it into itself would loop.',
    });

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(90) }],
      serverAccessLogsBucket: this.logsBucket,
      serverAccessLogsPrefix: 's3-page-bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
      autoDeleteObjects: false,
    });

    const certificate = props.customDomain
      ? Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn)
      : undefined;
    const routing = new CloudFrontFunction(this, 'PageRouting', {
      comment: 'Extensionless page paths (the sandbox gateway) get index.html',
      code: FunctionCode.fromInline(PAGE_ROUTING_FUNCTION),
      runtime: FunctionRuntime.JS_2_0,
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Hosted payment page',
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        functionAssociations: [{ function: routing, eventType: FunctionEventType.VIEWER_REQUEST }],
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        // The page reads ?id= in the browser: one cached copy serves every order.
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.securityHeaders(props.apiOrigins),
        compress: true,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: this.logsBucket,
      logFilePrefix: 'cloudfront/',
      ...(props.customDomain && certificate
        ? {
            domainNames: [props.customDomain.domainName],
            certificate,
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
    });
    this.suppressDistributionFindings(props.customDomain !== undefined);

    const host = props.customDomain?.domainName ?? this.distribution.distributionDomainName;
    this.origin = `https://${host}`;
    this.url = `${this.origin}/`;

    this.contentDeployed = existsSync(props.contentDir);
    if (this.contentDeployed) this.deployContent(props.contentDir);
    else {
      Annotations.of(this).addWarningV2(
        'crypto-pay:payment-page-not-built',
        `No built payment page at ${props.contentDir}: the page bucket is deployed empty. Build the page, then deploy again.`,
      );
    }
  }

  /**
   * Writes the page's settings into the index.html it deploys (`<meta name="api-base-url">`),
   * so the page asks for the order at once instead of fetching a settings file first. The
   * values may be deploy-time references (the API's URL): the deployment fills them in. The
   * filled-in index.html is a second source of the same deployment, unpacked after the built
   * folder, so it replaces the built copy. Without a built page there is nothing to configure.
   */
  publishConfig(config: PaymentPageConfig): void {
    const index = join(this.contentDir, 'index.html');
    if (!this.content || !existsSync(index)) return;
    this.content.addSource(Source.data('index.html', withApiBaseUrl(readFileSync(index, 'utf8'), config.apiBaseUrl)));
  }

  private securityHeaders(apiOrigins: readonly string[]): ResponseHeadersPolicy {
    const csp = [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      // QR codes are drawn as data: images.
      "img-src 'self' data:",
      "font-src 'self'",
      `connect-src 'self' ${apiOrigins.join(' ')}`,
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; ');
    return new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Payment page: HSTS, no framing, no sniffing, strict CSP',
      securityHeadersBehavior: {
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        // The page URL carries the order id: other sites see only our origin.
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
        contentSecurityPolicy: { contentSecurityPolicy: csp, override: true },
      },
    });
  }

  private deployContent(contentDir: string): void {
    if (!existsSync(join(contentDir, 'index.html'))) {
      Annotations.of(this).addWarningV2('crypto-pay:payment-page-no-index', `${contentDir} has no index.html, the page's default root object.`);
    }
    const deployment = (this.content = new BucketDeployment(this, 'Content', {
      sources: [Source.asset(contentDir)],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 256,
    }));
    // The deployment's Lambda is a CDK-provided singleton at the stack's root; it runs only while deploying.
    const handler = Stack.of(this).node.children.find((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
    if (!handler) throw new Error('BucketDeployment created no handler function');
    acknowledgeAllFindings(
      handler,
      'AwsSolutions-IAM4',
      'The CDK BucketDeployment handler (runs only during deploys) writes its own logs with AWSLambdaBasicExecutionRole.',
    );
    acknowledgeAllFindings(
      handler,
      'AwsSolutions-IAM5',
      'The CDK BucketDeployment handler copies the page: its object wildcards cover only the CDK asset bucket and the page bucket, and CloudFront invalidations have no resource-level permissions.',
    );
    Validations.of(handler).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'The BucketDeployment handler runtime is chosen by aws-cdk-lib and moves with its upgrades; it runs only during deploys.',
    });
  }

  private suppressDistributionFindings(customDomain: boolean): void {
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Buyers pay from any country; which countries a merchant sells to is the merchant\'s decision, not the platform\'s.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'The distribution serves static files only (no forms posted to it, no origin logic); abuse of the API is limited by API Gateway throttling.',
      },
      ...(customDomain
        ? []
        : [
            {
              id: 'AwsSolutions-CFR4',
              reason:
                'Without paymentPageDomain the page uses the default *.cloudfront.net certificate, whose TLS policy cannot be chosen; set paymentPageDomain to enforce TLSv1.2_2021.',
            },
          ]),
    );
  }
}
