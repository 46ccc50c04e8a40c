import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { ensureTable, LOCAL_AWS_ENV, startDynamoDbLocal } from '#infra/local/dynamodb';
import { startLocalSqs } from '#infra/local/sqs';
import { buildWeb } from '../../web/build';
import { checkSecurityTable } from '../support/security-report';

/**
 * Vitest calls the setup once per project (vitest.config.ts has three, by how files share a
 * worker process): the first call starts everything, the others share it, and the last
 * teardown stops it.
 */
interface Shared {
  started: Promise<{ endpoint: string; runtimeBundle: string; teardown: () => Promise<void> }>;
  users: number;
}
// On globalThis: each project may load this module on its own.
const holder = globalThis as { cryptoPayTestSetup?: Shared };

export default async function setup(project: TestProject) {
  const shared = (holder.cryptoPayTestSetup ??= { started: start(), users: 0 });
  shared.users += 1;
  const { endpoint, runtimeBundle, teardown } = await shared.started;
  project.provide('dynamodbEndpoint', endpoint);
  project.provide('localRuntimeBundle', runtimeBundle);
  return async () => {
    shared.users -= 1;
    if (shared.users === 0) await teardown();
  };
}

/**
 * One real DynamoDB Local (in memory) and SQS emulator for the whole run, with the service's
 * table and queues (nothing consumes the queue unless a test starts the pipeline). Test files
 * isolate themselves by creating their own merchants. The environment set here is what each
 * Lambda gets from the stack; test workers inherit it.
 */
async function start(): Promise<{ endpoint: string; runtimeBundle: string; teardown: () => Promise<void> }> {
  Object.assign(process.env, LOCAL_AWS_ENV);
  // The run's one database serves every integration file: a long run, worth the optimizing compiler.
  const starting = startDynamoDbLocal({ longRun: true });
  // The page's and the portal's browser tests serve web/dist and web/portal/dist: built from the
  // current sources while DynamoDB Local starts; so is the local runtime's bundle.
  const runtimeBundle = join(RUNTIME_BUNDLE_DIR, `start-${process.pid}.mjs`);
  try {
    await Promise.all([buildWeb(), bundleLocalRuntime(runtimeBundle)]);
  } catch (error) {
    await starting.then(
      (started) => started.stop(),
      () => undefined,
    );
    throw error;
  }
  const dynamodb = await starting;
  const tableName = 'test-orders';
  // No stream: nothing reads this table's (pipelines and watchers use tables of their own), and
  // its stream records would slow every later table's writes (ensureTable's comment).
  await ensureTable(dynamodb.endpoint, tableName, { stream: false });
  const sqs = await startLocalSqs({ prefix: tableName });
  Object.assign(process.env, LOCAL_AWS_ENV, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamodb.endpoint,
    CALLBACK_QUEUE_URL: sqs.callbackQueueUrl,
    CALLBACK_DLQ_URL: sqs.callbackDeadLetterQueueUrl,
    SUBSCRIPTION_QUEUE_URL: sqs.subscriptionQueueUrl,
    SUBSCRIPTION_DLQ_URL: sqs.subscriptionDeadLetterQueueUrl,
    SQS_ENDPOINT: sqs.endpoint,
    WATCH_TICK_QUEUE_URL: sqs.watchTickQueueUrl,
    PAYMENT_PAGE_URL: 'http://pay.test/pay/',
    // As the local runtime: live test merchants are priced from the demo table.
    STATIC_RATES_FOR_LIVE_MERCHANTS: 'true',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    // No CloudWatch here: the metrics' own test turns them on.
    POWERTOOLS_METRICS_DISABLED: 'true',
    // The server-side key API tokens are stored under (HMAC), as the stack's SSM parameter.
    TOKEN_HMAC_KEY: randomBytes(32).toString('hex'),
  });
  // Security tests record their attacks under this run's tag; docs/security.md's table is checked at the end.
  const securityRun = randomBytes(8).toString('hex');
  process.env.SECURITY_RUN_ID = securityRun;
  const teardown = async () => {
    await sqs.stop();
    await dynamodb.stop();
    rmSync(runtimeBundle, { force: true });
    let table: ReturnType<typeof checkSecurityTable>;
    try {
      // Rewritten by default; CHECK_DOCS=1 fails a run whose table differs instead (a strict check).
      table = checkSecurityTable(securityRun, process.env.CHECK_DOCS !== '1');
    } catch (error) {
      // An error here is only logged by vitest ("error during close"): fail the run explicitly.
      console.error(`\n${(error as Error).message}\n`);
      process.exitCode = 1;
      return;
    }
    if (table === 'rewritten') console.log('docs/security.md: the attack table changed in this run and was rewritten: commit it');
    else if (typeof table === 'object' && process.env.CHECK_DOCS === '1') {
      console.log(`docs/security.md: not rewritten, this run did not record ${table.missing.join(', ')}`);
    }
  };
  return { endpoint: dynamodb.endpoint, runtimeBundle, teardown };
}

/**
 * Under node_modules, so that the bundle's imports of packages resolve as the sources' do
 * (packages stay outside it and load natively).
 */
const RUNTIME_BUNDLE_DIR = resolve('node_modules/.cache/crypto-pay-tests');

/**
 * `npm start` (infra/local/start.ts) with the repository's code in one ES module, as esbuild
 * bundles each function for AWS: the end-to-end files start their runtimes on the run's
 * DynamoDB Local from it (tests/support/processes.ts). Each start under tsx resolved and
 * loaded every module of ours through tsx's loader, about 1 to 2 CPU s more a start, and each
 * handler again on its first request.
 */
async function bundleLocalRuntime(outfile: string): Promise<void> {
  await build({ entryPoints: ['infra/local/start.ts'], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outfile, logLevel: 'warning' });
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    /** infra/local/start.ts bundled for this run (see bundleLocalRuntime). */
    localRuntimeBundle: string;
  }
}
