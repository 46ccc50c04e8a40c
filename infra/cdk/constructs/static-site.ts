import { existsSync } from 'node:fs';
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
import type { SiteSecurityHeaders } from '#shared/core/site-headers';

/** A domain of the site's own (its certificate in us-east-1); default: the CloudFront name. */
export interface CustomDomain {
  readonly domainName: string;
  readonly certificateArn: string;
}

export interface StaticSiteProps {
  /** What the site is, in warnings and the headers policy's comment ("payment page", "merchant portal"). */
  readonly title: string;
  /** The distribution's comment (what the console lists it as). */
  readonly comment: string;
  /** The built web app (web/build.ts's output). Deployed only if the folder exists at synth time. */
  readonly contentDir: string;
  /** Where the files go, in the bucket and in URLs (`/` or e.g. `/portal/`). */
  readonly path: string;
  /** The site's CloudFront viewer-request function: extensionless app paths get index.html. */
  readonly routing: { readonly id: string; readonly comment: string; readonly code: string };
  /** Prefix of the bucket's S3 access logs in the logs bucket. */
  readonly accessLogsPrefix: string;
  /** The site's security headers (shared/core/site-headers.ts: the local runtime serves the same). */
  readonly headers: SiteSecurityHeaders;
  readonly customDomain?: CustomDomain;
  /** Why the distribution has no geo restriction (CFR1) and no WAF (CFR2), for cdk-nag. */
  readonly nagReasons: { readonly geoRestriction: string; readonly waf: string };
  /** The config setting that gives the site its own domain (named in the CFR4 acknowledgement). */
  readonly domainSetting: string;
}

/**
 * One static web app on CloudFront: a private, versioned S3 bucket read only by its
 * distribution (origin access control), HTTPS only, strict security headers (HSTS, no framing,
 * no sniffing, a CSP that allows only the site's own scripts and styles), a viewer-request
 * routing function, access logs of bucket and distribution in a logs bucket, and the built
 * folder deployed with the stack (the cache invalidated). The payment page and the merchant
 * portal are this construct, each with its own settings (payment-page.ts, merchant-portal.ts);
 * the portal adds its API's behaviors to the distribution.
 */
export class StaticSite extends Construct {
  readonly bucket: Bucket;
  readonly logsBucket: Bucket;
  readonly distribution: Distribution;
  /** The security headers of every answer (the portal's API behaviors use them too). */
  readonly headers: ResponseHeadersPolicy;
  /** `https://<domain>`. */
  readonly origin: string;
  /** Whether the built app was found and is deployed with the stack. */
  readonly contentDeployed: boolean;
  protected readonly content?: BucketDeployment;
  protected readonly contentDir: string;

  constructor(scope: Construct, id: string, props: StaticSiteProps) {
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
      reason: `This is the access-log bucket of the ${props.title}; logging it into itself would loop.`,
    });

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(90) }],
      serverAccessLogsBucket: this.logsBucket,
      serverAccessLogsPrefix: props.accessLogsPrefix,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const certificate = props.customDomain ? Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn) : undefined;
    const routing = new CloudFrontFunction(this, props.routing.id, {
      comment: props.routing.comment,
      code: FunctionCode.fromInline(props.routing.code),
      runtime: FunctionRuntime.JS_2_0,
    });
    this.headers = this.securityHeaders(props.title, props.headers);
    this.distribution = new Distribution(this, 'Distribution', {
      comment: props.comment,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        functionAssociations: [{ function: routing, eventType: FunctionEventType.VIEWER_REQUEST }],
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        // The apps read their parameters in the browser: one cached copy serves everyone.
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.headers,
        compress: true,
      },
      ...(props.path === '/' ? { defaultRootObject: 'index.html' } : {}),
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: this.logsBucket,
      logFilePrefix: 'cloudfront/',
      ...(props.customDomain && certificate ? { domainNames: [props.customDomain.domainName], certificate, minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021 } : {}),
    });
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: props.nagReasons.geoRestriction },
      { id: 'AwsSolutions-CFR2', reason: props.nagReasons.waf },
      ...(props.customDomain
        ? []
        : [
            {
              id: 'AwsSolutions-CFR4',
              reason: `Without ${props.domainSetting} the default *.cloudfront.net certificate is used, whose TLS policy cannot be chosen; set ${props.domainSetting} to enforce TLSv1.2_2021.`,
            },
          ]),
    );
    this.origin = `https://${props.customDomain?.domainName ?? this.distribution.distributionDomainName}`;

    this.contentDeployed = existsSync(props.contentDir);
    if (this.contentDeployed) this.content = this.deployContent(props);
    else {
      Annotations.of(this).addWarningV2(
        `crypto-pay:${props.title.replaceAll(' ', '-')}-not-built`,
        `No built ${props.title} at ${props.contentDir}: its bucket is deployed empty. Build it (npm run build:web), then deploy again.`,
      );
    }
  }

  /** The declared headers as CloudFront's policy: exactly those, each overriding the origin's. */
  private securityHeaders(title: string, headers: SiteSecurityHeaders): ResponseHeadersPolicy {
    const frameOption = { DENY: HeadersFrameOption.DENY }[headers.frameOptions];
    const referrerPolicy = { 'strict-origin-when-cross-origin': HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, 'no-referrer': HeadersReferrerPolicy.NO_REFERRER }[headers.referrerPolicy];
    return new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: `${title[0]!.toUpperCase()}${title.slice(1)}: HSTS, no framing, no sniffing, strict CSP`,
      securityHeadersBehavior: {
        strictTransportSecurity: {
          accessControlMaxAge: Duration.seconds(headers.strictTransportSecurity.maxAgeSeconds),
          includeSubdomains: headers.strictTransportSecurity.includeSubdomains,
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption, override: true },
        referrerPolicy: { referrerPolicy, override: true },
        contentSecurityPolicy: { contentSecurityPolicy: headers.contentSecurityPolicy, override: true },
      },
    });
  }

  private deployContent(props: StaticSiteProps): BucketDeployment {
    if (!existsSync(join(props.contentDir, 'index.html'))) {
      Annotations.of(this).addWarningV2('crypto-pay:site-no-index', `${props.contentDir} has no index.html, the ${props.title}'s page.`);
    }
    const deployment = new BucketDeployment(this, 'Content', {
      sources: [Source.asset(props.contentDir)],
      destinationBucket: this.bucket,
      ...(props.path === '/' ? {} : { destinationKeyPrefix: props.path.slice(1) }),
      distribution: this.distribution,
      distributionPaths: [`${props.path}*`],
      memoryLimit: 256,
    });
    // The deployment's Lambda is a CDK-provided singleton at the stack's root (one for both
    // sites); it runs only while deploying.
    const handler = Stack.of(this).node.children.find((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
    if (!handler) throw new Error('BucketDeployment created no handler function');
    acknowledgeAllFindings(handler, 'AwsSolutions-IAM4', 'The CDK BucketDeployment handler (runs only during deploys) writes its own logs with AWSLambdaBasicExecutionRole.');
    acknowledgeAllFindings(
      handler,
      'AwsSolutions-IAM5',
      'The CDK BucketDeployment handler copies the sites: its object wildcards cover only the CDK asset bucket and the site buckets, and CloudFront invalidations have no resource-level permissions.',
    );
    Validations.of(handler).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'The BucketDeployment handler runtime is chosen by aws-cdk-lib and moves with its upgrades; it runs only during deploys.',
    });
    return deployment;
  }
}
