import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SETTINGS } from '#infra/cdk/config';
import { REPO_ROOT } from '#infra/cdk/paths';
import { ensureTable } from '#infra/local/dynamodb';
import { ALL_SETTINGS } from '#shared/payments/setting-families';

/**
 * docs/deploy.md's commands, run as far as they run without an AWS account (issue 29): every
 * `npm run deploy` example's settings together go through the real `cdk synth` (the CLI of
 * package.json, offline; the functions are not bundled, tests/infra/synth-app.ts), and the
 * guide's other commands are checked against what it synthesized: each `aws ssm put-parameter`
 * names a parameter some function may read, each `<X output>` is an output of the stack, the
 * outputs table lists the stack's outputs, and the first-merchant command runs against DynamoDB
 * Local with the names the stack uses.
 */
const run = promisify(execFile);
const GUIDE = readFileSync(join(REPO_ROOT, 'docs', 'deploy.md'), 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
].map((file) => ({
  file,
  text: readFileSync(join(REPO_ROOT, file), 'utf8'),
}));

/** The shell commands of a Markdown text: its sh blocks, continuation lines joined, and its inline `aws ...` commands. */
function commandsOf(text: string): string[] {
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((match) => match[1]!.replace(/\\\n\s*/g, ' ').split('\n'));
  const inline = [...text.replace(/\n\s*/g, ' ').matchAll(/`(aws [^`]+)`/g)].map((match) => match[1]!);
  return [...blocks, ...inline].map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line !== '');
}

/** `A=1 B=2 npm run deploy -- -c k=v`: the leading variables and the context. */
function settingsOf(command: string): { env: Record<string, string>; context: Record<string, string> } {
  const [before, after = ''] = command.split(/\bnpm run deploy\b/);
  const env = Object.fromEntries([...before!.matchAll(/\b([A-Z][A-Z0-9_]*)=(<[^>]+>|\S+)/g)].map((match) => [match[1]!, match[2]!]));
  const context = Object.fromEntries([...after.matchAll(/-c ([A-Za-z0-9]+)=(\S+)/g)].map((match) => [match[1]!, match[2]!]));
  return { env, context };
}

/** The guide's placeholders made concrete: `certificate/...`. */
const concrete = (value: string): string => value.replace(/certificate\/\.\.\.$/, 'certificate/0b1c2d3e-aaaa-bbbb-cccc-0123456789ab');

const deploys = commandsOf(GUIDE).filter((command) => /\bnpm run deploy\b/.test(command));
const given = deploys.map(settingsOf).reduce((all, { env, context }) => ({ env: { ...all.env, ...env }, context: { ...all.context, ...context } }), {
  env: {} as Record<string, string>,
  context: {} as Record<string, string>,
});

const outdir = mkdtempSync(join(tmpdir(), 'cdk-guide-'));
let templates: { file: string; text: string; json: { Outputs?: Record<string, unknown> } }[] = [];
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

beforeAll(async () => {
  const context = Object.entries(given.context).flatMap(([key, value]) => ['-c', `${key}=${concrete(value)}`]);
  await run('npx', ['cdk', 'synth', '--quiet', '--app', 'npx tsx tests/infra/synth-app.ts', '-o', outdir, ...context], {
    cwd: REPO_ROOT,
    // No account: no credentials, no profile, no instance metadata; a region for the template.
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      AWS_REGION: 'eu-west-1',
      AWS_EC2_METADATA_DISABLED: 'true',
      CDK_DISABLE_VERSION_CHECK: '1',
      ...Object.fromEntries(Object.entries(given.env).map(([key, value]) => [key, concrete(value)])),
    },
    timeout: 240_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  templates = readdirSync(outdir)
    .filter((file) => file.endsWith('.template.json'))
    .map((file) => {
      const text = readFileSync(join(outdir, file), 'utf8');
      return { file, text, json: JSON.parse(text) as { Outputs?: Record<string, unknown> } };
    });
}, 300_000);

describe('docs/deploy.md, run without an account', () => {
  it('has deploy examples whose every setting is one the stack takes (variables and context keys)', () => {
    expect(deploys.length).toBeGreaterThanOrEqual(4);
    const variables = new Set(Object.values(SETTINGS).map((setting) => setting.env));
    expect(Object.keys(given.env).filter((name) => !variables.has(name))).toEqual([]);
    expect(Object.keys(given.context).filter((key) => !(key in SETTINGS))).toEqual([]);
    // Every `-c key=value` in any doc names a real setting.
    const keys = DOCS.flatMap(({ file, text }) => [...text.matchAll(/-c ([A-Za-z0-9]+)=/g)].map((match) => `${file}: ${match[1]}`));
    expect(keys.filter((entry) => entry.split(': ')[1] !== 'key' && !(entry.split(': ')[1]! in SETTINGS))).toEqual([]);
  });

  it('synthesizes with the real cdk CLI: the stack the examples name, with its nested watchers', () => {
    const main = templates.find(({ file }) => file === `${given.env.STACK_NAME}.template.json`);
    expect(main, templates.map(({ file }) => file).join(', ')).toBeDefined();
    expect(templates.some(({ file }) => file.includes('Watchers'))).toBe(true);
  });

  it('creates, with aws ssm put-parameter, exactly parameters the synthesized stack lets a function read', () => {
    const created = DOCS.flatMap(({ text }) => commandsOf(text))
      .filter((command) => command.startsWith('aws ssm put-parameter'))
      .map((command) => /--name (\S+)/.exec(command)?.[1]);
    expect(created.length).toBeGreaterThanOrEqual(5);
    const everything = templates.map(({ text }) => text).join('\n');
    for (const name of created) expect(everything, name).toContain(`:parameter${name}"`);
  });

  it('names only outputs the stack has, and lists them all', () => {
    const main = templates.find(({ file }) => file === `${given.env.STACK_NAME}.template.json`)!;
    const outputs = Object.keys(main.json.Outputs ?? {}).sort();
    expect(outputs).toContain('PortalUrl');
    const section = GUIDE.slice(GUIDE.indexOf('Stack outputs:'), GUIDE.indexOf('### The payment page'));
    expect([...section.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((match) => match[1]).sort()).toEqual(outputs);
    const named = DOCS.flatMap(({ text }) => [...text.matchAll(/<([A-Z][A-Za-z]+) output>|`([A-Z][A-Za-z]+)` output/g)].map((match) => match[1] ?? match[2]!));
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((name) => !outputs.includes(name!))).toEqual([]);
  });

  it('runs the first-merchant command (against DynamoDB Local; the key by value instead of its SSM parameter) with the names the stack uses', async () => {
    const command = commandsOf(GUIDE).find((line) => line.includes('npm run merchant -- create'));
    expect(command).toBeDefined();
    const env = Object.fromEntries([...command!.split('npm run merchant')[0]!.matchAll(/\b([A-Z][A-Z0-9_]*)=(<[^>]+>|\S+)/g)].map((match) => [match[1]!, match[2]!]));
    // Each variable is a declared setting, the key's parameter the one the stack's functions read.
    for (const name of Object.keys(env)) expect(name in ALL_SETTINGS || name.replace(/_PARAMETER$/, '') in ALL_SETTINGS, name).toBe(true);
    // The functions reading it (the merchant routes') are in the route functions' nested stack.
    const routeFunctions = templates.find(({ file }) => file.includes('RouteFunctions'));
    expect(JSON.stringify(routeFunctions?.json)).toContain(`"TOKEN_HMAC_KEY_PARAMETER":"${env.TOKEN_HMAC_KEY_PARAMETER}"`);
    expect(env.TABLE_NAME).toBe('<TableName output>');

    const table = `deploy-guide-${process.pid}`;
    await ensureTable(inject('dynamodbEndpoint'), table, { stream: false });
    const args = command!
      .split('npm run merchant -- ')[1]!
      .match(/"[^"]*"|\S+/g)!
      .map((arg) => arg.replace(/^"|"$/g, ''));
    const { stdout } = await run('npm', ['run', '-s', 'merchant', '--', ...args], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TABLE_NAME: table,
        DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        TOKEN_HMAC_KEY: 'k'.repeat(32),
        PORTAL_ORIGIN: env.PORTAL_ORIGIN!,
      },
      timeout: 60_000,
    });
    const created = JSON.parse(stdout) as Record<string, unknown>;
    expect(Object.keys(created).sort()).toEqual(['api_token', 'callback_secret', 'portal_invite', 'user_id']);
    expect(String(created.portal_invite)).toMatch(new RegExp(`^${env.PORTAL_ORIGIN}/portal/`));
  }, 90_000);
});
