import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
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
 * The operator's alarms, all notifying one SNS topic. Few and broad on purpose: CloudWatch bills
 * every alarm (and every metric series) a month whether anything happens or not, so one alarm
 * covers the whole HTTP API, one every payment source, one each event-driven function.
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
    // Not encrypted at rest: CloudWatch cannot publish to a topic under the AWS-managed aws/sns
    // key, and a key of our own costs $1 a month, idle or not, to protect alarm names and
    // states (no merchant data, no secret). Publishing still requires TLS.
    const topic = new Topic(this, 'Topic', { enforceSSL: true });
    Validations.of(topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names, states and metric values only; a customer managed KMS key (CloudWatch cannot use aws/sns) would cost $1 a month of an idle deployment that otherwise costs about that in all.',
    });
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
   * A payment a watcher could not book on any order (an EOS transfer whose memo names no
   * invoice, a TRON or Solana transfer to a watched address without one): the buyer's money is
   * in the account and an operator must return it. The watcher logs each one (with its chain,
   * transaction and memo) and publishes UnmatchedPayments (EMF, only when there are some: one
   * series for every chain); the table keeps it (CHAIN#<chain>, UNMATCHED#<payment key>).
   */
  alarmOnUnmatchedPayments(id: string, metrics: { namespace: string; service: string }): Alarm {
    return this.add(
      new Alarm(this, id, {
        alarmDescription: `A payment matched no invoice (a wrong or missing memo or reference): it cannot be booked on an order. Find it in the watchers' logs ("matches no invoice": chain, transaction, amount) and return it to its sender.`,
        metric: new Metric({ namespace: metrics.namespace, metricName: 'UnmatchedPayments', dimensionsMap: { service: metrics.service }, statistic: 'Sum', period: Duration.minutes(5) }),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        threshold: 0,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /**
   * Any payment source with a currency that is not ok (failing or silent, on the wrong chain,
   * lagging, a token that does not answer) for 10 minutes: those currencies are not offered to
   * buyers until it is. After each health report every watcher publishes how many currencies of
   * every configured source are not ok (UnhealthyCurrencies, one series: a watcher that stopped
   * reporting is counted by the others as its last success grows old), so one alarm watches
   * them all; no report at all for 10 minutes (every watcher silent) is breaching too.
   * `npm run health` and `GET /v1/health` say which source and why.
   */
  alarmOnSourceHealth(id: string, metrics: { namespace: string; service: string }): Alarm {
    return this.add(
      new Alarm(this, id, {
        alarmDescription: `A payment source has a currency that is not ok (failing or silent, wrong chain, lagging or a token that does not answer) for 10 minutes, or no watcher reported at all: those currencies are not offered at checkout. Run "npm run health" or GET /v1/health for which and why.`,
        metric: new Metric({ namespace: metrics.namespace, metricName: 'UnhealthyCurrencies', dimensionsMap: { service: metrics.service }, statistic: 'Minimum', period: Duration.minutes(5) }),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        threshold: 0,
        evaluationPeriods: 2,
        treatMissingData: TreatMissingData.BREACHING,
      }),
    );
  }

  /**
   * Any 5xx answer of the HTTP API in 5 minutes: every route function (a handler's unexpected
   * error becomes a bare 500; a crash or a timeout is API Gateway's 5xx), in one alarm instead
   * of one per function (CloudWatch bills each alarm, about $0.10 a month). Expected failures
   * are 4xx.
   */
  alarmOnApiServerErrors(id: string, api: IHttpApi): Alarm {
    return this.add(
      new Alarm(this, id, {
        alarmDescription: 'The HTTP API answered 5xx (a route function failed, crashed or timed out). Its function\'s logs say which request and why (search for "level":"ERROR").',
        metric: api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        threshold: 0,
        evaluationPeriods: 1,
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
