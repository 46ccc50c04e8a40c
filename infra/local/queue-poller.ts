import { DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient, type Message, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSMessageAttribute, SQSRecord } from 'aws-lambda';
import { createHash } from 'node:crypto';
import { LOCAL_AWS_ENV } from '#infra/local/dynamodb';

export interface QueuePollerOptions {
  /** The SQS emulator's endpoint. */
  endpoint: string;
  queueUrl: string;
  /** The records' `eventSourceARN`; asked from the queue (QueueArn) when absent. */
  queueArn?: string;
  /** The delivery Lambda handler, called as the SQS event source mapping calls it. */
  handler: (event: SQSEvent) => Promise<SQSBatchResponse | void>;
  /** Messages per handler call: one ReceiveMessage, so 1 to 10. */
  batchSize?: number;
  /**
   * Long-poll wait per ReceiveMessage (0 to 20; default 20, as Lambda's SQS event source
   * polls): a message ends the wait as it arrives, and stop() aborts it, so a longer wait only
   * spares an idle queue its requests.
   */
  waitTimeSeconds?: number;
  /** Overrides the queue's visibility timeout for the messages this poller receives. */
  visibilityTimeoutSeconds?: number;
  /** The region put in the records' `awsRegion` (default AWS_REGION, else us-east-1). */
  region?: string;
  /** Called for handler failures and API errors; the poller itself keeps running. */
  onError?: (error: unknown) => void;
}

export interface QueuePoller {
  /** Ends the loop; resolves once an in-flight batch has been handled and deleted. */
  stop(): Promise<void>;
}

/** Pause after a failed ReceiveMessage (the emulator is down or restarting). */
const RECEIVE_ERROR_BACKOFF_MS = 1_000;

/**
 * Feeds a queue to a handler like the Lambda SQS event source mapping with
 * ReportBatchItemFailures: one batch at a time; afterwards every message not reported as
 * failed is deleted. Failed ones (all of them when the handler throws) stay on the queue and
 * come back once their visibility timeout ends, with a higher ApproximateReceiveCount.
 */
export async function startQueuePoller(options: QueuePollerOptions): Promise<QueuePoller> {
  const batchSize = options.batchSize ?? 10;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10) {
    throw new RangeError(`batchSize must be an integer from 1 to 10 (ReceiveMessage's limit), got ${batchSize}`);
  }
  const waitTimeSeconds = options.waitTimeSeconds ?? 20;
  const region = options.region ?? process.env.AWS_REGION ?? LOCAL_AWS_ENV.AWS_REGION;
  const onError = options.onError ?? ((error: unknown) => console.error('queue poller:', error));
  const sqs = new SQSClient({
    endpoint: options.endpoint,
    region,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });

  let queueArn: string;
  try {
    queueArn = options.queueArn ?? (await lookUpQueueArn(sqs, options.queueUrl));
  } catch (error) {
    sqs.destroy();
    throw error;
  }

  let running = true;
  const stopped = new AbortController();
  /** Aborts a waiting ReceiveMessage on stop (never a handler call or a delete). */
  let receiving: AbortController | undefined;

  async function pollOnce(): Promise<void> {
    receiving = new AbortController();
    let messages: Message[];
    try {
      const received = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: batchSize,
          WaitTimeSeconds: waitTimeSeconds,
          VisibilityTimeout: options.visibilityTimeoutSeconds,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: receiving.signal },
      );
      messages = received.Messages ?? [];
    } catch (error) {
      if (!running) return; // aborted by stop()
      onError(error);
      await sleep(RECEIVE_ERROR_BACKOFF_MS, stopped.signal);
      return;
    } finally {
      receiving = undefined;
    }
    if (messages.length === 0) return;

    const event: SQSEvent = { Records: messages.map((message) => toLambdaRecord(message, queueArn, region)) };
    let failed: Set<string> | 'all';
    try {
      failed = failedMessageIds(await options.handler(event), event.Records);
    } catch (error) {
      onError(error);
      failed = 'all';
    }
    if (failed === 'all') return;
    const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
    if (done.length === 0) return;
    try {
      const deleted = await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
        }),
      );
      for (const failure of deleted.Failed ?? []) {
        onError(new Error(`could not delete message ${done[Number(failure.Id)]?.MessageId}: ${failure.Code} ${failure.Message}`));
      }
    } catch (error) {
      // The messages come back after their visibility timeout: at least once, as in AWS.
      onError(error);
    }
  }

  const looping = (async () => {
    while (running) await pollOnce();
  })();
  let stopping: Promise<void> | undefined;

  return {
    stop() {
      stopping ??= (async () => {
        running = false;
        stopped.abort();
        // Messages a cancelled receive had already taken come back after their visibility timeout.
        receiving?.abort();
        await looping;
        sqs.destroy();
      })();
      return stopping;
    },
  };
}

async function lookUpQueueArn(sqs: SQSClient, queueUrl: string): Promise<string> {
  const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
  const arn = attributes.Attributes?.QueueArn;
  if (!arn) throw new Error(`no QueueArn for ${queueUrl}`);
  return arn;
}

/**
 * The message ids to keep on the queue, from a handler's answer. As in Lambda, a failure
 * naming no message of the batch fails the whole batch.
 */
function failedMessageIds(result: SQSBatchResponse | void, records: SQSRecord[]): Set<string> | 'all' {
  const ids = new Set(records.map((record) => record.messageId));
  const failed = new Set<string>();
  for (const failure of result?.batchItemFailures ?? []) {
    if (!failure.itemIdentifier || !ids.has(failure.itemIdentifier)) return 'all';
    failed.add(failure.itemIdentifier);
  }
  return failed;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** A ReceiveMessage message as Lambda delivers it (camelCase, binary values as base64). */
function toLambdaRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const body = message.Body ?? '';
  const attributes = message.Attributes ?? {};
  const record: SQSRecord = {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body,
    attributes: {
      ...attributes,
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '',
      SentTimestamp: attributes.SentTimestamp ?? '',
      SenderId: attributes.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? '',
    },
    messageAttributes: Object.fromEntries(Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, toLambdaAttribute(value)])),
    md5OfBody: message.MD5OfBody ?? createHash('md5').update(body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
  if (message.MD5OfMessageAttributes) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}

function toLambdaAttribute(value: MessageAttributeValue): SQSMessageAttribute {
  return {
    ...(value.StringValue !== undefined && { stringValue: value.StringValue }),
    ...(value.BinaryValue !== undefined && { binaryValue: base64(value.BinaryValue) }),
    stringListValues: value.StringListValues ?? [],
    binaryListValues: (value.BinaryListValues ?? []).map(base64),
    dataType: value.DataType ?? 'String',
  };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
