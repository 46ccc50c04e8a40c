/**
 * Builds every web app in one esbuild run: the hosted payment page (web/src into web/dist) and
 * the merchant portal (web/portal/src into web/portal/dist). Each gets index.html, app.js (one
 * minified bundle, no framework; the portal's carries @simplewebauthn/browser), app.css (its
 * app.css with web/common/base.css) and favicon.ico. `npm run build:web` runs it (and
 * `npm start`, the tests and the deploy run it first); it prints each app's size, gzipped as
 * browsers download it. A new app is one more entry of {@link WEB_APPS}.
 *
 * The local runtime answers every unknown path under /pay/ with index.html, so the sandbox
 * gateway's links (/pay/sandbox-gateway/<name>) get the page too; its relative `app.js` and
 * `app.css` then resolve under sandbox-gateway/, where two one-line stubs load the real ones.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { faviconIco } from './favicon';

const WEB = fileURLToPath(new URL('.', import.meta.url));

/** One web app: where its sources are, where it is built, and what else its folder holds. */
export interface WebApp {
  /** Its folder of sources (main.ts, app.css, index.html), under web/. */
  source: string;
  /** Where it is built, under web/ (what the local runtime serves and the stack deploys). */
  dist: string;
  /** More files, by path in the built folder. */
  extra?: Record<string, string>;
}

/** sandbox-gateway/app.js and app.css: the page's own files, one folder up (no second copy). */
const GATEWAY_SCRIPT_STUB = "(function(){var s=document.createElement('script');s.src=new URL('../app.js',document.currentScript.src).href;document.head.appendChild(s)})();\n";
const GATEWAY_STYLE_STUB = '@import url("../app.css");\n';

export const WEB_APPS = {
  page: { source: 'src', dist: 'dist', extra: { 'sandbox-gateway/app.js': GATEWAY_SCRIPT_STUB, 'sandbox-gateway/app.css': GATEWAY_STYLE_STUB } },
  portal: { source: 'portal/src', dist: 'portal/dist' },
} as const satisfies Record<string, WebApp>;
export type WebAppName = keyof typeof WEB_APPS;

export interface AppSize {
  /** Bytes of each file as served. */
  bytes: Record<string, number>;
  /** Bytes of each file gzipped (level 9, as CloudFront and most servers compress). */
  gzip: Record<string, number>;
  /** app.js + app.css, gzipped: the app's weight (goal: under 50 KB). */
  scriptAndStyleGzip: number;
}

const FILES = ['index.html', 'app.js', 'app.css'] as const;

/** Builds every app (into `outdirs[name]`, by default web/<dist>), replacing what was there. */
export async function buildWeb(outdirs: Partial<Record<WebAppName, string>> = {}): Promise<Record<WebAppName, AppSize>> {
  const apps = Object.entries(WEB_APPS) as [WebAppName, WebApp][];
  const result = await build({
    entryPoints: Object.fromEntries(
      apps.flatMap(([name, app]) => [
        [`${name}/app`, join(WEB, app.source, 'main.ts')],
        [`${name}/style`, join(WEB, app.source, 'app.css')],
      ]),
    ),
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020', 'chrome90', 'safari15', 'firefox90'],
    legalComments: 'none',
    write: false,
    outdir: '/',
    // From the service (#shared/...) the apps import types, which esbuild drops, and the
    // currency table (shared/domain/currencies.ts), which it bundles.
    logLevel: 'silent',
  });
  const output = (path: string) => {
    const file = result.outputFiles.find((candidate) => candidate.path.endsWith(`/${path}`));
    if (!file) throw new Error(`esbuild wrote no ${path}`);
    return file.contents;
  };
  const sizes = {} as Record<WebAppName, AppSize>;
  for (const [name, app] of apps) {
    const contents: Record<(typeof FILES)[number], Uint8Array> = {
      'index.html': readFileSync(join(WEB, app.source, 'index.html')),
      'app.js': output(`${name}/app.js`),
      'app.css': output(`${name}/style.css`),
    };
    const outdir = outdirs[name] ?? join(WEB, app.dist);
    rmSync(outdir, { recursive: true, force: true });
    // Browsers ask for /favicon.ico at the origin's root: each app's root in AWS, served there
    // by the local runtime too (infra/local/static-files.ts).
    const files: Record<string, string | Uint8Array> = { ...contents, 'favicon.ico': faviconIco(), ...app.extra };
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(outdir, path)), { recursive: true });
      writeFileSync(join(outdir, path), content);
    }
    const bytes: Record<string, number> = {};
    const gzip: Record<string, number> = {};
    for (const file of FILES) {
      bytes[file] = contents[file].byteLength;
      gzip[file] = gzipSync(contents[file], { level: 9 }).byteLength;
    }
    sizes[name] = { bytes, gzip, scriptAndStyleGzip: (gzip['app.js'] ?? 0) + (gzip['app.css'] ?? 0) };
  }
  return sizes;
}

/** One line per file and the total, e.g. for `npm run build:web`. */
export function describeSize(size: AppSize): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const lines = FILES.map((name) => `  ${name.padEnd(10)} ${kb(size.bytes[name] ?? 0).padStart(8)}  (gzip ${kb(size.gzip[name] ?? 0)})`);
  return [...lines, `  JS + CSS gzipped: ${kb(size.scriptAndStyleGzip)} (goal: under 50 KB)`].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const sizes = await buildWeb();
  for (const [name, size] of Object.entries(sizes)) console.log(`Built ${name} into web/${WEB_APPS[name as WebAppName].dist}:\n${describeSize(size)}`);
}
