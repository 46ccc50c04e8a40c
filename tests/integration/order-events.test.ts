import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { ensureTable } from '#infra/local/dynamodb';
import { startLocalSqs, type LocalSqs } from '#infra/local/sqs';
import type { OrderDelivery as Delivery } from '#shared/domain/delivery';
import type { Order } from '#shared/domain/order';
import { testOrder } from '../support/orders';

/**
 * order-events on its own table and queue (the stream and the queue carry only this file's
 * writes and jobs): the contract is "a delivery inserted -> its first job", from the image
 * alone, and through the stream poller with the shared filter nothing else reaches it.
 */
const TABLE = `order-events-${process.pid}`;
let dynamodbEndpoint: string;
let sqs: LocalSqs;
let sqsClient: SQSClient;
let handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;
let modules: {
  outbox: typeof import('#shared/callbacks/outbox');
  deliveries: typeof import('#shared/store/deliveries');
  orders: typeof import('#shared/store/orders');
  orderActions: typeof import('#shared/services/order-actions');
  client: typeof import('#shared/store/client');
  filter: typeof import('#shared/callbacks/outbox');
  poller: typeof import('#infra/local/stream-poller');
};

beforeAll(async () => {
  dynamodbEndpoint = inject('dynamodbEndpoint');
  await ensureTable(dynamodbEndpoint, TABLE);
  sqs = await startLocalSqs({ prefix: TABLE });
  // The environment the functions get; set before their modules load.
  Object.assign(process.env, { TABLE_NAME: TABLE, CALLBACK_QUEUE_URL: sqs.callbackQueueUrl, SQS_ENDPOINT: sqs.endpoint });
  sqsClient = new SQSClient({ endpoint: sqs.endpoint });
  ({ handler } = await import('#functions/order-events/handler'));
  modules = {
    outbox: await import('#shared/callbacks/outbox'),
    deliveries: await import('#shared/store/deliveries'),
    orders: await import('#shared/store/orders'),
    orderActions: await import('#shared/services/order-actions'),
    client: await import('#shared/store/client'),
    filter: await import('#shared/callbacks/outbox'),
    poller: await import('#infra/local/stream-poller'),
  };
  modules.client.db().middlewareStack.add(
    (next) => (args) => {
      storeRequests += 1;
      return next(args);
    },
    { step: 'initialize', name: 'testRequestCounter' },
  );
});

afterAll(async () => {
  sqsClient?.destroy();
  await sqs?.stop();
});

// Orders of a merchant that hears every status change (the tests cancel them to make deliveries).
const order = (overrides: Partial<Order> = {}): Order => testOrder({ callback_url: 'https://shop.example/cb', callback_statuses: 'all', ...overrides });

/** The delivery a NEW order's cancellation writes (version 2), with `overrides`. */
function delivery(from: Order = order(), overrides: Partial<Delivery> = {}): Delivery {
  const canceled: Order = { ...from, status: 'CANCELED', version: from.version + 1 };
  return { ...modules.outbox.deliveryFor(from, canceled, new Date())!, ...overrides };
}

let sequence = 0;
/** A stream record of a table item written, as Lambda hands it over. */
function streamRecord(eventName: 'INSERT' | 'MODIFY', item: Record<string, unknown>, old?: Record<string, unknown>): DynamoDBRecord {
  const image = marshall(item, { removeUndefinedValues: true }) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];
  return {
    eventID: randomUUID(),
    eventName,
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: { PK: image!.PK!, SK: image!.SK! },
      NewImage: image,
      ...(old ? { OldImage: marshall(old, { removeUndefinedValues: true }) as typeof image } : {}),
      SequenceNumber: String((sequence += 1)),
    },
  };
}
const inserted = (d: Delivery) => streamRecord('INSERT', modules.deliveries.deliveryToItem(d));
const jobOf = (d: Delivery) => ({ order_id: d.order_id, version: d.version, event_id: d.event_id, attempt: 0 });

/** Every job now in the callback queue (removed from it), oldest first. */
async function takeJobs(): Promise<unknown[]> {
  const jobs: unknown[] = [];
  for (;;) {
    const received = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: sqs.callbackQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    const messages = received.Messages ?? [];
    if (messages.length === 0) return jobs;
    for (const message of messages) {
      jobs.push(JSON.parse(message.Body!));
      await sqsClient.send(new DeleteMessageCommand({ QueueUrl: sqs.callbackQueueUrl, ReceiptHandle: message.ReceiptHandle! }));
    }
  }
}

/** DynamoDB requests made by this process's store client while `run` ran. */
let storeRequests = 0;
async function dynamodbRequestsDuring<T>(run: () => Promise<T>): Promise<{ result: T; requests: number }> {
  const before = storeRequests;
  const result = await run();
  return { result, requests: storeRequests - before };
}

describe('order-events handler (a delivery inserted -> its first queue job)', () => {
  it('queues exactly one job per inserted delivery, from the image alone: no DynamoDB request', async () => {
    const pending = delivery();
    const { result, requests } = await dynamodbRequestsDuring(() => handler({ Records: [inserted(pending)] }));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(requests).toBe(0);
    expect(await takeJobs()).toEqual([jobOf(pending)]);
  });

  it('sends a replayed record again (the delivery worker collapses the duplicate), and nothing for a delivery past its first job', async () => {
    const pending = delivery();
    const record = inserted(pending);
    const delivered = delivery(order(), { state: 'DELIVERED', attempt_count: 1 });
    const retrying = delivery(order(), { attempt_count: 2 });
    expect(await handler({ Records: [record, record, inserted(delivered), inserted(retrying)] })).toEqual({ batchItemFailures: [] });
    expect(await takeJobs()).toEqual([jobOf(pending), jobOf(pending)]);
  });

  it('skips records the mapping filter would have dropped, if one ever reaches it', async () => {
    const before = order();
    const after = { ...before, status: 'CANCELED' as const, version: 2 };
    const orderChange = streamRecord('MODIFY', modules.orders.orderToItem(after), modules.orders.orderToItem(before));
    const pending = delivery();
    const attemptRecorded = streamRecord('MODIFY', modules.deliveries.deliveryToItem(pending), modules.deliveries.deliveryToItem(pending));
    const { result, requests } = await dynamodbRequestsDuring(() => handler({ Records: [orderChange, attemptRecorded] }));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(requests).toBe(0);
    expect(await takeJobs()).toEqual([]);
  });

  it('reports the first failed record and every record after it, across orders handled concurrently', async () => {
    const a = delivery();
    const c = delivery();
    const broken = inserted(delivery());
    delete broken.dynamodb!.NewImage!.attempt_count;
    const records = [inserted(a), broken, inserted(c)];
    const result = await handler({ Records: records });
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([records[1]!.dynamodb!.SequenceNumber, records[2]!.dynamodb!.SequenceNumber]);
    // Other orders went on concurrently; Lambda retries from the failed record (duplicates collapse).
    expect(await takeJobs()).toEqual(expect.arrayContaining([jobOf(a), jobOf(c)]));
  });

  it('keeps one order in stream order: a failed record holds back the later ones of its order', async () => {
    const first = order();
    const broken = inserted(delivery(first));
    delete broken.dynamodb!.NewImage!.SK;
    const later = delivery({ ...first, version: 2 });
    const result = await handler({ Records: [broken, inserted(later)] });
    expect(result.batchItemFailures).toHaveLength(2);
    expect(await takeJobs()).toEqual([]);
  });
});

describe('order-events through the stream poller with the shared filter', () => {
  it('is invoked for the delivery a status change inserts, not for order writes nor for an attempt being recorded', async () => {
    const calls: DynamoDBRecord[][] = [];
    let requests = 0;
    // The stream can carry a write before its response (and its request count) is back: the
    // handler starts counting once the test's own write has returned.
    let written = Promise.resolve();
    const poller = await modules.poller.startStreamPoller({
      endpoint: dynamodbEndpoint,
      tableName: TABLE,
      filter: modules.filter.isOutboxInsert,
      pollIntervalMs: 50,
      handler: async (event) => {
        calls.push(event.Records);
        await written;
        const counted = await dynamodbRequestsDuring(() => handler(event));
        requests += counted.requests;
        return counted.result;
      },
    });
    try {
      const created = order();
      await modules.orders.insertOrder(created); // an ORDER INSERT: filtered out
      await poller.drain();
      expect(calls).toEqual([]);

      let cancelled!: () => void;
      written = new Promise((resolve) => (cancelled = resolve));
      try {
        await modules.orderActions.cancelOrder(undefined, created.order_id, new Date()); // ORDER MODIFY + DELIVERY INSERT
      } finally {
        cancelled();
      }
      await poller.drain();
      expect(calls.flat().map((record) => [record.eventName, record.dynamodb?.Keys?.SK?.S])).toEqual([['INSERT', 'DELIVERY#0000000002']]);
      expect(requests).toBe(0);
      const [pending] = await modules.deliveries.listDeliveries(created.order_id);
      expect(await takeJobs()).toEqual([jobOf(pending!)]);

      // The delivery worker's claim and recorded attempt: two MODIFYs of the delivery, filtered out.
      const now = new Date();
      const lease = await modules.deliveries.claimDelivery(pending!, now, 60);
      expect(lease).toBeDefined();
      await modules.deliveries.recordAttempt(
        pending!,
        lease!,
        { at: now.toISOString(), http_status: 200, latency_ms: 1 },
        {
          state: 'DELIVERED',
          nextAttemptAt: pending!.next_attempt_at,
          deliveredAt: now.toISOString(),
        },
      );
      await poller.drain();
      expect(calls).toHaveLength(1);
      expect(await takeJobs()).toEqual([]);
    } finally {
      await poller.stop();
    }
  });
});
