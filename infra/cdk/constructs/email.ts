import { Duration, NestedStack, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { ConfigurationSet, EmailIdentity, EmailSendingEvent, EventDestination, Identity } from 'aws-cdk-lib/aws-ses';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { DeployConfig } from '#infra/cdk/config';
import { ServiceAlarms } from '#infra/cdk/constructs/service-alarms';
import { type CallingFunction, constructId, ServiceFunction, type TableAccess } from '#infra/cdk/constructs/service-function';
import type { FunctionCalls } from '#infra/cdk/permissions';

/** The email functions' folders. */
export const EMAIL_FUNCTIONS = {
  /** The email queue -> each event's emails through SES, once per recipient. */
  send: 'send-email',
  /** SES bounces and complaints (EventBridge) -> suppressed addresses. */
  bounces: 'record-email-bounce',
  /** Daily after midnight UTC -> the day before's payment summaries, queued. */
  summaries: 'send-daily-summaries',
} as const;

export interface EmailProps {
  readonly config: DeployConfig & { email: NonNullable<DeployConfig['email']> };
  /** What each function's code calls (the stack's {@link FunctionCalls}). */
  readonly calls: FunctionCalls;
  readonly serviceName: string;
  /** The main stack's table: CDK passes its name and ARNs in as parameters of this stack. */
  readonly table: ITableV2;
  /** What the messages link to: PAYMENT_PAGE_URL and PORTAL_ORIGIN (from the main stack). */
  readonly environment: Readonly<Record<string, string>>;
  /** The main stack's alarm topic. */
  readonly alarmTopic: ITopic;
}

/** SQS's maximum retention: a job may wait out an SES outage or a DLQ investigation. */
const RETENTION = Duration.days(14);

/**
 * Email in a nested stack of its own (about thirty resources the main stack, near
 * CloudFormation's 500, has no room for): the SES domain identity (DKIM) and configuration set,
 * whose bounces and complaints reach the bounce recorder through EventBridge; the email queue
 * and its dead-letter queue (alarmed); the sender, which alone may call ses:SendEmail, and only
 * for this identity and configuration set; the daily summary's schedule. The table stream's
 * consumer that queues email events is the main stack's order-events ({@link grantEnqueue}).
 */
export class Email extends NestedStack {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly identity: EmailIdentity;
  readonly configurationSet: ConfigurationSet;
  readonly functions = new Map<string, ServiceFunction>();
  readonly alarms: ServiceAlarms;
  private readonly settings: EmailProps;

  constructor(scope: Construct, id: string, props: EmailProps) {
    super(scope, id, { description: 'Email: SES identity and configuration set, the email queue, the sender, the bounce recorder and the daily summary' });
    this.settings = props;
    const { email } = props.config;
    this.alarms = new ServiceAlarms(this, 'Alarms', { topic: props.alarmTopic });

    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', {});
    // Bounces and complaints to the account's default event bus, where a rule hands them to the recorder.
    this.configurationSet.addEventDestination('BouncesAndComplaints', {
      destination: EventDestination.eventBus(EventBus.fromEventBusName(this, 'DefaultBus', 'default')),
      events: [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT],
    });
    this.identity = new EmailIdentity(this, 'Identity', { identity: Identity.domain(email.domain), configurationSet: this.configurationSet });

    this.deadLetterQueue = this.encryptedQueue('DeadLetterQueue');
    // The sender's timeout is 30 s: six times that, as AWS advises for SQS event sources.
    this.queue = this.encryptedQueue('Queue', { visibilityTimeout: Duration.seconds(180), deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 10 } });

    const queueEnvironment = { EMAIL_QUEUE_URL: this.queue.queueUrl };
    const sender = this.addFunction(
      EMAIL_FUNCTIONS.send,
      'write',
      Duration.seconds(30),
      {
        ...queueEnvironment,
        EMAIL_DLQ_URL: this.deadLetterQueue.queueUrl,
        EMAIL_FROM: email.from,
        EMAIL_SES_CONFIGURATION_SET: this.configurationSet.configurationSetName,
        ...(email.sesRegion ? { EMAIL_SES_REGION: email.sesRegion } : {}),
      },
      // The token key (the 'token-key' grant of the main stack's functions): the buyer's refund-link
      // email makes the link again from the refund, as the refunds service does (shared/core/server-key.ts).
      { TOKEN_HMAC_KEY_PARAMETER: props.config.tokenKeyParameter },
    );
    sender.function.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }));
    // A retry is a new message on the same queue; the last failure goes to the dead-letter queue.
    sender.allow({ resource: 'email-queue', arns: [this.queue.queueArn] });
    sender.allow({ resource: 'email-dead-letters', arns: [this.deadLetterQueue.queueArn] });
    const region = email.sesRegion ?? Stack.of(this).region;
    const sesArn = (resource: string) => Stack.of(this).formatArn({ service: 'ses', region, resource, resourceName: undefined });
    sender.allow({ resource: 'email-sending', arns: [sesArn(`identity/${email.domain}`), sesArn(`configuration-set/${this.configurationSet.configurationSetName}`)] });

    const bounces = this.addFunction(EMAIL_FUNCTIONS.bounces, 'write', Duration.seconds(10), {});
    new Rule(this, 'SesEvents', {
      description: 'SES bounces and complaints -> record-email-bounce (the address is suppressed)',
      eventPattern: { source: ['aws.ses'], detailType: ['Email Bounced', 'Email Complaint Received'] },
      targets: [new LambdaTarget(bounces.function, { retryAttempts: 8 })],
    });

    const summaries = this.addFunction(EMAIL_FUNCTIONS.summaries, 'read', Duration.seconds(60), queueEnvironment);
    summaries.allow({ resource: 'email-queue', arns: [this.queue.queueArn] });
    new Rule(this, 'DailySummarySchedule', {
      description: 'Runs send-daily-summaries at 00:15 UTC',
      schedule: Schedule.cron({ minute: '15', hour: '0' }),
      targets: [new LambdaTarget(summaries.function, { retryAttempts: 2 })],
    });

    this.alarms.alarmWhenQueueHasMessages(
      'EmailDeadLetters',
      this.deadLetterQueue,
      'Emails could not be sent after every attempt (SES refusing, throttling, or a sender fault): merchants or buyers missed them. Inspect, fix, then redrive the messages to the email queue (each recipient already sent is skipped).',
    );
  }

  /** Lets `fn` (order-events) queue email events, and tells it where. */
  grantEnqueue(fn: CallingFunction): void {
    fn.allow({ resource: 'email-queue', arns: [this.queue.queueArn] });
    fn.function.addEnvironment('EMAIL_QUEUE_URL', this.queue.queueUrl);
  }

  private addFunction(folder: string, tableAccess: TableAccess, timeout: Duration, environment: Record<string, string>, parameters: Record<string, string> = {}): ServiceFunction {
    const fn = new ServiceFunction(this, constructId(folder), {
      folder,
      calls: this.settings.calls,
      serviceName: this.settings.serviceName,
      logLevel: this.settings.config.logLevel,
      table: this.settings.table,
      tableAccess,
      timeout,
      environment: { ...this.settings.config.handlerEnvironment, ...this.settings.environment, ...environment },
      parameters,
    });
    this.functions.set(folder, fn);
    this.alarms.alarmOnErrors(`${constructId(folder)}Errors`, fn.function, `${folder} invocations are failing`);
    return fn;
  }

  private encryptedQueue(id: string, extra: QueueProps = {}): Queue {
    return new Queue(this, id, { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: RETENTION, ...extra });
  }
}
