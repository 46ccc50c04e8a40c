import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { CallingFunction } from '#infra/cdk/constructs/service-function';
import type { Resource } from '#infra/cdk/permissions';

/** SQS's maximum retention: a job may wait out an outage downstream or a DLQ investigation. */
const RETENTION = Duration.days(14);

/** An encrypted, TLS-only queue kept for SQS's longest retention. */
export const encryptedQueue = (scope: Construct, id: string, extra: QueueProps = {}): Queue =>
  new Queue(scope, id, { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: RETENTION, ...extra });

/** One kind of durable delayed job (shared/jobs/delayed-jobs.ts): its queues as the permissions map names them, and the variables its code reads them from. */
export interface JobKind {
  readonly queue: Resource;
  readonly deadLetters: Resource;
  /** The variable the queue's URL is in (CALLBACK_QUEUE_URL, ...). */
  readonly queueUrlVariable: string;
  readonly deadLetterUrlVariable: string;
  /** The consumer's timeout: the queue's visibility timeout is six times it, as AWS advises for SQS event sources. */
  readonly consumerTimeout: Duration;
  /** Receives before SQS dead-letters a message (the job counts its own attempts; this only catches poison messages). */
  readonly maxReceiveCount: number;
}

/**
 * The queue and dead-letter queue of one kind of job (callbacks, emails, renewals), made in
 * `scope` under the ids `Queue` and `DeadLetterQueue` (each kind's construct keeps its queues'
 * logical ids), with the wiring every kind shares: `addConsumer(fn)` consumes the queue (per
 * message failures), queues a job's retry and dead-letters its last failure; `grantEnqueue(fn)`
 * lets a function queue jobs, and only send them.
 */
export class JobQueues {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(
    scope: Construct,
    private readonly kind: JobKind,
  ) {
    this.deadLetterQueue = encryptedQueue(scope, 'DeadLetterQueue');
    this.queue = encryptedQueue(scope, 'Queue', {
      visibilityTimeout: Duration.seconds(kind.consumerTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: kind.maxReceiveCount },
    });
  }

  addConsumer(consumer: CallingFunction): void {
    consumer.function.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }));
    // A retry is a new message on the same queue (or its visibility changed); the last failure goes to the dead-letter queue.
    consumer.allow({ resource: this.kind.queue, arns: [this.queue.queueArn] });
    consumer.allow({ resource: this.kind.deadLetters, arns: [this.deadLetterQueue.queueArn] });
    consumer.function.addEnvironment(this.kind.queueUrlVariable, this.queue.queueUrl);
    consumer.function.addEnvironment(this.kind.deadLetterUrlVariable, this.deadLetterQueue.queueUrl);
  }

  grantEnqueue(sender: CallingFunction): void {
    sender.allow({ resource: this.kind.queue, arns: [this.queue.queueArn], actions: ['sqs:SendMessage'] });
    sender.function.addEnvironment(this.kind.queueUrlVariable, this.queue.queueUrl);
  }
}
