import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteItemCommand, DescribeTableCommand, PutItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ensureTable, localClient } from '#infra/local/dynamodb';
import { startStreamPoller, type StreamPollerOptions } from '#infra/local/stream-poller';
import { readableShards } from '#infra/local/stream-shards';
import { startQueuePoller, type QueuePoller } from '#infra/local/queue-poller';

/** Polls `check` until it returns true (fails the test after `timeoutMs`). */
async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function deferred() {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

/** Whether a promise has settled by now (after letting pending callbacks run). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 150));
  return done;
}

describe('stream poller (DynamoDB Local stream -> Lambda-style handler)', () => {
  let dynamodb: DynamoDBClient;
  let endpoint: string;
  let workDir: string;

  beforeAll(async () => {
    endpoint = inject('dynamodbEndpoint');
    dynamodb = localClient(endpoint);
    workDir = await mkdtemp(join(tmpdir(), 'stream-poller-'));
  });

  afterAll(async () => {
    dynamodb?.destroy();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  /** Each test gets its own table, so its stream holds only the test's own writes. */
  async function newTable(): Promise<string> {
    const tableName = `pollers-${randomUUID()}`;
    await ensureTable(endpoint, tableName);
    return tableName;
  }

  const key = (pk: string) => ({ PK: { S: pk }, SK: { S: 'ITEM' } });
  const put = (tableName: string, pk: string, extra: Record<string, AttributeValue> = {}) => dynamodb.send(new PutItemCommand({ TableName: tableName, Item: { ...key(pk), ...extra } }));

  /** A handler that records every event and answers with `answer` (default: all succeeded). */
  function recorder(answer: (event: DynamoDBStreamEvent, call: number) => DynamoDBBatchResponse | void = () => undefined) {
    const calls: DynamoDBRecord[][] = [];
    const handler = async (event: DynamoDBStreamEvent) => {
      calls.push(event.Records);
      return answer(event, calls.length);
    };
    return { calls, handler };
  }
  const pks = (records: DynamoDBRecord[]) => records.map((record) => record.dynamodb?.Keys?.PK?.S);
  const sequenceNumbers = (records: DynamoDBRecord[]) => records.map((record) => record.dynamodb?.SequenceNumber);

  /** A poller with a fresh recorder, run until the stream is read to its current end: its calls. */
  async function readToEnd(tableName: string, options: Partial<StreamPollerOptions> = {}): Promise<DynamoDBRecord[][]> {
    const { calls, handler } = recorder();
    const poller = await startStreamPoller({ endpoint, tableName, handler, pollIntervalMs: 50, ...options });
    try {
      await poller.drain();
    } finally {
      await poller.stop();
    }
    return calls;
  }

  it('delivers INSERT, MODIFY and REMOVE in order, in the Lambda event shape', async () => {
    const tableName = await newTable();
    const streamArn = (await dynamodb.send(new DescribeTableCommand({ TableName: tableName }))).Table?.LatestStreamArn;
    const { calls, handler } = recorder();
    const poller = await startStreamPoller({ endpoint, tableName, handler, pollIntervalMs: 50 });
    try {
      await put(tableName, 'order#1', {
        amount: { N: '1' },
        paid: { BOOL: false },
        raw: { B: new Uint8Array([1, 2, 3]) },
        meta: { M: { tags: { SS: ['a', 'b'] }, list: { L: [{ S: 'x' }, { NULL: true }] } } },
        // The streams client reads an empty map back as a bare {}: it must stay a map.
        empty: { M: {} },
        none: { L: [] },
      });
      await dynamodb.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: key('order#1'),
          UpdateExpression: 'SET amount = :amount, paid = :paid',
          ExpressionAttributeValues: { ':amount': { N: '2' }, ':paid': { BOOL: true } },
        }),
      );
      await dynamodb.send(new DeleteItemCommand({ TableName: tableName, Key: key('order#1') }));
      await poller.drain();
    } finally {
      await poller.stop();
    }

    const records = calls.flat();
    expect(records.map((record) => record.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    const [insert, modify, remove] = records as [DynamoDBRecord, DynamoDBRecord, DynamoDBRecord];
    for (const record of records) {
      expect(record).toMatchObject({
        eventVersion: '1.1',
        eventSource: 'aws:dynamodb',
        awsRegion: 'us-east-1',
        eventSourceARN: streamArn,
        dynamodb: { Keys: { PK: { S: 'order#1' }, SK: { S: 'ITEM' } }, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      });
      expect(record.eventID).toEqual(expect.any(String));
      expect(record.dynamodb?.SizeBytes).toBeGreaterThan(0);
      // Epoch seconds (streams round it down to the minute), not a Date.
      expect(Math.abs(record.dynamodb!.ApproximateCreationDateTime! - Date.now() / 1000)).toBeLessThan(180);
    }
    // Plain JSON, as Lambda hands it over: no Date, no Uint8Array.
    expect(JSON.parse(JSON.stringify(records))).toEqual(records);
    expect(insert.dynamodb?.OldImage).toBeUndefined();
    expect(insert.dynamodb?.NewImage).toEqual({
      ...key('order#1'),
      amount: { N: '1' },
      paid: { BOOL: false },
      raw: { B: 'AQID' },
      meta: { M: { tags: { SS: ['a', 'b'] }, list: { L: [{ S: 'x' }, { NULL: true }] } } },
      empty: { M: {} },
      none: { L: [] },
    });
    expect(modify.dynamodb?.OldImage).toMatchObject({ amount: { N: '1' }, paid: { BOOL: false } });
    expect(modify.dynamodb?.NewImage).toMatchObject({ amount: { N: '2' }, paid: { BOOL: true }, raw: { B: 'AQID' } });
    expect(remove.dynamodb?.NewImage).toBeUndefined();
    expect(remove.dynamodb?.OldImage).toMatchObject({ amount: { N: '2' }, paid: { BOOL: true } });
    const numbers = sequenceNumbers(records).map((n) => BigInt(n!));
    expect(numbers).toEqual([...numbers].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(numbers).size).toBe(3);
  });

  it('redelivers from the first reported failure on, never the records before it', async () => {
    const tableName = await newTable();
    for (const pk of ['a', 'b', 'c']) await put(tableName, pk);
    // Written before the poller starts: it reads from the oldest record (TRIM_HORIZON).
    const { calls, handler } = recorder((event, call) => (call === 1 ? { batchItemFailures: [{ itemIdentifier: event.Records[1]!.dynamodb!.SequenceNumber! }] } : undefined));
    const poller = await startStreamPoller({ endpoint, tableName, handler, pollIntervalMs: 50 });
    try {
      await poller.drain();
      expect(calls.map(pks)).toEqual([
        ['a', 'b', 'c'],
        ['b', 'c'],
      ]);
      expect(sequenceNumbers(calls[1]!)).toEqual(sequenceNumbers(calls[0]!).slice(1));
      await put(tableName, 'd');
      await poller.drain();
      expect(calls.map(pks)).toEqual([['a', 'b', 'c'], ['b', 'c'], ['d']]);
    } finally {
      await poller.stop();
    }
  });

  it('redelivers the whole batch after the handler throws', async () => {
    const tableName = await newTable();
    await put(tableName, 'a');
    await put(tableName, 'b');
    const errors: unknown[] = [];
    const { calls, handler } = recorder((_event, call) => {
      if (call === 1) throw new Error('handler crashed');
    });
    const poller = await startStreamPoller({
      endpoint,
      tableName,
      handler,
      pollIntervalMs: 50,
      onError: (error) => errors.push(error),
    });
    try {
      await poller.drain();
    } finally {
      await poller.stop();
    }
    expect(calls.map(pks)).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
    expect(sequenceNumbers(calls[1]!)).toEqual(sequenceNumbers(calls[0]!));
    expect(errors).toEqual([expect.objectContaining({ message: 'handler crashed' })]);
  });

  it('resumes from its checkpoint file: nothing handled twice, nothing written while stopped lost', async () => {
    const tableName = await newTable();
    const checkpointFile = join(workDir, `${tableName}.json`);
    await put(tableName, 'a');
    await put(tableName, 'b');
    const first = await readToEnd(tableName, { checkpointFile });
    expect(first.flat().map((record) => record.dynamodb?.Keys?.PK?.S)).toEqual(['a', 'b']);
    const saved = JSON.parse(await readFile(checkpointFile, 'utf8')) as Record<string, string>;
    expect(Object.values(saved)).toEqual([first.flat()[1]!.dynamodb!.SequenceNumber]);

    await put(tableName, 'c'); // while no poller runs
    const second = await readToEnd(tableName, { checkpointFile });
    expect(second.map(pks)).toEqual([['c']]);

    // Without the file the same stream is read from its oldest record: the file made the difference.
    const third = await readToEnd(tableName);
    expect(third.flat().map((record) => record.dynamodb?.Keys?.PK?.S)).toEqual(['a', 'b', 'c']);
  });

  it('checkpoints a partly failed batch up to the failure, so a restart starts at the failed record', async () => {
    const tableName = await newTable();
    const checkpointFile = join(workDir, `${tableName}.json`);
    for (const pk of ['a', 'b', 'c']) await put(tableName, pk);
    // Record b always fails: the poller keeps retrying it (drain would never resolve).
    const failing = recorder((event) => {
      const b = event.Records.find((record) => record.dynamodb?.Keys?.PK?.S === 'b');
      return b ? { batchItemFailures: [{ itemIdentifier: b.dynamodb!.SequenceNumber! }] } : undefined;
    });
    const poller = await startStreamPoller({ endpoint, tableName, handler: failing.handler, checkpointFile, pollIntervalMs: 50 });
    try {
      await waitFor('a retry', () => failing.calls.length >= 3);
    } finally {
      await poller.stop();
    }
    expect(failing.calls.map(pks)).toEqual([['a', 'b', 'c'], ['b', 'c'], ...failing.calls.slice(2).map(() => ['b', 'c'])]);

    const fixed = await readToEnd(tableName, { checkpointFile });
    expect(fixed.map(pks)).toEqual([['b', 'c']]);
  });

  it('applies the filter as Lambda event filtering does: dropped records never reach the handler, the checkpoint moves past them', async () => {
    const tableName = await newTable();
    const checkpointFile = join(workDir, `${tableName}.json`);
    const kind = (value: string) => ({ kind: { S: value } });
    const filter = (record: DynamoDBRecord) => record.dynamodb?.NewImage?.kind?.S === 'keep';
    await put(tableName, 'a', kind('skip'));
    await put(tableName, 'b', kind('keep'));
    await put(tableName, 'c', kind('skip'));
    const filtered = recorder();
    const poller = await startStreamPoller({ endpoint, tableName, handler: filtered.handler, filter, checkpointFile, pollIntervalMs: 50 });
    try {
      await poller.drain();
      expect(filtered.calls.map(pks)).toEqual([['b']]);
      await put(tableName, 'd', kind('skip')); // a batch with nothing left: no call at all
      await poller.drain();
      expect(filtered.calls.map(pks)).toEqual([['b']]);
    } finally {
      await poller.stop();
    }
    // Unfiltered from the same checkpoint: c and d were handled (filtered out) for good.
    await put(tableName, 'e', kind('skip'));
    const everything = await readToEnd(tableName, { checkpointFile });
    expect(everything.map(pks)).toEqual([['e']]);
  });

  it('retries a failed record from the record before it, filtered-out ones included', async () => {
    const tableName = await newTable();
    const checkpointFile = join(workDir, `${tableName}.json`);
    const filter = (record: DynamoDBRecord) => record.dynamodb?.Keys?.PK?.S !== 'a';
    for (const pk of ['a', 'b', 'c']) await put(tableName, pk);
    // b always fails: the filtered-out a before it is past, b and c are retried.
    const failing = recorder((event) => ({ batchItemFailures: [{ itemIdentifier: event.Records[0]!.dynamodb!.SequenceNumber! }] }));
    const poller = await startStreamPoller({ endpoint, tableName, handler: failing.handler, filter, checkpointFile, pollIntervalMs: 50 });
    try {
      await waitFor('a retry', () => failing.calls.length >= 2);
    } finally {
      await poller.stop();
    }
    expect(failing.calls.map(pks)).toEqual(failing.calls.map(() => ['b', 'c']));
    const fixed = await readToEnd(tableName, { checkpointFile });
    expect(fixed.map(pks)).toEqual([['b', 'c']]);
  });

  it('stop() waits for the batch in flight and its checkpoint', async () => {
    const tableName = await newTable();
    const checkpointFile = join(workDir, `${tableName}.json`);
    const gate = deferred();
    const { calls, handler } = recorder();
    const poller = await startStreamPoller({
      endpoint,
      tableName,
      checkpointFile,
      pollIntervalMs: 50,
      handler: async (event) => {
        await gate.promise;
        return handler(event);
      },
    });
    let stopping: Promise<void> | undefined;
    try {
      await put(tableName, 'a');
      const drained = poller.drain();
      drained.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await settled(drained)).toBe(false); // the handler has not answered yet
      stopping = poller.stop();
      expect(await settled(stopping)).toBe(false);
      gate.release();
      await stopping;
      await expect(drained).rejects.toThrow(/stopped/);
    } finally {
      gate.release();
      await (stopping ?? poller.stop());
    }
    expect(calls.map(pks)).toEqual([['a']]);
    const saved = JSON.parse(await readFile(checkpointFile, 'utf8')) as Record<string, string>;
    expect(Object.values(saved)).toEqual([calls[0]![0]!.dynamodb!.SequenceNumber]);
  });

  it('fails to start on a table without a stream', async () => {
    const tableName = `no-stream-${randomUUID()}`;
    await dynamodb.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
      }),
    );
    await expect(startStreamPoller({ endpoint, tableName, handler: async () => undefined })).rejects.toThrow(`table ${tableName} has no stream enabled`);
  });

  it('reads a child shard only after its parent is finished', () => {
    const parent = { id: 'shard-1', parentId: undefined, finished: false };
    const child = { id: 'shard-2', parentId: 'shard-1', finished: false };
    const orphan = { id: 'shard-3', parentId: 'shard-trimmed', finished: false };
    expect(readableShards([parent, child, orphan])).toEqual([parent, orphan]);
    expect(readableShards([{ ...parent, finished: true }, child])).toEqual([child]);
  });
});

describe('queue poller (fauxqs queue -> Lambda-style handler)', () => {
  let server: FauxqsServer;
  let sqs: SQSClient;
  let endpoint: string;

  beforeAll(async () => {
    server = await startFauxqs({ port: 0, logger: false });
    endpoint = `http://127.0.0.1:${server.port}`;
    sqs = new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  });

  afterAll(async () => {
    sqs?.destroy();
    await server?.stop();
  });

  /** A queue whose received messages come back after 1 s unless deleted. */
  function newQueue() {
    return server.createQueue(`pollers-${randomUUID()}`, { attributes: { VisibilityTimeout: '1' } });
  }
  const send = async (queueUrl: string, body: string, attributes?: Parameters<typeof sqsAttributes>[0]) =>
    (await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageAttributes: sqsAttributes(attributes) }))).MessageId!;
  function sqsAttributes(attributes?: Record<string, string | Uint8Array>) {
    if (!attributes) return undefined;
    return Object.fromEntries(
      Object.entries(attributes).map(([name, value]) => [
        name,
        typeof value === 'string' ? { DataType: /^\d+$/.test(value) ? 'Number' : 'String', StringValue: value } : { DataType: 'Binary', BinaryValue: value },
      ]),
    );
  }
  const messagesIn = (queueName: string) => {
    const { ready, delayed, inflight } = server.inspectQueue(queueName)!.messages;
    return { ready: ready.length, delayed: delayed.length, inflight: inflight.length };
  };
  const empty = { ready: 0, delayed: 0, inflight: 0 };
  /** Messages still on the queue, visible or not (a deleted message is in none of the lists). */
  const kept = (queueName: string) => Object.values(messagesIn(queueName)).reduce((sum, n) => sum + n, 0);

  function recorder(answer: (event: SQSEvent, call: number) => SQSBatchResponse | void = () => undefined) {
    const calls: SQSRecord[][] = [];
    const handler = async (event: SQSEvent) => {
      calls.push(event.Records);
      return answer(event, calls.length);
    };
    return { calls, handler };
  }

  it('delivers messages as SQSEvent records and deletes them after success', async () => {
    const queue = newQueue();
    const first = await send(queue.queueUrl, '{"order_id":"o-1"}', { kind: 'callback', attempt: '3', raw: new Uint8Array([1, 2, 3]) });
    const second = await send(queue.queueUrl, 'plain');
    const { calls, handler } = recorder();
    const poller = await startQueuePoller({ endpoint, queueUrl: queue.queueUrl, handler, waitTimeSeconds: 1 });
    try {
      await waitFor('both messages handled and deleted', () => calls.flat().length === 2 && messagesIn(queue.queueName).ready === 0 && messagesIn(queue.queueName).inflight === 0);
    } finally {
      await poller.stop();
    }
    const records = calls.flat();
    expect(records.map((record) => record.messageId).sort()).toEqual([first, second].sort());
    const record = records.find((r) => r.messageId === first)!;
    expect(record).toEqual({
      messageId: first,
      receiptHandle: expect.any(String),
      body: '{"order_id":"o-1"}',
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d{13}$/),
        SenderId: expect.any(String),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
      },
      messageAttributes: {
        kind: { stringValue: 'callback', stringListValues: [], binaryListValues: [], dataType: 'String' },
        attempt: { stringValue: '3', stringListValues: [], binaryListValues: [], dataType: 'Number' },
        raw: { binaryValue: 'AQID', stringListValues: [], binaryListValues: [], dataType: 'Binary' },
      },
      md5OfBody: createHash('md5').update('{"order_id":"o-1"}').digest('hex'),
      md5OfMessageAttributes: expect.stringMatching(/^[0-9a-f]{32}$/),
      eventSource: 'aws:sqs',
      eventSourceARN: queue.queueArn,
      awsRegion: 'us-east-1',
    });
    expect(JSON.parse(JSON.stringify(records))).toEqual(records);
    expect(records.find((r) => r.messageId === second)!.messageAttributes).toEqual({});
    expect(messagesIn(queue.queueName)).toEqual(empty);
  });

  it('keeps reported failures on the queue until they succeed, deleting the rest at once', async () => {
    const queue = newQueue();
    const ids = { a: await send(queue.queueUrl, 'a'), b: await send(queue.queueUrl, 'b'), c: await send(queue.queueUrl, 'c') };
    // b fails on its first two receives.
    const { calls, handler } = recorder((event) => ({
      batchItemFailures: event.Records.filter((r) => r.body === 'b' && Number(r.attributes.ApproximateReceiveCount) < 3).map((r) => ({ itemIdentifier: r.messageId })),
    }));
    const poller = await startQueuePoller({ endpoint, queueUrl: queue.queueUrl, handler, waitTimeSeconds: 1 });
    try {
      await waitFor('b handled on its third receive', () => calls.flat().some((r) => r.body === 'b' && r.attributes.ApproximateReceiveCount === '3'));
      // Deleted, not just invisible: b's retries came after a's and c's visibility timeout ran out.
      await waitFor('the queue to empty', () => messagesIn(queue.queueName).inflight === 0 && messagesIn(queue.queueName).ready === 0);
    } finally {
      await poller.stop();
    }
    const deliveries = calls.flat().map((r) => [r.body, r.attributes.ApproximateReceiveCount]);
    expect(deliveries.filter(([body]) => body === 'a')).toEqual([['a', '1']]);
    expect(deliveries.filter(([body]) => body === 'c')).toEqual([['c', '1']]);
    expect(deliveries.filter(([body]) => body === 'b')).toEqual([
      ['b', '1'],
      ['b', '2'],
      ['b', '3'],
    ]);
    expect(
      calls
        .flat()
        .filter((r) => r.body === 'b')
        .every((r) => r.messageId === ids.b),
    ).toBe(true);
    expect(messagesIn(queue.queueName)).toEqual(empty);
  });

  it('deletes nothing when the handler throws; the batch comes back', async () => {
    const queue = newQueue();
    await send(queue.queueUrl, 'a');
    await send(queue.queueUrl, 'b');
    const errors: unknown[] = [];
    const { calls, handler } = recorder((_event, call) => {
      if (call === 1) throw new Error('delivery crashed');
    });
    const poller = await startQueuePoller({
      endpoint,
      queueUrl: queue.queueUrl,
      handler,
      waitTimeSeconds: 1,
      onError: (error) => errors.push(error),
    });
    try {
      await waitFor('the first call', () => calls.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(kept(queue.queueName)).toBe(2);
      await waitFor('both redelivered and deleted', () => calls.flat().length === 4 && messagesIn(queue.queueName).inflight === 0);
    } finally {
      await poller.stop();
    }
    expect(calls[0]!.map((r) => [r.body, r.attributes.ApproximateReceiveCount]).sort()).toEqual([
      ['a', '1'],
      ['b', '1'],
    ]);
    expect(
      calls
        .slice(1)
        .flat()
        .map((r) => [r.body, r.attributes.ApproximateReceiveCount])
        .sort(),
    ).toEqual([
      ['a', '2'],
      ['b', '2'],
    ]);
    expect(errors).toEqual([expect.objectContaining({ message: 'delivery crashed' })]);
    expect(messagesIn(queue.queueName)).toEqual(empty);
  });

  it('treats a failure naming no message of the batch as a failure of the whole batch', async () => {
    const queue = newQueue();
    await send(queue.queueUrl, 'a');
    const { calls, handler } = recorder(() => ({ batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] }));
    const poller = await startQueuePoller({ endpoint, queueUrl: queue.queueUrl, handler, waitTimeSeconds: 1 });
    try {
      await waitFor('the first call', () => calls.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(kept(queue.queueName)).toBe(1);
    } finally {
      await poller.stop();
    }
  });

  it('stop() waits for the batch in flight and deletes it, but does not wait out a long poll', async () => {
    const queue = newQueue();
    const gate = deferred();
    const { calls, handler } = recorder();
    let entered = 0;
    const poller: QueuePoller = await startQueuePoller({
      endpoint,
      queueUrl: queue.queueUrl,
      waitTimeSeconds: 20,
      visibilityTimeoutSeconds: 30,
      handler: async (event) => {
        entered += 1;
        await gate.promise;
        return handler(event);
      },
    });
    let stopping: Promise<void> | undefined;
    try {
      await send(queue.queueUrl, 'a');
      await waitFor('the handler called', () => entered === 1);
      stopping = poller.stop();
      expect(await settled(stopping)).toBe(false);
      gate.release();
      await stopping;
    } finally {
      gate.release();
      await (stopping ?? poller.stop());
    }
    expect(calls.flat().map((r) => r.body)).toEqual(['a']);
    expect(messagesIn(queue.queueName)).toEqual(empty);

    const idle = await startQueuePoller({ endpoint, queueUrl: queue.queueUrl, waitTimeSeconds: 20, handler: async () => undefined });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await idle.stop();
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
