import { randomUUID } from 'node:crypto';
import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import { type Mailbox, startMailbox } from '#infra/local/mailbox';
import { type LocalSqs, startLocalSqs } from '#infra/local/sqs';
import type { EmailEvent } from '#shared/domain/email';
import type { EmailJob } from '#shared/email/queue';
import { type Call, type FaultProxy, startFaultProxy } from '../support/aws-faults';

/**
 * An email that went out is never sent again because its record failed. The sender claims an
 * email, sends it, then records it SENT; a claim left SENDING is taken over once its lease ends
 * (a worker that died), so a record that failed used to mean a second email to the buyer (seen
 * in the fault test: a receipt twice). Here the store fails exactly the SENT records, through the
 * fault proxy (tests/support/aws-faults.ts), answering a 500 as DynamoDB does; the mail goes to a
 * real SMTP server on loopback and the retries to the SQS emulator.
 */
const TABLE = `email-records-${process.pid}`;
let dynamodb: FaultProxy;
let sqs: LocalSqs;
let sqsClient: SQSClient;
let mailbox: Mailbox;
let merchantId: number;
let sender: typeof import('#shared/email/sender');
let transport: ReturnType<typeof import('#shared/email/smtp').smtpTransport>;
let findEmail: typeof import('#shared/store/emails').findEmail;

beforeAll(async () => {
  await ensureTable(inject('dynamodbEndpoint'), TABLE, { stream: false });
  dynamodb = await startFaultProxy(inject('dynamodbEndpoint'));
  sqs = await startLocalSqs({ prefix: TABLE });
  mailbox = await startMailbox();
  Object.assign(process.env, {
    TABLE_NAME: TABLE,
    DYNAMODB_ENDPOINT: dynamodb.url,
    SQS_ENDPOINT: sqs.endpoint,
    EMAIL_QUEUE_URL: sqs.emailQueueUrl,
    EMAIL_DLQ_URL: sqs.emailDeadLetterQueueUrl,
    EMAIL_FROM: 'Test Shop Payments <pay@shop.test>',
    EMAIL_RETRY_BASE_SECONDS: '1',
    PORTAL_ORIGIN: 'http://localhost:9',
  });
  sqsClient = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  merchantId = (await (await import('../support/api')).newMerchant(true, 'Record Shop')).user_id;
  sender = await import('#shared/email/sender');
  transport = (await import('#shared/email/smtp')).smtpTransport(mailbox.smtpUrl);
  ({ findEmail } = await import('#shared/store/emails'));
  dynamodb.plan = recordFaults;
}, 60_000);

afterAll(async () => {
  transport?.close();
  sqsClient?.destroy();
  await dynamodb?.stop();
  await sqs?.stop();
  await mailbox?.stop();
});

/** A paid order's event whose buyer (the receipt's one recipient) is a new address. */
function paidEvent(): { event: EmailEvent; buyer: string } {
  const buyer = `buyer-${randomUUID().slice(0, 8)}@example.test`;
  const orderId = randomUUID();
  const order = {
    order_id: orderId,
    user_id: merchantId,
    merchant_order_id: `R-${orderId.slice(0, 6)}`,
    title: 'Blue mug',
    price_amount: '12.5',
    price_currency: 'USD',
    pay_amount: '0.0002',
    pay_currency: 'BTC',
    status: 'PAID',
    email: buyer,
    at: new Date().toISOString(),
  };
  return { event: { kind: 'order_paid', event_id: `order_paid.${orderId}.3`, order } as EmailEvent, buyer };
}

/** SENT records of each event still to fail (the tests run at the same time, each with its own event). */
const failing = new Map<string, number>();

/** Fails the next `times` SENT records of `eventId` with DynamoDB's 500 (every later one lands). */
function failSentRecords(eventId: string, times: number): void {
  failing.set(`EMAIL#${eventId}`, times);
}

const recordFaults = (call: Call) => {
  const values = call.body.ExpressionAttributeValues as Record<string, { S?: string }> | undefined;
  const partition = (call.body.Key as { PK?: { S?: string } } | undefined)?.PK?.S ?? '';
  const left = failing.get(partition) ?? 0;
  if (call.operation !== 'UpdateItem' || values?.[':state']?.S !== 'SENT' || left <= 0) return undefined;
  failing.set(partition, left - 1);
  return 'internal-error' as const;
};

/**
 * The email queue's messages for `eventId` (received and deleted), once `afterMs` has passed (a
 * first retry's delay is 1 s here); another test's are made visible again at once.
 */
async function queuedFor(eventId: string, afterMs = 1_500): Promise<EmailJob[]> {
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  const found: EmailJob[] = [];
  for (;;) {
    const { Messages = [] } = await sqsClient.send(new ReceiveMessageCommand({ QueueUrl: sqs.emailQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    const ours = Messages.filter((message) => (JSON.parse(message.Body!) as EmailJob).event.event_id === eventId);
    for (const message of Messages) {
      const handle = { QueueUrl: sqs.emailQueueUrl, ReceiptHandle: message.ReceiptHandle! };
      if (ours.includes(message)) await sqsClient.send(new DeleteMessageCommand(handle));
      else await sqsClient.send(new ChangeMessageVisibilityCommand({ ...handle, VisibilityTimeout: 0 }));
    }
    found.push(...ours.map((message) => JSON.parse(message.Body!) as EmailJob));
    if (ours.length === 0) return found;
  }
}

const receipts = (buyer: string) => mailbox.messages().filter((mail) => mail.envelopeTo.includes(buyer));
const LEASE_MS = 60_000;

// Each test with an event and a buyer of its own: they run at the same time.
describe.concurrent('a sent email whose record fails', () => {
  it("is recorded by the same try when the record fails only the SDK's own three tries", async () => {
    const { event, buyer } = paidEvent();
    failSentRecords(event.event_id, 3);
    expect(await sender.processEmailJob({ event, attempt: 0 }, 'not-postponed', transport, new Date())).toBe('done');
    expect(receipts(buyer).map((mail) => mail.subject)).toEqual([expect.stringMatching(/^Your receipt/)]);
    expect(await findEmail(event.event_id, 'buyer')).toMatchObject({ state: 'SENT', attempts: 1 });
    // Nothing left to retry.
    expect(await queuedFor(event.event_id)).toEqual([]);
  });

  it('goes with the job to its retry, which records it and never sends it again, even past its lease', async () => {
    const { event, buyer } = paidEvent();
    failSentRecords(event.event_id, Number.POSITIVE_INFINITY);
    expect(await sender.processEmailJob({ event, attempt: 0 }, 'not-postponed', transport, new Date())).toBe('done');
    failSentRecords(event.event_id, 0);
    expect(receipts(buyer)).toHaveLength(1);
    // Sent, not recorded: the claim is still held.
    const held = await findEmail(event.event_id, 'buyer');
    expect(held).toMatchObject({ state: 'SENDING', attempts: 1 });
    const [retry, ...more] = await queuedFor(event.event_id);
    expect(more).toEqual([]);
    expect(retry).toMatchObject({ attempt: 1, sent: [{ recipient: 'buyer', lease: expect.any(String), message_id: expect.stringMatching(/@/) }] });

    // Run after the claim's lease has ended, when a try without the carried email would take the
    // claim over and send the receipt a second time.
    const late = new Date(Date.now() + LEASE_MS + 5_000);
    expect(await sender.processEmailJob(retry!, 'not-postponed', transport, late)).toBe('done');
    expect(await findEmail(event.event_id, 'buyer')).toMatchObject({ state: 'SENT', attempts: 1, message_id: retry!.sent![0]!.message_id });
    // A copy of the first message (a redelivery) finds it sent.
    expect(await sender.processEmailJob({ event, attempt: 0 }, 'not-postponed', transport, late)).toBe('done');
    expect(await queuedFor(event.event_id)).toEqual([]);
    expect(receipts(buyer)).toHaveLength(1);
  });

  it('a carried email whose record fails again is carried again, and still not sent', async () => {
    const { event, buyer } = paidEvent();
    failSentRecords(event.event_id, Number.POSITIVE_INFINITY);
    await sender.processEmailJob({ event, attempt: 0 }, 'not-postponed', transport, new Date());
    const [retry] = await queuedFor(event.event_id);
    expect(retry?.sent).toHaveLength(1);
    // The store still failing the record: the next retry carries the same email.
    expect(await sender.processEmailJob(retry!, 'not-postponed', transport, new Date(Date.now() + LEASE_MS + 5_000))).toBe('done');
    failSentRecords(event.event_id, 0);
    // The second retry waits 2 s.
    const [again] = await queuedFor(event.event_id, 2_500);
    expect(again).toMatchObject({ attempt: 2, sent: retry!.sent });
    expect(receipts(buyer)).toHaveLength(1);
    expect(await sender.processEmailJob(again!, 'not-postponed', transport, new Date(Date.now() + 2 * LEASE_MS))).toBe('done');
    expect(await findEmail(event.event_id, 'buyer')).toMatchObject({ state: 'SENT' });
    expect(receipts(buyer)).toHaveLength(1);
  });
});
