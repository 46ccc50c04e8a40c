import { Duration, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { encryptedQueue, JobQueues } from '#infra/cdk/constructs/job-queues';
import type { CallingFunction } from '#infra/cdk/constructs/service-function';
import { OUTBOX_INSERT_PATTERN } from '#shared/callbacks/outbox';
import type { FilterPattern } from '#shared/aws/lambda-event-filter';

export interface CallbackPipelineProps {
  /**
   * Timeout of the delivery function (default 15 s: the 10 s merchant answer limit plus
   * connect and bookkeeping). The queue's visibility timeout is six times this, as AWS advises
   * for SQS event sources, so a message is not redelivered while its batch still runs.
   */
  readonly deliveryTimeout?: Duration;
  /**
   * Receives before SQS moves a message to the dead-letter queue. The delivery function counts
   * attempts itself and dead-letters after the last one; this only catches messages that keep
   * failing to be processed at all.
   */
  readonly maxReceiveCount?: number;
}

/**
 * Callbacks on their way to merchants: the callback queue, its dead-letter queue, and the
 * wiring of the functions around them. `addOrderEventsConsumer(fn, table)` connects the
 * function that queues the first job of each delivery inserted in the table (stream, filtered),
 * `addDeliveryFunction(fn)` the one
 * that consumes the queue, `grantEnqueue(fn)` any other function that queues deliveries. Each
 * allows the function the queues it is wired to; its role gets the calls its code makes to them.
 */
export class CallbackPipeline extends Construct {
  readonly deliveryTimeout: Duration;
  private readonly jobs: JobQueues;
  /** Where stream batches go after their retries; created with the order-events consumer. */
  streamFailureQueue?: Queue;

  constructor(scope: Construct, id: string, props: CallbackPipelineProps = {}) {
    super(scope, id);
    this.deliveryTimeout = props.deliveryTimeout ?? Duration.seconds(15);
    this.jobs = new JobQueues(this, {
      queue: 'callback-queue',
      deadLetters: 'callback-dead-letters',
      queueUrlVariable: 'CALLBACK_QUEUE_URL',
      deadLetterUrlVariable: 'CALLBACK_DLQ_URL',
      consumerTimeout: this.deliveryTimeout,
      maxReceiveCount: props.maxReceiveCount ?? 15,
    });
  }

  get queue(): Queue {
    return this.jobs.queue;
  }

  get deadLetterQueue(): Queue {
    return this.jobs.deadLetterQueue;
  }

  /**
   * The order-events function: reads the table stream, enqueues the first callback job of each
   * delivery inserted (one per status change). Event filtering hands it only those inserts, so
   * other writes to the table neither invoke nor bill it. Failed records are bisected and retried
   * a bounded number of times, then recorded on a failure queue instead of blocking the shard
   * for 24 hours.
   */
  addOrderEventsConsumer(consumer: CallingFunction, table: ITableV2, moreFilters: readonly FilterPattern[] = []): void {
    const fn = consumer.function;
    if (!this.streamFailureQueue) {
      this.streamFailureQueue = encryptedQueue(this, 'StreamFailureQueue');
      Validations.of(this.streamFailureQueue).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: 'This queue is itself the dead-letter destination of the order-events stream consumer (records of failed batches), so it has no DLQ of its own.',
      });
    }
    fn.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        bisectBatchOnError: true,
        retryAttempts: 10,
        // A record still failing after 6 h goes to the failure queue (and its alarm) instead of
        // holding back its shard until the stream's 24 h retention drops it silently.
        maxRecordAge: Duration.hours(6),
        reportBatchItemFailures: true,
        // The same patterns the local stream poller applies (shared/aws/lambda-event-filter.ts):
        // delivery inserts, and with email on the records emails are made from (any one matches).
        filters: [OUTBOX_INSERT_PATTERN, ...moreFilters].map((pattern) => FilterCriteria.filter(pattern)),
        onFailure: new SqsDlq(this.streamFailureQueue),
      }),
    );
    this.grantEnqueue(consumer);
  }

  /**
   * The delivery function: consumes the queue (reporting per-message failures), postpones a
   * message by changing its visibility, queues the next attempt after a failed one, and sends a
   * job to the dead-letter queue itself after the last attempt (CALLBACK_DLQ_URL).
   */
  addDeliveryFunction(delivery: CallingFunction): void {
    const fn = delivery.function;
    if (fn.timeout && fn.timeout.toSeconds() > this.deliveryTimeout.toSeconds()) {
      throw new Error(`delivery function timeout ${fn.timeout.toSeconds()} s exceeds the ${this.deliveryTimeout.toSeconds()} s the queue's visibility timeout was sized for`);
    }
    this.jobs.addConsumer(delivery);
  }

  /** A function that queues deliveries without consuming them (redelivery, the sweeper). */
  grantEnqueue(sender: CallingFunction): void {
    this.jobs.grantEnqueue(sender);
  }
}
