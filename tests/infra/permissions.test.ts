import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_CALLS } from '#infra/cdk/function-calls.generated';
import { bundleCalls, type Call, callsOf, callTable, type FunctionCalls, QUOTA_SITES, scanBundle, TOKEN_USE_SITES } from '#infra/cdk/permissions';
import { CryptoPayStack, functionNeeds, serviceFolders } from '#infra/cdk/stack';
import { ROUTES } from '#shared/http/routes';
import { type Assembly, assemblyOf, checkPermissions, describeFinding, type PermissionReport } from './permission-check.ts';
import { deployConfig, EVERY_SOURCE_SETTINGS, EVERYTHING_ELSE_SETTINGS, TEST_ENV, testApp } from './support.ts';

/**
 * The deployed stack's permissions, proven from the code: every function's bundle is scanned
 * for the AWS calls it can make (infra/cdk/permissions.ts), and every role of a synthesized
 * stack with everything configured (every chain and source, email, the gateways) must hold
 * exactly those its declaration allows, and besides them only its logs and its event source.
 */

const noSite = join(tmpdir(), 'crypto-pay-test-no-site');
const synthesize = (id: string, { calls, validate = false }: { calls?: FunctionCalls; validate?: boolean } = {}) => {
  const made = testApp({ bundle: false, validate });
  const stack = new CryptoPayStack(made.app, id, {
    env: TEST_ENV,
    config: deployConfig({ ...EVERY_SOURCE_SETTINGS, ...EVERYTHING_ELSE_SETTINGS }),
    paymentPageDir: noSite,
    portalDir: noSite,
    ...(calls ? { calls } : {}),
  });
  return { stack, cleanup: made.cleanup };
};

// CloudFormation's validation too, for the fullest configuration (testApp).
const { stack, cleanup } = synthesize('Permissions', { validate: true });
afterAll(cleanup);
let scanned: Map<string, Call[]>;
let report: PermissionReport;
// Bundling every function and synthesizing the whole assembly take tens of seconds on a busy
// machine: done once, before the tests, with room to spare.
const SLOW = 600_000;
beforeAll(async () => {
  scanned = await bundleCalls(serviceFolders());
  report = checkPermissions(stack, scanned);
}, SLOW);

const findingsOf = (checked: PermissionReport) => checked.findings.map(describeFinding).sort();

describe('the roles hold exactly what the code calls', () => {
  it('the calls the stack is given are those the bundles make (npm run permissions writes them)', () => {
    expect(Object.keys(FUNCTION_CALLS).sort()).toEqual(serviceFolders());
    for (const folder of serviceFolders()) expect(FUNCTION_CALLS[folder], `functions/${folder}: run npm run permissions`).toEqual(callTable(scanned.get(folder)!));
  });

  it('every role grants each call its declaration allows, and nothing no call needs', () => {
    expect(findingsOf(report)).toEqual([]);
    // Every function of the full configuration was compared, a dozen grants each at least.
    expect(report.withheld.size).toBeGreaterThan(80);
    expect(report.compared).toBeGreaterThan(report.withheld.size * 4);
  });

  it('a read-only function carries no write but its quota counters and token-use updates; a write route its Idempotency-Key', () => {
    const WRITES = /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)$/;
    const allowed = new Set([...QUOTA_SITES, ...TOKEN_USE_SITES]);
    const needs = functionNeeds(ROUTES);
    const reads = [...needs].filter(([, need]) => need.access === 'read').map(([folder]) => folder);
    // get-order, the payment page's reads, the portal's lists: dozens of them.
    expect(reads.length).toBeGreaterThan(30);
    const carried = reads.flatMap((folder) =>
      scanned
        .get(folder)!
        .filter((call) => WRITES.test(call.action) && !allowed.has(call.site))
        .map((call) => `${folder}: ${call.action} (${call.site})`),
    );
    expect(carried).toEqual([]);
    // Nor is a table call withheld from them: what their roles refuse is only a parameter some shared code reads on other routes.
    const withheld = reads.flatMap((folder) => (report.withheld.get(folder) ?? []).map((call) => ({ folder, call })));
    expect(withheld.filter(({ call }) => call.resource === 'table' && !TOKEN_USE_SITES.includes(call.site)).map(({ folder, call }) => `${folder}: ${call.action} (${call.site})`)).toEqual([]);

    // Every merchant or payment-page POST of the API that writes keeps the Idempotency-Key (reserve, complete, release).
    const keyed = ROUTES.filter((route) => route.method === 'POST' && route.access === 'write' && !route.portal && !route.gateway).map((route) => route.fn);
    expect(keyed).toContain('create-order');
    const idempotencySites = (folder: string) =>
      new Set(
        scanned
          .get(folder)!
          .filter((call) => call.site.startsWith('shared/store/idempotency.ts#'))
          .map((call) => call.site),
      );
    expect(keyed.filter((folder) => idempotencySites(folder).size < 2).sort()).toEqual([]);
  });

  it("a public route's function (the buyer's pages, health) carries no token authentication, and every merchant route's does", () => {
    const TOKEN_SITES = /^shared\/store\/api-tokens\.ts#/;
    const authenticates = (folder: string) => scanned.get(folder)!.some((call) => TOKEN_SITES.test(call.site));
    const api = ROUTES.filter((route) => !route.portal && !route.gateway);
    const open = [...new Set(api.filter((route) => route.public).map((route) => route.fn))];
    expect(open).toContain('pay-get-order');
    expect(open.length).toBeGreaterThan(10);
    expect(open.filter(authenticates).sort()).toEqual([]);
    expect([...new Set(api.filter((route) => !route.public).map((route) => route.fn))].filter((folder) => !authenticates(folder)).sort()).toEqual([]);
  });
});

describe('the check fails', () => {
  /** A copy of the templates whose role of `key` is changed by `change` (each statement of its policies). */
  const planted = (change: (statements: Record<string, unknown>[], key: string) => void): Assembly => {
    const assembly = structuredClone(assemblyOf(stack));
    for (const [key, template] of Object.entries(assembly.templates)) {
      for (const resource of Object.values(
        (template.Resources ?? {}) as Record<string, { Type: string; Properties: { PolicyDocument?: { Statement: Record<string, unknown>[] }; Roles?: { Ref: string }[] } }>,
      )) {
        if (resource.Type === 'AWS::IAM::Policy') change(resource.Properties.PolicyDocument!.Statement, `${key}:${resource.Properties.Roles?.[0]?.Ref}`);
      }
    }
    return assembly;
  };

  it('on a call not granted and on a grant no call needs, planted in the template', { timeout: SLOW }, () => {
    const roleOf = (folder: string) => `${stack.routeFunctions.node.id}:${stack.routeFunctions.getLogicalId(stack.functions.get(folder)!.role.node.defaultChild as never)}`;
    const assembly = planted((statements, role) => {
      if (role === roleOf('list-orders')) {
        for (const statement of statements) if (Array.isArray(statement.Action)) statement.Action = statement.Action.filter((action) => action !== 'dynamodb:Query');
      }
      if (role === roleOf('get-order')) statements.push({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': ['NotAQueue', 'Arn'] } });
    });
    const findings = findingsOf(checkPermissions(stack, scanned, assembly));
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^list-orders: dynamodb:Query on the table is called \(shared\/store\/.*\) but not granted$/),
        expect.stringMatching(/^get-order: sqs:SendMessage on .*NotAQueue.* is granted but no call needs it$/),
      ]),
    );
    expect(findings.every((finding) => /^(list-orders: dynamodb:Query|get-order: sqs:SendMessage) /.test(finding))).toBe(true);
  });

  it('when the stack is told other calls than the code makes: one left out, one made up', { timeout: SLOW }, () => {
    const calls = structuredClone(FUNCTION_CALLS) as Record<string, Record<string, string[]>>;
    expect(calls['list-orders']!['dynamodb:Query table']).toBeDefined();
    delete calls['list-orders']!['dynamodb:Query table'];
    // create-order writes no batch: a BatchWriteItem grant would be one no call needs.
    expect(callsOf(calls['create-order']!).some((call) => call.action === 'dynamodb:BatchWriteItem')).toBe(false);
    calls['create-order']!['dynamodb:BatchWriteItem table'] = ['shared/store/made-up.ts#write'];
    const other = synthesize('Planted', { calls });
    try {
      expect(findingsOf(checkPermissions(other.stack, scanned))).toEqual([
        'create-order: dynamodb:BatchWriteItem on the table is granted but no call needs it',
        expect.stringMatching(/^list-orders: dynamodb:Query on the table is called \(.*\) but not granted$/),
      ]);
    } finally {
      other.cleanup();
    }
  });
});

describe('the bundle scan', () => {
  const sources: Record<string, string> = {
    'shared/store/a.ts': 'export async function release() {}\nexport async function listByIndex() {}\nexport async function write() {}',
    'shared/jobs/delayed-jobs.ts': 'export async function enqueueJob() {}',
    'shared/callbacks/queue.ts': 'export const callbackQueue = {};',
    'shared/other.ts': 'export async function sendAnyway() {}\nexport async function sign() {}',
    'shared/more.ts': "export const otherQueue: JobQueue = { url: () => '' };",
  };
  const scan = (code: string) => scanBundle(code, (file) => sources[file] ?? '');
  const bundle = (...lines: string[]) =>
    ['import { DeleteCommand, QueryCommand as QueryCommand2, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";', 'import { SendMessageCommand } from "@aws-sdk/client-sqs";', ...lines].join('\n');

  it('names each call by its IAM action, what it reaches and its site, through renamed imports and declarations', () => {
    const calls = scan(
      bundle(
        '// shared/store/a.ts',
        'async function release2() {',
        '  await db().send(new DeleteCommand({ Key: key }));',
        '}',
        'async function listByIndex() {',
        '  return db().send(new QueryCommand2({ IndexName: "GSI1" }));',
        '}',
        'async function write() {',
        '  await db().send(new TransactWriteCommand({ TransactItems: [{ Put: item }, { ConditionCheck: check }] }));',
        '}',
        '// shared/callbacks/queue.ts',
        'var callbackQueue = { url: () => "" };',
        '// shared/jobs/delayed-jobs.ts',
        'async function enqueueJob(queue) {',
        '  await sqs().send(new SendMessageCommand({ QueueUrl: queue.url() }));',
        '}',
      ),
    );
    expect(callTable(calls)).toEqual({
      'dynamodb:ConditionCheckItem table': ['shared/store/a.ts#write'],
      'dynamodb:DeleteItem table': ['shared/store/a.ts#release'],
      'dynamodb:PutItem table': ['shared/store/a.ts#write'],
      'dynamodb:Query indexes': ['shared/store/a.ts#listByIndex'],
      'dynamodb:Query table': ['shared/store/a.ts#listByIndex'],
      'sqs:SendMessage callback-queue': ['shared/jobs/delayed-jobs.ts#enqueueJob'],
    });
  });

  it('reads only the project code: the SDK modules of a bundle make no calls of their own', () => {
    expect(scan(bundle('// node_modules/@aws-sdk/lib-dynamodb/dist-es/commands/GetCommand.js', 'var x = new DeleteCommand({});'))).toEqual([]);
  });

  it.each([
    [
      'a command it has no IAM action for',
      bundle('import { PurgeQueueCommand } from "@aws-sdk/client-sqs";', '// shared/other.ts', 'function sendAnyway() { new PurgeQueueCommand({}); }'),
      /PurgeQueueCommand of @aws-sdk\/client-sqs: add its IAM actions/,
    ],
    [
      'an SQS call at a site that names no queue',
      bundle('// shared/other.ts', 'async function sendAnyway() {', '  await sqs().send(new SendMessageCommand({}));', '}'),
      /shared\/other.ts#sendAnyway calls SQS .*QUEUE_SITES/,
    ],
    [
      'an aggregated client, whose methods hide their commands',
      bundle('import { DynamoDBDocument } from "@aws-sdk/lib-dynamodb";', '// shared/other.ts', 'var doc = DynamoDBDocument.from(client);'),
      /imports DynamoDBDocument from @aws-sdk\/lib-dynamodb/,
    ],
    ['a hand-made signer nobody named', bundle('// shared/other.ts', 'function sign() {', '  return new SignatureV4({ service: "s3" });', '}'), /shared\/other.ts#sign reaches AWS by hand/],
    [
      'a client package imported whole',
      bundle('import * as sqsClient from "@aws-sdk/client-sqs";', '// shared/other.ts', 'function sendAnyway() { new sqsClient.SendMessageCommand({}); }'),
      /imports @aws-sdk\/client-sqs whole or by default/,
    ],
    [
      'a command class passed around instead of constructed',
      bundle('// shared/store/a.ts', 'var commands = [DeleteCommand];'),
      /shared\/store\/a.ts#commands uses DeleteCommand other than by constructing it/,
    ],
    [
      'a signer under another name, which its mark would not find',
      bundle('import { SignatureV4 as Signer } from "@smithy/signature-v4";', '// shared/other.ts', 'var signer = new Signer({});'),
      /SignatureV4 from @smithy\/signature-v4 as Signer: import it under its own name/,
    ],
    ['a job queue it does not know', bundle('// shared/more.ts', 'var otherQueue = { url: () => "" };'), /shared\/more.ts#otherQueue is a job queue the scan does not know/],
    [
      'a transaction with no item it can tell',
      bundle('// shared/store/a.ts', 'async function write() {', '  await db().send(new TransactWriteCommand({ TransactItems: items }));', '}'),
      /writes a transaction, but the bundle builds no/,
    ],
  ])('refuses %s', (_name, code, message) => {
    expect(() => scan(code)).toThrow(message);
  });
});
