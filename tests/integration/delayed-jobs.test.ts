import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChangeMessageVisibilityCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startLocalSqs, type LocalSqs } from '#infra/local/sqs';
import type { JobKind, JobQueue, JobTry } from '#shared/jobs/delayed-jobs';
import { drainMessages } from '../support/queue-messages';

/**
 * The delayed-job pipeline that callbacks and email are kinds of, with a kind of this file's own
 * on its own queues: what goes on the queue and the dead-letter queue, when a message is
 * postponed, which delay a retry gets and when the job is given up. The kinds' own parts are
 * tested with them (delivery-job.test.ts, email.test.ts, email-limits.test.ts).
 */
let sqs: LocalSqs;
let sqsClient: SQSClient;
let jobs: typeof import('#shared/jobs/delayed-jobs');

interface TestJob {
  id: string;
  attempt: number;
  due?: string;
}

beforeAll(async () => {
  sqs = await startLocalSqs({ prefix: `delayed-jobs-${process.pid}` });
  Object.assign(process.env, { SQS_ENDPOINT: sqs.endpoint });
  sqsClient = new SQSClient({ endpoint: sqs.endpoint });
  jobs = await import('#shared/jobs/delayed-jobs');
});

afterAll(async () => {
  sqsClient?.destroy();
  await sqs?.stop();
});

afterEach(() => vi.restoreAllMocks());

const queue: JobQueue = { url: () => sqs.callbackQueueUrl, deadLetterUrl: () => sqs.callbackDeadLetterQueueUrl };

/** A kind whose tries answer `tries` in turn, with a 60 s doubling backoff and 3 attempts; what its hooks saw. */
function testKind(tries: JobTry<string>[], options: { lengthen?: number; deadLetterUrl?: string | undefined } = {}) {
  const seen: string[] = [];
  const kind: JobKind<TestJob, TestJob, string> = {
    name: 'test job',
    queue: 'deadLetterUrl' in options ? { url: queue.url, deadLetterUrl: () => options.deadLetterUrl } : queue,
    maxAttempts: () => 3,
    backoff: () => ({ base: 60, cap: 12 * 3600, jitter: 'none' }),
    open: async (job) => job,
    dueAt: (job) => job.due,
    attempt: async (job) => {
      seen.push(`try ${job.attempt}`);
      return tries.shift()!;
    },
    ...(options.lengthen ? { retryDelay: (delay: number) => Math.max(delay, options.lengthen!) } : {}),
    retry: async (job, _job, reason, { delaySeconds }) => {
      seen.push(`retry after ${delaySeconds} (${reason})`);
      return { id: job.id, attempt: job.attempt + 1 };
    },
    retried: (job) => seen.push(`retried ${job.attempt}`),
    giveUp: async (job, _job, reason) => {
      seen.push(`give up (${reason})`);
      return { job, subject: job, reason };
    },
    deadLettered: ({ reason }) => {
      seen.push(`dead-lettered (${reason})`);
    },
  };
  return { kind, seen };
}

/** The SQS commands the pipeline sends while `run` runs (they still reach the emulator). */
async function commandsOf(run: () => Promise<unknown>): Promise<unknown[]> {
  const commands: unknown[] = [];
  const send = SQSClient.prototype.send;
  vi.spyOn(SQSClient.prototype, 'send').mockImplementation(function (this: SQSClient, command: unknown, ...rest: unknown[]) {
    if (this !== sqsClient) commands.push(command);
    return (send as (...args: unknown[]) => unknown).call(this, command, ...rest);
  } as typeof send);
  await run();
  vi.restoreAllMocks();
  return commands;
}

/** The messages of one job on a queue (received, then deleted). */
const drain = (queueUrl: string, id: string) => drainMessages(sqsClient, queueUrl, 'id', id);

const inputOf = (command: unknown) => ({ type: (command as object).constructor.name, ...(command as { input: object }).input });

describe('a delayed job', () => {
  it('is sent as its JSON, delayed by at most 15 minutes', async () => {
    const commands = await commandsOf(async () => {
      await jobs.enqueueJob(queue, { id: 'sent', attempt: 0 } as TestJob);
      await jobs.enqueueJob(queue, { id: 'sent-later', attempt: 0 } as TestJob, 3600.2);
    });
    expect(commands.map(inputOf)).toEqual([
      { type: SendMessageCommand.name, QueueUrl: sqs.callbackQueueUrl, MessageBody: '{"id":"sent","attempt":0}', DelaySeconds: 0 },
      { type: SendMessageCommand.name, QueueUrl: sqs.callbackQueueUrl, MessageBody: '{"id":"sent-later","attempt":0}', DelaySeconds: 900 },
    ]);
    expect(await drain(sqs.callbackQueueUrl, 'sent')).toEqual([{ id: 'sent', attempt: 0 }]);
  });

  it('arriving before it is due is postponed, not tried: by whole seconds, at most 12 hours a step', async () => {
    const { kind, seen } = testKind([]);
    const now = new Date();
    const soon = { id: 'soon', attempt: 0, due: new Date(now.getTime() + 90_500).toISOString() };
    const far = { id: 'far', attempt: 0, due: new Date(now.getTime() + 30 * 3600_000).toISOString() };
    await jobs.enqueueJob(queue, soon);
    const { Messages = [] } = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: queue.url(), MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    const receipt = Messages.find((message) => message.Body === JSON.stringify(soon))!.ReceiptHandle!;
    const commands = await commandsOf(async () => {
      expect(await jobs.runJob(kind, soon, receipt, now)).toBe('keep');
      expect(await jobs.runJob(kind, far, receipt, now)).toBe('keep');
    });
    expect(commands.map(inputOf)).toEqual([
      { type: ChangeMessageVisibilityCommand.name, QueueUrl: sqs.callbackQueueUrl, ReceiptHandle: receipt, VisibilityTimeout: 91 },
      { type: ChangeMessageVisibilityCommand.name, QueueUrl: sqs.callbackQueueUrl, ReceiptHandle: receipt, VisibilityTimeout: 12 * 3600 },
    ]);
    expect(seen).toEqual([]);
    // Due within a second: tried now.
    const { kind: due, seen: tried } = testKind([{ done: true }]);
    expect(await jobs.runJob(due, { id: 'due', attempt: 0, due: new Date(now.getTime() + 900).toISOString() }, receipt, now)).toBe('done');
    expect(tried).toEqual(['try 0']);
  });

  it('failing is retried by a new message after its backoff (lengthened when the kind says so), then given up to the dead-letter queue', async () => {
    const { kind, seen } = testKind([
      { done: false, failure: 'down' },
      { done: false, failure: 'still down' },
      { done: false, failure: 'down for good' },
    ]);
    const first = { id: 'failing', attempt: 0 };
    const retries = await commandsOf(async () => {
      expect(await jobs.runJob(kind, first, 'receipt', new Date())).toBe('done');
      expect(await jobs.runJob(kind, { id: 'failing', attempt: 1 }, 'receipt', new Date())).toBe('done');
    });
    expect(retries.map(inputOf)).toEqual([
      { type: SendMessageCommand.name, QueueUrl: sqs.callbackQueueUrl, MessageBody: '{"id":"failing","attempt":1}', DelaySeconds: 60 },
      { type: SendMessageCommand.name, QueueUrl: sqs.callbackQueueUrl, MessageBody: '{"id":"failing","attempt":2}', DelaySeconds: 120 },
    ]);
    await drain(sqs.callbackQueueUrl, 'failing');
    expect(await jobs.runJob(kind, { id: 'failing', attempt: 2 }, 'receipt', new Date())).toBe('done');
    expect(seen).toEqual(['try 0', 'retry after 60 (down)', 'retried 0', 'try 1', 'retry after 120 (still down)', 'retried 1', 'try 2', 'give up (down for good)', 'dead-lettered (down for good)']);
    expect(await drain(sqs.callbackDeadLetterQueueUrl, 'failing')).toEqual([{ id: 'failing', attempt: 2, reason: 'down for good' }]);

    const { kind: lengthened, seen: slower } = testKind([{ done: false, failure: 'busy' }], { lengthen: 3600 });
    const sent = await commandsOf(() => jobs.runJob(lengthened, { id: 'busy', attempt: 0 }, 'receipt', new Date()));
    expect(slower).toContain('retry after 3600 (busy)');
    expect(sent.map(inputOf)).toEqual([expect.objectContaining({ MessageBody: '{"id":"busy","attempt":1}', DelaySeconds: 900 })]);
    await drain(sqs.callbackQueueUrl, 'busy');
  });

  it('given up without a dead-letter queue is noted by its kind and sent nowhere', async () => {
    const { kind, seen } = testKind([{ done: false, failure: 'gone' }], { deadLetterUrl: undefined });
    const commands = await commandsOf(() => jobs.runJob(kind, { id: 'nowhere', attempt: 2 }, 'receipt', new Date()));
    expect(commands).toEqual([]);
    expect(seen).toEqual(['try 2', 'give up (gone)', 'dead-lettered (gone)']);
  });

  it('whose try throws is neither retried nor given up: its message comes back', async () => {
    const { kind, seen } = testKind([]);
    kind.attempt = () => Promise.reject(new Error('table unavailable'));
    const commands = await commandsOf(() => expect(jobs.runJob(kind, { id: 'thrown', attempt: 0 }, 'receipt', new Date())).rejects.toThrow('table unavailable'));
    expect(commands).toEqual([]);
    expect(seen).toEqual([]);
  });
});
