import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { REPO_ROOT } from '#infra/cdk/paths';
import { CryptoPayStack } from '#infra/cdk/stack';
import { ensureTable } from '#infra/local/dynamodb';
import { LAMBDA_RUNTIME_GLOBAL_SOURCE } from '#infra/local/lambda-streaming';
import { ROUTES } from '#shared/http/routes';
import { deployConfig, logicalId, resourcesOf, serviceFunctions, TEST_ENV, testApp } from './support.ts';

/**
 * The real esbuild bundling of every function, as `cdk synth` does it (no Docker): each bundle
 * must resolve the `#shared/*` imports, be a minified ESM file with a source map, and load in
 * a fresh Node process the way a Lambda cold start does, exporting `handler`.
 */
const { app, outdir, cleanup } = testApp({ bundle: true });
// Each function is bundled as its construct is made (asset staging), the stack's template after.
const { stack, template } = withDirectEsbuild(outdir, () => {
  const made = new CryptoPayStack(app, 'Bundled', {
    env: TEST_ENV,
    config: deployConfig(),
    paymentPageDir: join(tmpdir(), 'crypto-pay-test-no-page'),
    portalDir: join(tmpdir(), 'crypto-pay-test-no-portal'),
  });
  return { stack: made, template: Template.fromStack(made) };
});
afterAll(cleanup);
const run = promisify(execFile);

/**
 * Synthesizes with CDK's local bundling calling the repository's esbuild binary directly. With
 * a package-lock.json CDK runs `npx --no-install esbuild <args>` once per function, and npm's
 * own start was most of this file's CPU (about 0.7 s for each of the 50 functions, against
 * esbuild's 0.1 s). A `npx` ahead on PATH runs exactly that command's esbuild with the same
 * arguments, and any other npx call as npx would. Only while synthesizing: the file shares its
 * process with others.
 */
function withDirectEsbuild<T>(outdir: string, synth: () => T): T {
  const bin = join(outdir, 'npx-direct-esbuild');
  mkdirSync(bin, { recursive: true });
  const realNpx = execFileSync('sh', ['-c', 'command -v npx'], { encoding: 'utf8' }).trim();
  const esbuild = join(REPO_ROOT, 'node_modules', '.bin', 'esbuild');
  writeFileSync(join(bin, 'npx'), `#!/bin/sh\nif [ "$1" = --no-install ] && [ "$2" = esbuild ]; then shift 2; exec ${JSON.stringify(esbuild)} "$@"; fi\nexec ${JSON.stringify(realNpx)} "$@"\n`);
  chmodSync(join(bin, 'npx'), 0o755);
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  try {
    return synth();
  } finally {
    process.env.PATH = path;
  }
}

const placed = serviceFunctions(stack, template);
const bundles = [...stack.functions].map(([folder, fn]) => {
  // Each function in its own stack's template (the routes' are in their nested stack).
  const functions = resourcesOf(placed.get(folder)!.template, 'AWS::Lambda::Function');
  const id = logicalId(placed.get(folder)!.stack, fn.function);
  const metadata = functions[id]?.Metadata as Record<string, string> | undefined;
  const assetPath = metadata?.['aws:asset:path'];
  if (!assetPath) throw new Error(`${folder} has no asset`);
  const variables = (functions[id]?.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
  // CloudFormation references become placeholders of the right shape (every one is a name or a URL).
  const environment = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, typeof value === 'string' ? value : `https://resolved.example/${name}`]));
  return { folder, file: join(outdir, assetPath, 'index.mjs'), environment };
});

describe('function bundles', () => {
  it.each(bundles)('$folder: a minified ESM bundle with its shared code and a source map', ({ file }) => {
    expect(existsSync(file)).toBe(true);
    expect(existsSync(`${file}.map`)).toBe(true);
    const code = readFileSync(file, 'utf8');
    expect(code.startsWith("import { createRequire as __createRequire } from 'node:module'; const require =")).toBe(true);
    // Subpath imports are resolved at build time: none may be left for the runtime.
    expect(code).not.toMatch(/["']#(shared|functions|infra)\//);
    // Minified: no indented statements (an unminified bundle has tens of thousands). Counted by
    // statement rather than by line length: some libraries carry multi-line data (the WebAuthn
    // library's attestation root certificates, in PEM) that minifying keeps as it is.
    const formatted = code.split('\n').filter((line) => /^\s{2,}(const|let|var|return|if|for|function|async|await|\}|[\w$]+\()/.test(line));
    expect(formatted.length).toBeLessThan(10);
    expect(statSync(file).size).toBeLessThan(1_500_000);
    // SSM parameters are read through the Lambda extension's local endpoint, not an SDK client.
    expect(code).not.toContain('GetParametersByPathRequest');
  });

  it("every bundle starts in a fresh Node process with its function's environment and exports a handler", async () => {
    const coldStart = async ({ file, environment }: (typeof bundles)[number]): Promise<string> => {
      // The Lambda Node.js runtime gives every function the global `awslambda` (its
      // streamifyResponse marks a handler as streaming); a streamed route's handler needs it at load.
      const script = `${LAMBDA_RUNTIME_GLOBAL_SOURCE} const { handler } = await import(${JSON.stringify(file)}); console.log(typeof handler + (handler[Symbol.for('aws.lambda.runtime.handler.streaming')] === 'response' ? ' (streaming)' : ''))`;
      try {
        const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
          // Exactly the variables the stack sets (references made concrete); no credentials,
          // so a module that called AWS while loading would fail here.
          env: { PATH: process.env.PATH, AWS_REGION: TEST_ENV.region, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...environment },
          timeout: 30_000,
        });
        return stdout.trim();
      } catch (error) {
        const stderr = (error as { stderr?: string }).stderr ?? String(error);
        return `failed: ${stderr.split('\n').find((line) => /Error/.test(line)) ?? stderr}`;
      }
    };
    const started = await Promise.all(bundles.map(async (bundle) => [bundle.folder, await coldStart(bundle)] as const));
    const streaming = new Set(ROUTES.filter((route) => route.stream).map((route) => route.fn));
    expect(Object.fromEntries(started)).toEqual(Object.fromEntries(bundles.map(({ folder }) => [folder, streaming.has(folder) ? 'function (streaming)' : 'function'])));
  });

  it('bundles only the environment credential provider, not the default chain and its SSO/STS clients', () => {
    for (const { folder, file } of bundles) {
      const code = readFileSync(file, 'utf8');
      expect(code, folder).not.toMatch(/AssumeRoleWithWebIdentity|sso-oidc|fromTokenFile/);
    }
  });

  it('a bundle reaches DynamoDB with the credentials Lambda puts in the environment (expire-orders against DynamoDB Local)', async () => {
    const bundle = bundles.find(({ folder }) => folder === 'expire-orders')!;
    // A table of its own: in the shared one the sweep and the numbering would work through every
    // other test's orders (up to the numbering's 35 s budget, past this test's timeout).
    const table = `bundling-${process.pid}`;
    await ensureTable(inject('dynamodbEndpoint'), table, { stream: false });
    const script = `const { handler } = await import(${JSON.stringify(bundle.file)}); console.log(JSON.stringify(await handler()));`;
    const env = {
      PATH: process.env.PATH,
      AWS_REGION: TEST_ENV.region,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...bundle.environment,
      TABLE_NAME: table,
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    };
    const withCredentials = await run(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...env, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_SESSION_TOKEN: 'local' },
      timeout: 30_000,
    });
    expect(JSON.parse(withCredentials.stdout.trim().split('\n').at(-1)!)).toEqual({ expired: 0, numbered: 0, renewals: 0, refundsWaiting: 0 });
    // Without them nothing else is tried (no profile files, no instance metadata): a clear error.
    const without = await run(process.execPath, ['--input-type=module', '-e', script], { env, timeout: 30_000 }).then(
      () => 'resolved',
      (error: { stderr?: string }) => error.stderr ?? '',
    );
    expect(without).toMatch(/Unable to find environment variable credentials|CredentialsProviderError/);
  });
});
