import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface ServiceAlarmsProps {
  /** Subscribed to the alarm topic (it must confirm the subscription mail). */
  readonly email?: string;
  /**
   * Notify this topic instead of making one: a nested stack's alarms (the chain watchers') go
   * to the main stack's topic, so on-call subscribes once.
   */
  readonly topic?: ITopic;
}

/**
 * The operator's alarms, all notifying one SNS topic. The topic is encrypted with its own key
 * because CloudWatch cannot publish to a topic under the AWS-managed aws/sns key.
 */
export class ServiceAlarms extends Construct {
  readonly topic: ITopic;
  readonly alarms: Alarm[] = [];
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps = {}) {
    super(scope, id);
    if (props.topic) {
      this.topic = props.topic;
      this.action = new SnsAction(this.topic);
      return;
    }
    const key = new Key(this, 'TopicKey', {
      description: 'Encrypts the alarm topic; CloudWatch may use it to publish',
      enableKeyRotation: true,
      // Only in-flight notifications are encrypted with it: nothing to keep after teardown.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    const topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    if (props.email) topic.addSubscription(new EmailSubscription(props.email));
    this.topic = topic;
    this.action = new SnsAction(this.topic);
  }

  /** Any message in the queue (a dead-letter queue: every message is a lost callback). */
  alarmWhenQueueHasMessages(id: string, queue: IQueue, description: string): Alarm {
    return this.add(
      new Alarm(this, id, {
        alarmDescription: description,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        threshold: 0,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** Any invocation error: handlers map expected failures to 4xx, so an error is a bug or an outage. */
  alarmOnErrors(id: string, fn: IFunction, description: string): Alarm {
    return this.add(
      new Alarm(this, id, {
        alarmDescription: description,
        metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        threshold: 0,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /**
   * For stream consumers (the order-events function): the age of the newest
   * record read. A growing age means callbacks lag behind order changes.
   */
  alarmOnStreamLag(id: string, fn: IFunction, maxAge: Duration = Duration.minutes(5)): Alarm {
    return this.add(
      new Alarm(this, id, {
        alarmDescription: `${fn.functionName} reads the table stream more than ${maxAge.toHumanString()} behind`,
        metric: fn.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' }),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        threshold: maxAge.toMilliseconds(),
        evaluationPeriods: 5,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /**
   * A chain watcher whose cursor stays more than `blocks` behind the chain's tip for 15
   * minutes, or that reports nothing at all (missing data is breaching: a silent watcher sees
   * no payments either). The watcher publishes ChainBlocksBehind after every step (EMF).
   */
  alarmOnChainLag(id: string, chain: string, blocks: number, metrics: { namespace: string; service: string }): Alarm {
    return this.add(
      new Alarm(this, id, {
        alarmDescription:
          blocks === 0
            ? `The ${chain} watcher has not caught up with its source once (or is silent) for 15 minutes: payments are not being seen. Check its logs and its ${chain === 'LBTC' ? 'LND node' : 'Hyperion history API'}.`
            : `The ${chain} watcher is more than ${blocks} blocks behind the chain's tip (or silent) for 15 minutes: payments are not being seen. Check its logs and its node or Esplora source.`,
        metric: new Metric({ namespace: metrics.namespace, metricName: 'ChainBlocksBehind', dimensionsMap: { service: metrics.service, Chain: chain }, statistic: 'Minimum', period: Duration.minutes(5) }),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        threshold: blocks,
        evaluationPeriods: 3,
        treatMissingData: TreatMissingData.BREACHING,
      }),
    );
  }

  /**
   * A payment the watcher could not book on any order (an EOS transfer whose memo names no
   * invoice): the buyer's money is in the account and an operator must return it. The watcher
   * logs each one (with its transaction and memo) and publishes UnmatchedPayments (EMF); the
   * table keeps it (CHAIN#EOS, UNMATCHED#<global_sequence>).
   */
  alarmOnUnmatchedPayments(id: string, chain: string, metrics: { namespace: string; service: string }): Alarm {
    return this.add(
      new Alarm(this, id, {
        alarmDescription: `A ${chain} payment matched no invoice (a wrong or missing memo): it cannot be booked on an order. Find it in the watcher's logs ("matches no invoice") and return it to its sender.`,
        metric: new Metric({ namespace: metrics.namespace, metricName: 'UnmatchedPayments', dimensionsMap: { service: metrics.service, Chain: chain }, statistic: 'Sum', period: Duration.minutes(5) }),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        threshold: 0,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /**
   * A payment source with a currency that is not ok (failing, on the wrong chain, lagging, a
   * token that does not answer) for 10 minutes: its currencies are not offered to buyers until
   * it is. The watcher publishes UnhealthyCurrencies after each report (EMF); `npm run health`
   * and `GET /v1/health` say which and why.
   */
  alarmOnSourceHealth(id: string, source: string, metrics: { namespace: string; service: string }): Alarm {
    return this.add(
      new Alarm(this, id, {
        alarmDescription: `The ${source} payment source has a currency that is not ok (failing, wrong chain, lagging or a token that does not answer) for 10 minutes: those currencies are not offered at checkout. Run "npm run health" or GET /v1/health for which and why.`,
        metric: new Metric({ namespace: metrics.namespace, metricName: 'UnhealthyCurrencies', dimensionsMap: { service: metrics.service, Source: source }, statistic: 'Minimum', period: Duration.minutes(5) }),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        threshold: 0,
        evaluationPeriods: 2,
        // A silent watcher is the lag alarm's case (missing data breaches there).
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  private add(alarm: Alarm): Alarm {
    alarm.addAlarmAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }
}
