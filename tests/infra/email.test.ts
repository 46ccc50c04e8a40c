import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { CryptoPayStack } from '#infra/cdk/stack';
import { EMAIL_FUNCTIONS } from '#infra/cdk/constructs/email';
import { EMAIL_EVENT_PATTERNS } from '#shared/email/events';
import { OUTBOX_INSERT_PATTERN } from '#shared/callbacks/outbox';
import { PERIOD_ORDER_PATTERN } from '#shared/services/renewal-queue';
import { actionsOf, deployConfig, logicalId, resourcesOf, serviceFunctions, statementsOfRole, TEST_ENV, testApp, variablesOf } from './support.ts';

/**
 * Email in AWS: its nested stack (SES identity and configuration set, queue and dead-letter
 * queue, the sender, the bounce recorder, the daily summary) with an emailDomain, nothing
 * without one; the sender alone may send, and only as the identity through the configuration set.
 */
const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

function build(env: Record<string, string>) {
  const made = testApp({ bundle: false });
  cleanups.push(made.cleanup);
  return new CryptoPayStack(made.app, 'Email', { env: TEST_ENV, config: deployConfig(env) });
}

const filtersOfOrderEvents = (stack: CryptoPayStack): unknown[] => {
  const mappings = Object.values(resourcesOf(Template.fromStack(stack), 'AWS::Lambda::EventSourceMapping')).filter((mapping) =>
    JSON.stringify(mapping.Properties?.EventSourceArn).includes('StreamArn'),
  );
  expect(mappings).toHaveLength(1);
  return ((mappings[0]!.Properties!.FilterCriteria as { Filters: { Pattern: string }[] }).Filters ?? []).map((filter) => JSON.parse(filter.Pattern));
};

describe('email in the stack', () => {
  const stack = build({ EMAIL_DOMAIN: 'mail.example.com', EMAIL_FROM: 'Shop Payments <pay@mail.example.com>' });
  const nested = Template.fromStack(stack.email!);
  const functions = serviceFunctions(stack);

  it('verifies the domain with DKIM through a configuration set whose bounces and complaints reach the recorder', () => {
    nested.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'mail.example.com' });
    nested.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      EventDestination: { Enabled: true, MatchingEventTypes: ['bounce', 'complaint'], EventBridgeDestination: { EventBusArn: Match.anyValue() } },
    });
    const rules = Object.values(resourcesOf(nested, 'AWS::Events::Rule')).map((rule) => rule.Properties);
    expect(rules).toContainEqual(expect.objectContaining({ EventPattern: { source: ['aws.ses'], 'detail-type': ['Email Bounced', 'Email Complaint Received'] } }));
    expect(rules).toContainEqual(expect.objectContaining({ ScheduleExpression: 'cron(15 0 * * ? *)' }));
    expect(Object.keys(Template.fromStack(stack).toJSON().Outputs)).toEqual(expect.arrayContaining(['EmailDkimRecord1', 'EmailDkimRecord2', 'EmailDkimRecord3']));
  });

  it('lets only the sender call ses:SendEmail, on the identity and the configuration set alone', () => {
    const senders = [...functions.values()].filter((placed) =>
      statementsOfRole(placed.template, logicalId(placed.stack, placed.fn.role)).some((statement) => actionsOf(statement).some((action) => action.startsWith('ses:'))),
    );
    expect(senders.map((placed) => placed.key)).toEqual([EMAIL_FUNCTIONS.send]);
    const sender = senders[0]!;
    const ses = statementsOfRole(sender.template, logicalId(sender.stack, sender.fn.role)).filter((statement) => actionsOf(statement).includes('ses:SendEmail'));
    expect(ses).toHaveLength(1);
    const resources = JSON.stringify(ses[0]!.Resource);
    expect(resources).toContain(':identity/mail.example.com');
    expect(resources).toContain(':configuration-set/');
    expect(resources).not.toContain('*');
    expect(variablesOf(sender)).toMatchObject({
      EMAIL_FROM: 'Shop Payments <pay@mail.example.com>',
      EMAIL_QUEUE_URL: expect.anything(),
      EMAIL_DLQ_URL: expect.anything(),
      EMAIL_SES_CONFIGURATION_SET: expect.anything(),
      PORTAL_ORIGIN: expect.anything(),
    });
    // The buyer's refund-link email is made with the server's token key, as the refunds service makes the link.
    expect(variablesOf(sender)).toMatchObject({ TOKEN_HMAC_KEY_PARAMETER: deployConfig({}).tokenKeyParameter });
    expect(variablesOf(functions.get(EMAIL_FUNCTIONS.bounces)!)).not.toHaveProperty('TOKEN_HMAC_KEY_PARAMETER');
  });

  it('consumes the email queue with partial batch failures; its dead-letter queue is alarmed', () => {
    nested.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    nested.hasResourceProperties('AWS::SQS::Queue', { RedrivePolicy: { maxReceiveCount: 10, deadLetterTargetArn: Match.anyValue() }, SqsManagedSseEnabled: true });
    const alarms = Object.values(resourcesOf(nested, 'AWS::CloudWatch::Alarm')).map((alarm) => String(alarm.Properties?.AlarmDescription));
    expect(alarms.some((description) => description.startsWith('Emails could not be sent'))).toBe(true);
    expect(alarms.filter((description) => description.endsWith('invocations are failing'))).toHaveLength(3);
  });

  it('hands order-events the records emails come from, and lets it queue them', () => {
    expect(filtersOfOrderEvents(stack)).toEqual([OUTBOX_INSERT_PATTERN, PERIOD_ORDER_PATTERN, ...EMAIL_EVENT_PATTERNS]);
    expect(variablesOf(functions.get('order-events')!)).toMatchObject({ EMAIL_QUEUE_URL: expect.anything() });
  });
});

describe('without an email domain', () => {
  it('has no email stack, and order-events sees only delivery inserts', () => {
    const stack = build({});
    expect(stack.email).toBeUndefined();
    expect(filtersOfOrderEvents(stack)).toEqual([OUTBOX_INSERT_PATTERN, PERIOD_ORDER_PATTERN]);
    expect(variablesOf(serviceFunctions(stack).get('order-events')!)).not.toHaveProperty('EMAIL_QUEUE_URL');
  });

  it('refuses email settings that cannot work', () => {
    expect(() => deployConfig({ EMAIL_FROM: 'a@b.example' })).toThrow(/emailFrom .*needs emailDomain/);
    expect(() => deployConfig({ EMAIL_DOMAIN: 'Mail.Example.com' })).toThrow(/lower-case DNS name/);
    expect(() => deployConfig({ EMAIL_DOMAIN: 'mail.example.com', EMAIL_FROM: 'x@other.example' })).toThrow(/address at mail.example.com/);
    expect(deployConfig({ EMAIL_DOMAIN: 'mail.example.com' }).email).toEqual({ domain: 'mail.example.com', from: 'Crypto Pay Orders <no-reply@mail.example.com>' });
  });
});
