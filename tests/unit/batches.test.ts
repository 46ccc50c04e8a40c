import type { DynamoDBRecord, DynamoDBStreamEvent, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handleQueueBatch, handleStreamBatch } from '#shared/aws/lambda-batches';

/** Minimal records in the shapes Lambda delivers (only the fields the batch handling reads). */
const message = (id: string): SQSRecord => ({ messageId: id, body: id, receiptHandle: `rh-${id}`, eventSource: 'aws:sqs', attributes: {}, messageAttributes: {} }) as unknown as SQSRecord;
const queueEvent = (...ids: string[]): SQSEvent => ({ Records: ids.map(message) });
const record = (partition: string, sequence: string): DynamoDBRecord => ({
  eventID: `e${sequence}`,
  eventName: 'INSERT',
  eventSource: 'aws:dynamodb',
  dynamodb: { Keys: { PK: { S: partition } }, SequenceNumber: sequence },
});
const streamEvent = (...records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });
const ids = (response: { batchItemFailures: { itemIdentifier: string }[] }) => response.batchItemFailures.map((f) => f.itemIdentifier);

describe('handleQueueBatch', () => {
  it('reports kept and failed messages, deletes the rest', async () => {
    const response = await handleQueueBatch(queueEvent('a', 'b', 'c'), 'test', async (m) => {
      if (m.messageId === 'b') throw new Error('boom');
      return m.messageId === 'c' ? 'keep' : 'done';
    });
    expect(ids(response).sort()).toEqual(['b', 'c']);
  });

  it('reports every message, without throwing, when all are kept or all fail', async () => {
    expect(ids(await handleQueueBatch(queueEvent('a', 'b'), 'test', async () => 'keep'))).toEqual(['a', 'b']);
    const failing = await handleQueueBatch(queueEvent('a', 'b'), 'test', async () => {
      throw new Error('down');
    });
    expect(ids(failing)).toEqual(['a', 'b']);
  });
});

describe('handleStreamBatch', () => {
  it('handles one partition in stream order and others concurrently', async () => {
    const started: string[] = [];
    let releaseFirst!: () => void;
    const firstDone = new Promise<void>((resolve) => (releaseFirst = resolve));
    const pending = handleStreamBatch(streamEvent(record('A', '1'), record('B', '2'), record('A', '3')), 'test', async (r) => {
      started.push(r.dynamodb!.SequenceNumber!);
      if (r.dynamodb!.SequenceNumber === '1') await firstDone;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // B's record went ahead while A's first one is still running; A's second one waits for it.
    expect(started).toEqual(['1', '2']);
    releaseFirst();
    expect(ids(await pending)).toEqual([]);
    expect(started).toEqual(['1', '2', '3']);
  });

  it('holds back the later records of a failed partition and reports from the first failure on', async () => {
    const handled: string[] = [];
    const response = await handleStreamBatch(streamEvent(record('A', '1'), record('B', '2'), record('A', '3'), record('C', '4')), 'test', async (r) => {
      const sequence = r.dynamodb!.SequenceNumber!;
      if (sequence === '2') throw new Error('boom');
      handled.push(sequence);
    });
    expect(ids(response)).toEqual(['2', '3', '4']);
    expect(handled.sort()).toEqual(['1', '3', '4']);

    const held: string[] = [];
    const sameOrder = await handleStreamBatch(streamEvent(record('A', '1'), record('A', '2')), 'test', async (r) => {
      if (r.dynamodb!.SequenceNumber === '1') throw new Error('boom');
      held.push(r.dynamodb!.SequenceNumber!);
    });
    expect(ids(sameOrder)).toEqual(['1', '2']);
    expect(held).toEqual([]);
  });
});
