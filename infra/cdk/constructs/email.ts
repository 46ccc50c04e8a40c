import { Duration, NestedStack, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { ConfigurationSet, EmailIdentity, EmailSendingEvent, EventDestination, Identity } from 'aws-cdk-lib/aws-ses';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { DeployConfig } from '#infra/cdk/config';
import { JobQueues } from '#infra/cdk/constructs/job-queues';
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

/**
 * Email in a nested stack of its own (about thirty resources the main stack, near
 * CloudFormation's 500, has no room for): the SES domain identity (DKIM) and configuration set,
 * whose bounces and complaints reach the bounce recorder through EventBridge; the email queue
 * and its dead-letter queue (alarmed); the sender, which alone may call ses:SendEmail, and only
 * for this identity and configuration set; the daily summary's schedule. The table stream's
 * consumer that queues email events is the main stack's order-events ({@link grantEnqueue}).
 */
export class Email extends NestedStack {
  private readonly jobs: JobQueues;
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

    // The sender's timeout is 30 s.
    const senderTimeout = Duration.seconds(30);
    this.jobs = new JobQueues(this, {
      queue: 'email-queue',
      deadLetters: 'email-dead-letters',
      queueUrlVariable: 'EMAIL_QUEUE_URL',
      deadLetterUrlVariable: 'EMAIL_DLQ_URL',
      consumerTimeout: senderTimeout,
      maxReceiveCount: 10,
    });

    const sender = this.addFunction(
      EMAIL_FUNCTIONS.send,
      'write',
      senderTimeout,
      {
        EMAIL_FROM: email.from,
        EMAIL_SES_CONFIGURATION_SET: this.configurationSet.configurationSetName,
        ...(email.sesRegion ? { EMAIL_SES_REGION: email.sesRegion } : {}),
      },
      // The token key (the 'token-key' grant of the main stack's functions): the buyer's refund-link
      // email makes the link again from the refund, as the refunds service does (shared/core/server-key.ts).
      { TOKEN_HMAC_KEY_PARAMETER: props.config.tokenKeyParameter },
    );
    this.jobs.addConsumer(sender);
    const region = email.sesRegion ?? Stack.of(this).region;
    const sesArn = (resource: string) => Stack.of(this).formatArn({ service: 'ses', region, resource, resourceName: undefined });
    sender.allow({ resource: 'email-sending', arns: [sesArn(`identity/${email.domain}`), sesArn(`configuration-set/${this.configurationSet.configurationSetName}`)] });

    const bounces = this.addFunction(EMAIL_FUNCTIONS.bounces, 'write', Duration.seconds(10), {});
    new Rule(this, 'SesEvents', {
      description: 'SES bounces and complaints -> record-email-bounce (the address is suppressed)',
      eventPattern: { source: ['aws.ses'], detailType: ['Email Bounced', 'Email Complaint Received'] },
      targets: [new LambdaTarget(bounces.function, { retryAttempts: 8 })],
    });

    const summaries = this.addFunction(EMAIL_FUNCTIONS.summaries, 'read', Duration.seconds(60), {});
    this.jobs.grantEnqueue(summaries);
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

  get queue(): Queue {
    return this.jobs.queue;
  }

  get deadLetterQueue(): Queue {
    return this.jobs.deadLetterQueue;
  }

  /** Lets `fn` (order-events) queue email events, and tells it where. */
  grantEnqueue(fn: CallingFunction): void {
    this.jobs.grantEnqueue(fn);
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
}
