import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { CallingFunction } from '#infra/cdk/constructs/service-function';

/** SQS's maximum retention: a renewal job may wait out an outage or a DLQ investigation. */
const RETENTION = Duration.days(14);

/**
 * Subscription renewals on their way (shared/services/subscription-renewals.ts): the renewal
 * queue and its dead-letter queue. `addConsumer(fn)` wires the function that takes each job's
 * steps (renew-subscriptions), `grantEnqueue(fn)` a function that queues jobs (the minute sweep,
 * order-events for a period order's status change). Each allows the function the queues it is
 * wired to; its role gets the calls its code makes to them.
 */
export class Renewals extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: { consumerTimeout: Duration }) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: RETENTION });
    // Six times the consumer's timeout, as AWS advises for SQS event sources; the job counts its own attempts, this only catches poison messages.
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: RETENTION,
      visibilityTimeout: Duration.seconds(props.consumerTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 10 },
    });
  }

  /** The renewal function: consumes the queue (per-message failures), queues a job's retry, dead-letters its last failure. */
  addConsumer(consumer: CallingFunction): void {
    consumer.function.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }));
    consumer.allow({ resource: 'renewal-queue', arns: [this.queue.queueArn] });
    consumer.allow({ resource: 'renewal-dead-letters', arns: [this.deadLetterQueue.queueArn] });
    consumer.function.addEnvironment('SUBSCRIPTION_QUEUE_URL', this.queue.queueUrl);
    consumer.function.addEnvironment('SUBSCRIPTION_DLQ_URL', this.deadLetterQueue.queueUrl);
  }

  /** A function that queues renewal jobs without consuming them. */
  grantEnqueue(sender: CallingFunction): void {
    sender.allow({ resource: 'renewal-queue', arns: [this.queue.queueArn] });
    sender.function.addEnvironment('SUBSCRIPTION_QUEUE_URL', this.queue.queueUrl);
  }
}
