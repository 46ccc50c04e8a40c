import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { type CustomDomain, StaticSite } from '#infra/cdk/constructs/static-site';
import { siteSecurityHeaders } from '#shared/core/site-headers';

/** What the deployed page is told, in its index.html (`<meta name="api-base-url">`; in AWS only). */
export interface PaymentPageConfig {
  /** Base URL of the API the page calls (`<apiBaseUrl>v1/pay/...`); locally the page calls its own origin. */
  readonly apiBaseUrl: string;
}

export interface PaymentPageProps {
  /** The built page. Deployed only if the folder exists at synth time. */
  readonly contentDir: string;
  /** Serve the page on this domain (certificate in us-east-1) instead of the CloudFront name. */
  readonly customDomain?: CustomDomain;
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
 * The hosted payment page: a {@link StaticSite} at the distribution's root, whose scripts may
 * call the API's origin, and whose index.html is told the API's URL at deploy.
 */
export class PaymentPage extends StaticSite {
  /** Base URL of the page, with a trailing slash (`payment_url` appends `?id=...`). */
  readonly url: string;

  constructor(scope: Construct, id: string, props: PaymentPageProps) {
    super(scope, id, {
      title: 'payment page',
      comment: 'Hosted payment page',
      contentDir: props.contentDir,
      path: '/',
      routing: { id: 'PageRouting', comment: 'Extensionless page paths (the sandbox gateway) get index.html', code: PAGE_ROUTING_FUNCTION },
      accessLogsPrefix: 's3-page-bucket/',
      // Its scripts call the API's origin.
      headers: siteSecurityHeaders('page', props.apiOrigins),
      ...(props.customDomain ? { customDomain: props.customDomain } : {}),
      nagReasons: {
        geoRestriction: "Buyers pay from any country; which countries a merchant sells to is the merchant's decision, not the platform's.",
        waf: 'The distribution serves static files only (no forms posted to it, no origin logic); abuse of the API is limited by API Gateway throttling.',
      },
      domainSetting: 'paymentPageDomain',
    });
    this.url = `${this.origin}/`;
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
}
