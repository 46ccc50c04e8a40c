import type { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { JobQueues } from '#infra/cdk/constructs/job-queues';
import type { CallingFunction } from '#infra/cdk/constructs/service-function';

/**
 * Subscription renewals on their way (shared/services/subscription-renewals.ts): the renewal
 * queue and its dead-letter queue. `addConsumer(fn)` wires the function that takes each job's
 * steps (renew-subscriptions), `grantEnqueue(fn)` a function that queues jobs (the minute sweep,
 * order-events for a period order's status change). Each allows the function the queues it is
 * wired to; its role gets the calls its code makes to them.
 */
export class Renewals extends Construct {
  private readonly jobs: JobQueues;

  constructor(scope: Construct, id: string, props: { consumerTimeout: Duration }) {
    super(scope, id);
    this.jobs = new JobQueues(this, {
      queue: 'renewal-queue',
      deadLetters: 'renewal-dead-letters',
      queueUrlVariable: 'SUBSCRIPTION_QUEUE_URL',
      deadLetterUrlVariable: 'SUBSCRIPTION_DLQ_URL',
      consumerTimeout: props.consumerTimeout,
      maxReceiveCount: 10,
    });
  }

  get queue() {
    return this.jobs.queue;
  }

  get deadLetterQueue() {
    return this.jobs.deadLetterQueue;
  }

  /** The renewal function: consumes the queue (per-message failures), queues a job's retry, dead-letters its last failure. */
  addConsumer(consumer: CallingFunction): void {
    this.jobs.addConsumer(consumer);
  }

  /** A function that queues renewal jobs without consuming them. */
  grantEnqueue(sender: CallingFunction): void {
    this.jobs.grantEnqueue(sender);
  }
}
