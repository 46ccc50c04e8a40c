/**
 * Builds the merchant portal into web/portal/dist: index.html, app.js (one minified bundle
 * with @simplewebauthn/browser, no framework) and app.css. `npm run build:web` runs it with
 * the payment page's build. Served under /portal/ locally and by CloudFront in AWS.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { faviconIco } from '../favicon';

const PORTAL = fileURLToPath(new URL('.', import.meta.url));
export const PORTAL_DIST = join(PORTAL, 'dist');

/** Builds the portal into `outdir`; answers the gzipped size of its script and style. */
export async function buildPortal(outdir = PORTAL_DIST): Promise<{ scriptAndStyleGzip: number }> {
  const result = await build({
    entryPoints: { app: join(PORTAL, 'src', 'main.ts'), style: join(PORTAL, 'src', 'app.css') },
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020', 'chrome90', 'safari15', 'firefox90'],
    legalComments: 'none',
    write: false,
    outdir: '/',
    logLevel: 'silent',
  });
  const output = (name: string) => {
    const file = result.outputFiles.find((candidate) => candidate.path.endsWith(`/${name}`));
    if (!file) throw new Error(`esbuild wrote no ${name}`);
    return file.contents;
  };
  const files: Record<string, Uint8Array> = {
    'index.html': readFileSync(join(PORTAL, 'src', 'index.html')),
    'app.js': output('app.js'),
    'app.css': output('style.css'),
    'favicon.ico': faviconIco(),
  };
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  for (const [name, contents] of Object.entries(files)) writeFileSync(join(outdir, name), contents);
  return { scriptAndStyleGzip: gzipSync(files['app.js']!, { level: 9 }).byteLength + gzipSync(files['app.css']!, { level: 9 }).byteLength };
}
