import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import type { FallbackHandler } from '#infra/local/http-adapter';

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
 * the page is the root of its origin).
 */
export function staticFiles(prefix: string, folder: string): FallbackHandler {
  const root = resolve(folder);
  return (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === prefix.replace(/\/$/, '')) {
      response.writeHead(301, { location: prefix });
      response.end();
      return true;
    }
    const favicon = path === '/favicon.ico';
    if (!path.startsWith(prefix) && !favicon) return false;
    let file = favicon ? join(root, 'favicon.ico') : normalize(join(root, decodeURIComponent(path.slice(prefix.length))));
    if (favicon && !existsSync(file)) return false;
    if (!file.startsWith(root)) return false;
    if (!existsSync(file) || statSync(file).isDirectory()) file = join(root, 'index.html');
    if (!existsSync(file)) {
      response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('This page has not been built: run npm run build:web.');
      return true;
    }
    response.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    if (request.method === 'HEAD') response.end();
    else createReadStream(file).pipe(response);
    return true;
  };
}
