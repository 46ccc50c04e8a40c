/**
 * The security headers of the web apps' answers (the payment page, the merchant portal),
 * declared once. In AWS each site's CloudFront response headers policy is made from them
 * (infra/cdk/constructs/static-site.ts); locally `npm start` serves the same on every static
 * answer (infra/local/static-files.ts), so the apps run under the CSP they have in AWS.
 */

/** The web apps, as their sites are named here. */
export type SiteName = 'page' | 'portal';

/** The headers a site sends, in the shape CloudFront's policy takes them. */
export interface SiteSecurityHeaders {
  readonly strictTransportSecurity: { readonly maxAgeSeconds: number; readonly includeSubdomains: boolean };
  readonly contentTypeOptions: 'nosniff';
  readonly frameOptions: 'DENY';
  readonly referrerPolicy: 'strict-origin-when-cross-origin' | 'no-referrer';
  readonly contentSecurityPolicy: string;
}

/** Two years, HSTS preload's own minimum being one. */
const HSTS_MAX_AGE_SECONDS = 730 * 86_400;

/**
 * The page's URL carries the order id: other sites see only the origin. The portal's URLs
 * carry invite tokens: other sites see nothing.
 */
const REFERRER_POLICY: Record<SiteName, SiteSecurityHeaders['referrerPolicy']> = {
  page: 'strict-origin-when-cross-origin',
  portal: 'no-referrer',
};

/**
 * A site's headers. `connectOrigins`: the origins its scripts may call besides its own (the
 * payment page's API in AWS; none locally, where the apps call their own origin). The CSP
 * allows only the site's own scripts and styles, images also as data: URLs (the QR code).
 */
export function siteSecurityHeaders(site: SiteName, connectOrigins: readonly string[] = []): SiteSecurityHeaders {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${["'self'", ...connectOrigins].join(' ')}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    strictTransportSecurity: { maxAgeSeconds: HSTS_MAX_AGE_SECONDS, includeSubdomains: true },
    contentTypeOptions: 'nosniff',
    frameOptions: 'DENY',
    referrerPolicy: REFERRER_POLICY[site],
    contentSecurityPolicy: csp,
  };
}

/**
 * The headers as HTTP fields (lower-case names), written as CloudFront writes them. Over plain
 * HTTP (`npm start`) browsers ignore Strict-Transport-Security (RFC 6797 8.1): it is sent anyway,
 * so the set is the same everywhere.
 */
export function securityHeaderFields(headers: SiteSecurityHeaders): Record<string, string> {
  const hsts = headers.strictTransportSecurity;
  return {
    'strict-transport-security': `max-age=${hsts.maxAgeSeconds}${hsts.includeSubdomains ? '; includeSubDomains' : ''}`,
    'x-content-type-options': headers.contentTypeOptions,
    'x-frame-options': headers.frameOptions,
    'referrer-policy': headers.referrerPolicy,
    'content-security-policy': headers.contentSecurityPolicy,
  };
}
