/**
 * Each Lambda's bundle, built the way the CDK construct builds it (infra/cdk/constructs/
 * service-function.ts: NodejsFunction with the local esbuild), and its cold module-load time
 * in fresh node processes with the environment the function gets in AWS.
 */
import { spawn } from 'node:child_process';
import { LAMBDA_RUNTIME_GLOBAL_SOURCE } from '#infra/local/lambda-streaming';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { LAMBDA_BUNDLE_ALIASES } from '#infra/cdk/bundling';
import { median, round2 } from './stats';

const REPO_ROOT = new URL('../', import.meta.url).pathname;
const CONSTRUCT = join(REPO_ROOT, 'infra/cdk/constructs/service-function.ts');

export interface BundleFigures {
  function: string;
  /** index.mjs as Lambda receives it (minified, the require banner included, no source map). */
  minified_bytes: number;
  gzip_bytes: number;
  /** The source map shipped beside it (index.mjs.map). */
  sourcemap_bytes: number;
  /** What the minified bytes are made of: the five largest packages (or our own folders). */
  largest_parts: { part: string; bytes: number }[];
  /** import() of the bundle in a fresh node process, ms. */
  load_ms: { median: number; min: number; max: number; runs: number[] };
}

export interface BundleReport {
  bundles: BundleFigures[];
  /** The esbuild options used, as read from the CDK construct. */
  esbuild: { target: string; format: 'esm'; platform: 'node'; minify: true; sourcemap: true; mainFields: string[]; banner: string; external: string[]; alias: Record<string, string> };
  load_node: string;
  load_env_note: string;
  goals: { minified_bytes_max: number; load_ms_max: number };
}

/** Defaults equal to the construct today; used only for a field the construct no longer spells this way. */
const DEFAULTS = {
  banner: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  target: 'node22',
  mainFields: ['module', 'main'],
};

/**
 * The bundling options of the construct, read from its source so the bench follows it. It
 * refuses (throws) when the construct bundles differently from what this bench can copy.
 */
export function constructBundlingOptions(source = readFileSync(CONSTRUCT, 'utf8')): BundleReport['esbuild'] {
  const bundling = source.slice(source.indexOf('bundling:'));
  const requireSetting = (pattern: RegExp, what: string) => {
    if (!pattern.test(bundling)) throw new Error(`bench/bundles.ts: the CDK construct no longer sets ${what}; update the bench to bundle as it does`);
  };
  requireSetting(/format:\s*OutputFormat\.ESM/, 'format ESM');
  requireSetting(/minify:\s*true/, 'minify: true');
  requireSetting(/sourceMap:\s*true/, 'sourceMap: true');
  // With bundleAwsSDK the SDK is bundled and nothing is external; externalModules would change that.
  requireSetting(/bundleAwsSDK:\s*true/, 'bundleAwsSDK: true');
  // The only esbuildArgs it may pass are the shared aliases (infra/cdk/bundling.ts), copied below.
  requireSetting(/esbuildArgs:\s*aliasArgs\(\)/, 'esbuildArgs: aliasArgs()');
  if (/externalModules|nodeModules|define:|keepNames|loader:/.test(bundling)) {
    throw new Error('bench/bundles.ts: the CDK construct sets bundling options this bench does not copy; update the bench');
  }
  const banner = /banner:\s*(["'])((?:(?!\1).)*)\1/.exec(bundling)?.[2] ?? DEFAULTS.banner;
  const target = /target:\s*'([^']+)'/.exec(bundling)?.[1] ?? DEFAULTS.target;
  const fields = /mainFields:\s*\[([^\]]*)\]/.exec(bundling)?.[1];
  const mainFields = fields ? [...fields.matchAll(/'([^']+)'/g)].map((m) => m[1]!) : DEFAULTS.mainFields;
  return { target, format: 'esm', platform: 'node', minify: true, sourcemap: true, mainFields, banner, external: [], alias: { ...LAMBDA_BUNDLE_ALIASES } };
}

/** Every function folder with a handler.ts (the CDK stack makes one Lambda of each). */
export function functionFolders(): string[] {
  const root = join(REPO_ROOT, 'functions');
  return readdirSync(root)
    .filter((name) => statSync(join(root, name)).isDirectory() && existsSync(join(root, name, 'handler.ts')))
    .sort();
}

/** The environment a function has at load in AWS (the stack's variables), with local values. */
export function lambdaEnvironment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    TABLE_NAME: 'bench-bundles',
    PAYMENT_PAGE_URL: 'https://pay.example.com/pay/',
    CALLBACK_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-callbacks',
    CALLBACK_DLQ_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-callbacks-dlq',
    POWERTOOLS_SERVICE_NAME: 'crypto-pay-orders',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    // As the construct sets it: Node then reads the bundle's source map at load.
    NODE_OPTIONS: '--enable-source-maps',
  };
}

/** Output bytes by package (node_modules/<package>) or by our top folder (shared/..., functions/...). */
function largestParts(metafile: Metafile): { part: string; bytes: number }[] {
  const parts = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
      const part = pkg ?? path.split('/').slice(0, 2).join('/');
      parts.set(part, (parts.get(part) ?? 0) + input.bytesInOutput);
    }
  }
  return [...parts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([part, bytes]) => ({ part, bytes }));
}

/** One fresh node process: import() the bundle, report how long it took. */
export function timeImport(file: string): Promise<number> {
  // The Lambda runtime's global first (a streamed route's handler needs it at load), outside the timing.
  const script = `${LAMBDA_RUNTIME_GLOBAL_SOURCE} const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write('LOAD_MS=' + (performance.now() - t));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: lambdaEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = /LOAD_MS=([\d.]+)/.exec(out)?.[1];
      if (code !== 0 || ms === undefined) reject(new Error(`loading ${file} failed (exit ${code}):\n${err.slice(-2000)}`));
      else resolve(Number(ms));
    });
  });
}

/**
 * One bundle as NodejsFunction builds it (esbuild --bundle <entry> --target --platform=node
 * --format=esm --minify --sourcemap --sources-content=false --banner:js --main-fields --alias,
 * from the project root), with its metafile; `input` names the entry (or stdin), the output and
 * any plugins.
 */
export function buildAsLambda(input: Pick<BuildOptions, 'entryPoints' | 'stdin' | 'outfile' | 'plugins'>, options = constructBundlingOptions()) {
  return build({
    absWorkingDir: REPO_ROOT,
    ...input,
    bundle: true,
    platform: options.platform,
    target: options.target,
    format: options.format,
    minify: options.minify,
    treeShaking: true,
    sourcemap: options.sourcemap,
    sourcesContent: false,
    mainFields: options.mainFields,
    banner: { js: options.banner },
    external: options.external,
    alias: options.alias,
    logLevel: 'silent',
    metafile: true,
  });
}

export async function measureBundles(loadRuns: number): Promise<BundleReport> {
  const options = constructBundlingOptions();
  const folders = functionFolders();
  const outDir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    const outfile = (fn: string) => join(outDir, fn, 'index.mjs');
    // As NodejsFunction runs it: esbuild --bundle <entry> --target --platform=node --format=esm
    // --minify --sourcemap --sources-content=false --banner:js --main-fields --alias, from the project root.
    const metafiles = new Map<string, Metafile>();
    await Promise.all(
      folders.map(async (fn) => {
        const built = await buildAsLambda({ entryPoints: [join(REPO_ROOT, 'functions', fn, 'handler.ts')], outfile: outfile(fn) }, options);
        metafiles.set(fn, built.metafile);
      }),
    );
    // Round robin over the bundles, so drift of the shared machine falls on all alike.
    const runs = new Map<string, number[]>(folders.map((fn) => [fn, []]));
    for (let round = 0; round < loadRuns; round += 1) {
      for (const fn of folders) runs.get(fn)!.push(await timeImport(outfile(fn)));
    }
    const bundles = folders.map((fn): BundleFigures => {
      const code = readFileSync(outfile(fn));
      const samples = runs.get(fn)!;
      return {
        function: fn,
        minified_bytes: code.length,
        gzip_bytes: gzipSync(code, { level: 9 }).length,
        sourcemap_bytes: statSync(`${outfile(fn)}.map`).size,
        largest_parts: largestParts(metafiles.get(fn)!),
        load_ms: { median: round2(median(samples)), min: round2(Math.min(...samples)), max: round2(Math.max(...samples)), runs: samples.map(round2) },
      };
    });
    return {
      bundles,
      esbuild: options,
      load_node: process.version,
      load_env_note:
        "fresh `node --input-type=module` per run with the function's AWS environment (TABLE_NAME, PAYMENT_PAGE_URL, CALLBACK_QUEUE_URL, AWS_REGION, NODE_OPTIONS=--enable-source-maps); import() time only, not node start-up",
      goals: { minified_bytes_max: 250 * 1024, load_ms_max: 100 },
    };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
