import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { type FallbackHandler, requestUrl, send } from '#infra/local/http-adapter';
import { securityHeaderFields, siteSecurityHeaders, type SiteName } from '#shared/core/site-headers';
import { MalformedRequestError } from '#shared/http/request-errors';
import { errorResponse } from '#shared/http/errors';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
};

/**
 * Serves a folder of static files under a URL prefix, like the S3/CloudFront page in AWS:
 * unknown paths under the prefix get index.html (the page reads the order id from the URL).
 * The folder's favicon.ico is also served at /favicon.ico, where browsers ask for it (in AWS
 * the page is the root of its origin). Every answer carries the site's security headers, the
 * set its CloudFront adds in AWS (shared/core/site-headers.ts), so the app runs under its CSP here too.
 */
export function staticFiles(prefix: string, folder: string, site: SiteName): FallbackHandler {
  const root = resolve(folder);
  // Locally the apps call their own origin only (in AWS the page also calls the API's).
  const headers = securityHeaderFields(siteSecurityHeaders(site));
  return (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    const path = requestUrl(request).pathname;
    if (path === prefix.replace(/\/$/, '')) {
      response.writeHead(301, { ...headers, location: prefix });
      response.end();
      return true;
    }
    const favicon = path === '/favicon.ico';
    if (!path.startsWith(prefix) && !favicon) return false;
    let name: string;
    try {
      name = decodeURIComponent(path.slice(prefix.length));
    } catch {
      // `/pay/%ff`: not percent-encoded UTF-8, so it names no file; a JSON 400 like the API's.
      send(response, errorResponse(new MalformedRequestError('the path is not percent-encoded UTF-8')));
      return true;
    }
    let file = favicon ? join(root, 'favicon.ico') : normalize(join(root, name));
    if (favicon && !existsSync(file)) return false;
    if (!file.startsWith(root)) return false;
    if (!existsSync(file) || statSync(file).isDirectory()) file = join(root, 'index.html');
    if (!existsSync(file)) {
      response.writeHead(503, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
      response.end('This page has not been built: run npm run build:web.');
      return true;
    }
    response.writeHead(200, {
      ...headers,
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
    });
    if (request.method === 'HEAD') response.end();
    else createReadStream(file).pipe(response);
    return true;
  };
}
