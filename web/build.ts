/**
 * Builds the hosted payment page into web/dist: index.html, app.js (one minified bundle, no
 * framework), app.css and favicon.ico. `npm run build:web` runs it (and `npm start`, the tests and the
 * deploy run it first); it prints the page's size, gzipped as browsers download it.
 *
 * The local runtime answers every unknown path under /pay/ with index.html, so the sandbox
 * gateway's links (/pay/sandbox-gateway/<name>) get the page too; its relative `app.js` and
 * `app.css` then resolve under sandbox-gateway/, where two one-line stubs load the real ones.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { faviconIco } from './favicon';

const WEB = fileURLToPath(new URL('.', import.meta.url));
const SOURCE = join(WEB, 'src');
export const PAGE_DIST = join(WEB, 'dist');

export interface PageSize {
  /** Bytes of each file as served. */
  bytes: Record<string, number>;
  /** Bytes of each file gzipped (level 9, as CloudFront and most servers compress). */
  gzip: Record<string, number>;
  /** app.js + app.css, gzipped: the page's weight (goal: under 50 KB). */
  scriptAndStyleGzip: number;
}

const FILES = ['index.html', 'app.js', 'app.css'] as const;

/** sandbox-gateway/app.js and app.css: the page's own files, one folder up (no second copy). */
const GATEWAY_SCRIPT_STUB =
  "(function(){var s=document.createElement('script');s.src=new URL('../app.js',document.currentScript.src).href;document.head.appendChild(s)})();\n";
const GATEWAY_STYLE_STUB = '@import url("../app.css");\n';

/** Builds the page into `outdir` (web/dist by default), replacing what was there. */
export async function buildPage(outdir = PAGE_DIST): Promise<PageSize> {
  const result = await build({
    entryPoints: { app: join(SOURCE, 'main.ts'), style: join(SOURCE, 'app.css') },
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020', 'chrome90', 'safari15', 'firefox90'],
    legalComments: 'none',
    write: false,
    outdir: '/',
    // From the service (#shared/...) the page imports types, which esbuild drops, and the
    // currency table (shared/domain/currencies.ts), which it bundles.
    logLevel: 'silent',
  });
  const output = (name: string) => {
    const file = result.outputFiles.find((candidate) => candidate.path.endsWith(`/${name}`));
    if (!file) throw new Error(`esbuild wrote no ${name}`);
    return file.contents;
  };
  const contents: Record<(typeof FILES)[number], Uint8Array> = {
    'index.html': readFileSync(join(SOURCE, 'index.html')),
    'app.js': output('app.js'),
    'app.css': output('style.css'),
  };
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(join(outdir, 'sandbox-gateway'), { recursive: true });
  for (const name of FILES) writeFileSync(join(outdir, name), contents[name]);
  writeFileSync(join(outdir, 'sandbox-gateway', 'app.js'), GATEWAY_SCRIPT_STUB);
  writeFileSync(join(outdir, 'sandbox-gateway', 'app.css'), GATEWAY_STYLE_STUB);
  // Browsers ask for /favicon.ico at the origin's root: the page's root in AWS, served there
  // by the local runtime too (infra/local/static-files.ts).
  writeFileSync(join(outdir, 'favicon.ico'), faviconIco());

  const bytes: Record<string, number> = {};
  const gzip: Record<string, number> = {};
  for (const name of FILES) {
    bytes[name] = contents[name].byteLength;
    gzip[name] = gzipSync(contents[name], { level: 9 }).byteLength;
  }
  return { bytes, gzip, scriptAndStyleGzip: (gzip['app.js'] ?? 0) + (gzip['app.css'] ?? 0) };
}

/** One line per file and the total, e.g. for `npm run build:web` and the bench output. */
export function describeSize(size: PageSize): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const lines = FILES.map((name) => `  ${name.padEnd(10)} ${kb(size.bytes[name] ?? 0).padStart(8)}  (gzip ${kb(size.gzip[name] ?? 0)})`);
  return [...lines, `  JS + CSS gzipped: ${kb(size.scriptAndStyleGzip)} (goal: under 50 KB)`].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const size = await buildPage();
  console.log(`Built the payment page into web/dist:\n${describeSize(size)}`);
  const { buildPortal } = await import('./portal/build');
  const portal = await buildPortal();
  console.log(`Built the merchant portal into web/portal/dist: JS + CSS gzipped ${(portal.scriptAndStyleGzip / 1024).toFixed(1)} KB`);
}
