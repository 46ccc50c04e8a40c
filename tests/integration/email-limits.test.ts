import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CapturedMail } from '#infra/local/mailbox';
import type { EmailEvent } from '#shared/domain/email';
import type { EmailTransport } from '#shared/email/transport';
import { signedInUser } from '../support/portal';
import { startPipeline } from '../support/pipeline';
import { recordAttack } from '../support/security-report';

/**
 * The outbound mail limits (docs/security.md "Outbound mail") on the real parts: the API, the
 * table's stream, the email queue, the sender, DynamoDB Local's counters and a real SMTP server
 * on loopback. The attack of issue 43 runs as a client would run it (a sandbox merchant's link
 * that asks for the buyer's email, paid again and again from the page); the per-link,
 * per-merchant and per-mailbox windows are driven through the sender with an injected `now`
 * (so an hour or a day passes without waiting), sending to the same SMTP server.
 */
const TABLE = `email-limits-${process.pid}`;
const LIMITS = { address: 3, link: 4, merchantHour: 5, merchantDay: 7, sandbox: 4, team: 4 };
let pipeline: Awaited<ReturnType<typeof startPipeline>>;
let call: ReturnType<typeof import('../support/api').client>;
let smtp: EmailTransport & { close(): void };
let origin: string;

const mail = () => pipeline.mailbox!;
const to = (address: string) => (message: CapturedMail) => message.envelopeTo.some((recipient) => recipient.toLowerCase() === address.toLowerCase());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stranger = () => `stranger-${randomUUID().slice(0, 8)}@example.test`;
/** Mid-morning of a fixed day: an hour later is the same UTC day, a day later the next window of all. */
const T = Date.parse('2031-01-15T10:30:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const store = () => import('#shared/store/emails');

beforeAll(async () => {
  pipeline = await startPipeline(
    TABLE,
    {
      EMAIL_BUYER_PER_ADDRESS_DAY: String(LIMITS.address),
      EMAIL_BUYER_PER_LINK_HOUR: String(LIMITS.link),
      EMAIL_BUYER_PER_MERCHANT_HOUR: String(LIMITS.merchantHour),
      EMAIL_BUYER_PER_MERCHANT_DAY: String(LIMITS.merchantDay),
      EMAIL_SANDBOX_BUYER_PER_DAY: String(LIMITS.sandbox),
      EMAIL_TEAM_PER_ADDRESS_DAY: String(LIMITS.team),
    },
    { email: true },
  );
  call = pipeline.support.client(pipeline.api.url);
  origin = `http://localhost:${new URL(pipeline.api.url).port}`;
  Object.assign(process.env, { PORTAL_ORIGIN: origin, PORTAL_CLIENT_IP_HEADER: 'x-test-client' });
  const { smtpTransport } = await import('#shared/email/smtp');
  smtp = smtpTransport(mail().smtpUrl);
}, 60_000);

afterAll(async () => {
  smtp?.close();
  await pipeline?.stop();
});

/** A paid order's event as order-events queues it, to `email`, of `merchantId` (from a payment link's order when `linkId` is given). */
async function paidEvent(merchantId: number, email: string, linkId?: string): Promise<EmailEvent> {
  const { linkReference } = await import('#shared/domain/payment-link');
  const reference = linkId ? linkReference(linkId, randomUUID()) : `M-${randomUUID().slice(0, 8)}`;
  return {
    kind: 'order_paid',
    event_id: `order_paid.${randomUUID()}.3`,
    order: {
      order_id: randomUUID(),
      user_id: merchantId,
      merchant_order_id: reference,
      title: 'Blue mug',
      price_amount: '5',
      price_currency: 'USD',
      pay_amount: '5',
      pay_currency: 'USD',
      status: 'PAID',
      email,
      at: new Date(T).toISOString(),
    },
  };
}

/** Runs the sender on one event at `now` (SMTP by default), and answers how its buyer email ended. */
async function sendAt(event: EmailEvent, now: number, transport: EmailTransport = smtp, attempt = 0) {
  const { processEmailJob } = await import('#shared/email/sender');
  expect(await processEmailJob({ event, attempt }, '', transport, new Date(now))).toBe('done');
  const found = await (await store()).findEmail(event.event_id, 'buyer');
  return found?.state === 'LIMITED' ? `LIMITED ${found.limited_by}` : found?.state;
}

/** The buyer emails of `events`, in order, each at `now`. */
async function sendAllAt(events: EmailEvent[], now: number): Promise<(string | undefined)[]> {
  const states = [];
  for (const event of events) states.push(await sendAt(event, now));
  return states;
}

/** Messages to `address` at the SMTP server: waits for `count`, then checks no more came. */
async function arrived(address: string, count: number): Promise<number> {
  if (count > 0) await mail().waitFor(to(address), { count });
  await sleep(300);
  return mail().messages().filter(to(address)).length;
}

describe.concurrent('outbound mail limits', () => {
  it("one anonymous client paying a sandbox link again and again with a stranger's address: the stranger gets the day's few, the rest are kept as LIMITED; another address still gets its receipt", async ({
    expect,
  }) => {
    const shop = await pipeline.support.newMerchant(true, 'Bomb Shop');
    const created = await call('POST', '/v1/links', { token: shop.api_token, body: { title: 'Sticker', price_amount: '1', price_currency: 'USD', ask_email: true } });
    expect(created.status, created.text).toBe(201);
    const linkId = created.body.link.link_id as string;
    const victim = stranger();
    const [local, domain] = victim.split('@') as [string, string];
    // The same mailbox, spelled as an attacker would to get past a per-address count.
    const spellings = [victim, victim.toUpperCase(), `${local}+${randomUUID().slice(0, 4)}@${domain}`];
    const startDay = new Date().toISOString().slice(0, 10);

    const PAYS = 20;
    const pay = async (email: string): Promise<string> => {
      const order = await call('POST', `/v1/pay/links/${linkId}/orders`, { body: { pay_currency: 'BTC', email } });
      expect(order.status, order.text).toBe(201);
      const paid = await call('POST', `/v1/pay/${order.body.order_id}/sandbox-pay`);
      expect(paid.body.order?.status, paid.text).toBe('PAID');
      return order.body.order_id as string;
    };
    const ids: string[] = [];
    for (let round = 0; round < PAYS / 5; round += 1) {
      ids.push(...(await Promise.all([0, 1, 2, 3, 4].map((n) => pay(spellings[(round * 5 + n) % spellings.length]!)))));
    }

    // Every receipt ends recorded: sent, or LIMITED naming the limit (none lost, none waiting for a retry).
    const { findOrderWithInvoice } = await import('#shared/store/orders');
    const { findEmail } = await store();
    const stateOf = async (id: string) => {
      const version = (await findOrderWithInvoice(id))!.order.version;
      const found = await findEmail(`order_paid.${id}.${version}`, 'buyer');
      return found?.state === 'LIMITED' ? `LIMITED ${found.limited_by}` : found?.state;
    };
    const final = (state: string | undefined) => state === 'SENT' || state?.startsWith('LIMITED');
    await expect.poll(async () => (await Promise.all(ids.map(stateOf))).every(final), { timeout: 30_000, interval: 250 }).toBe(true);
    const states = await Promise.all(ids.map(stateOf));
    // A run across UTC midnight starts a new day's window half-way: then at most twice the day's limit.
    const sameDay = new Date().toISOString().slice(0, 10) === startDay;
    const sent = states.filter((state) => state === 'SENT').length;
    if (sameDay) expect(sent).toBe(LIMITS.address);
    else expect(sent).toBeLessThanOrEqual(2 * LIMITS.address);
    expect(states.filter((state) => state === 'LIMITED buyer_address_day')).toHaveLength(PAYS - sent);
    // Whatever the spelling, what reached the SMTP server for that mailbox.
    const toVictim = (message: CapturedMail) => message.envelopeTo.some((recipient) => recipient.toLowerCase().startsWith(local) && recipient.toLowerCase().endsWith(`@${domain}`));
    await mail().waitFor(toVictim, { count: sent });
    await sleep(300);
    const atServer = mail().messages().filter(toVictim).length;
    expect(atServer).toBe(sent);

    // Another buyer of the same link is not held back by the stranger's flood.
    const other = stranger();
    const otherId = await pay(other);
    const [receipt] = await mail().waitFor(to(other));
    expect(receipt!.subject).toBe('Your receipt from Bomb Shop / Bomb Shop 的付款收据');
    await expect.poll(() => stateOf(otherId), { timeout: 10_000 }).toBe('SENT');

    recordAttack('mail-bomb', {
      attack: "Anonymous buyer orders on a sandbox merchant's payment link that asks for an email, each paid from the page, all with one stranger's mailbox (3 spellings: case, +tag)",
      count: PAYS,
      outcome: `receipts SENT x${sent}, LIMITED (buyer_address_day) x${PAYS - sent}; ${atServer} reached the SMTP server; another buyer's receipt on the same link: ${await stateOf(otherId)}; links, merchants and sandbox merchants have windows of their own (tests/integration/email-limits.test.ts)`,
      test: 'tests/integration/email-limits.test.ts',
    });
  }, 60_000);

  it("a payment link's buyer mail: its hour's limit, then LIMITED; the merchant's other orders still mail; the next hour the link mails again", async () => {
    const shop = await pipeline.support.newMerchant(false, 'Link Limit Shop');
    const linkId = randomUUID();
    const buyers = Array.from({ length: LIMITS.link + 2 }, stranger);
    const states = await sendAllAt(await Promise.all(buyers.map((buyer) => paidEvent(shop.user_id, buyer, linkId))), T);
    expect(states).toEqual([...Array(LIMITS.link).fill('SENT'), 'LIMITED link_hour', 'LIMITED link_hour']);
    expect(await arrived(buyers[0]!, 1)).toBe(1);
    expect(await arrived(buyers.at(-1)!, 0)).toBe(0);
    // Not from the link: counted by the merchant only.
    const direct = stranger();
    expect(await sendAt(await paidEvent(shop.user_id, direct), T + 60_000)).toBe('SENT');
    expect(await arrived(direct, 1)).toBe(1);
    // The link's next hour.
    const later = stranger();
    expect(await sendAt(await paidEvent(shop.user_id, later, linkId), T + HOUR)).toBe('SENT');
    expect(await arrived(later, 1)).toBe(1);
  });

  it("a merchant's buyer mail: its hour's and its day's limits; another merchant is not held back; the next day it mails again", async () => {
    const shop = await pipeline.support.newMerchant(false, 'Busy Shop');
    const other = await pipeline.support.newMerchant(false, 'Quiet Shop');
    const first = Array.from({ length: LIMITS.merchantHour + 1 }, stranger);
    expect(await sendAllAt(await Promise.all(first.map((buyer) => paidEvent(shop.user_id, buyer))), T)).toEqual([...Array(LIMITS.merchantHour).fill('SENT'), 'LIMITED merchant_hour']);
    expect(await sendAt(await paidEvent(other.user_id, stranger()), T)).toBe('SENT');
    // An hour later, the day's limit (the refused one above took no place in the day).
    const second = Array.from({ length: LIMITS.merchantDay - LIMITS.merchantHour + 1 }, stranger);
    expect(await sendAllAt(await Promise.all(second.map((buyer) => paidEvent(shop.user_id, buyer))), T + HOUR)).toEqual([
      ...Array(LIMITS.merchantDay - LIMITS.merchantHour).fill('SENT'),
      'LIMITED merchant_day',
    ]);
    expect(await arrived(second.at(-1)!, 0)).toBe(0);
    expect(await arrived(second[0]!, 1)).toBe(1);
    expect(await sendAt(await paidEvent(shop.user_id, stranger()), T + DAY)).toBe('SENT');
  });

  it("a sandbox merchant mails strangers a few a day; its own team's mailbox gets buyer mail as team mail, within the team's limit", async () => {
    const shop = await pipeline.support.newMerchant(true, 'Sandbox Shop');
    const strangers = Array.from({ length: LIMITS.sandbox + 2 }, stranger);
    expect(await sendAllAt(await Promise.all(strangers.map((buyer) => paidEvent(shop.user_id, buyer))), T)).toEqual([
      ...Array(LIMITS.sandbox).fill('SENT'),
      'LIMITED sandbox_day',
      'LIMITED sandbox_day',
    ]);
    expect(await arrived(strangers.at(-1)!, 0)).toBe(0);

    // A member gives their own address (payments off: only the receipts come); receipts to it, even with a +tag, are the team's mail.
    const { browser } = await signedInUser(pipeline.api.url, origin, shop.user_id, 'owner');
    const own = `dev-${randomUUID().slice(0, 8)}@merchant.test`;
    const saved = await browser.call('POST', '/v1/portal/email-preferences', {
      body: { address: own, language: 'en', payments: 'off', topics: { unresolved: false, callbacks: false, refund_address: false, new_passkey: false, team: false } },
    });
    expect(saved.status, saved.text).toBe(200);
    const tagged = own.replace('@', '+test@');
    expect(await sendAllAt(await Promise.all(Array.from({ length: LIMITS.team + 1 }, () => paidEvent(shop.user_id, tagged))), T)).toEqual([
      ...Array(LIMITS.team).fill('SENT'),
      'LIMITED team_address_day',
    ]);
    expect(await arrived(tagged, LIMITS.team)).toBe(LIMITS.team);
    // The next day, strangers again get their few.
    expect(await sendAt(await paidEvent(shop.user_id, stranger()), T + DAY)).toBe('SENT');
  });

  it('a send that fails is retried without being counted again', async () => {
    const shop = await pipeline.support.newMerchant(false, 'Retry Shop');
    const buyer = stranger();
    const down: EmailTransport = {
      send: () => Promise.reject(new Error('connection refused')),
    };
    const event = await paidEvent(shop.user_id, buyer);
    // The retry goes on the queue for T + 1 s: the pipeline's poller postpones it (its clock is not T).
    const { SendMessageCommand, SQSClient } = await import('@aws-sdk/client-sqs');
    const send = vi.spyOn(SQSClient.prototype, 'send');
    expect(await sendAt(event, T, down)).toBe('SENDING');
    const retries = send.mock.calls.map(([command]) => command).filter((command) => command instanceof SendMessageCommand && command.input.MessageBody?.includes(event.event_id));
    send.mockRestore();
    // A new message, attempt 1, not before EMAIL_RETRY_BASE_SECONDS (the pipeline's 1 s) from the job's time.
    expect(retries.map((command) => command.input)).toEqual([
      { QueueUrl: pipeline.sqs.emailQueueUrl, MessageBody: JSON.stringify({ event, attempt: 1, not_before: new Date(T + 1_000).toISOString() }), DelaySeconds: 1 },
    ]);
    expect((await (await store()).findEmail(event.event_id, 'buyer'))?.counted).toBe(true);
    expect(await sendAt(event, T + 2_000, smtp, 1)).toBe('SENT');
    // Counted once: the day's other two places are left.
    const rest = await Promise.all(Array.from({ length: LIMITS.address }, () => paidEvent(shop.user_id, buyer)));
    expect(await sendAllAt(rest, T + 3_000)).toEqual([...Array(LIMITS.address - 1).fill('SENT'), 'LIMITED buyer_address_day']);
    expect(await arrived(buyer, LIMITS.address)).toBe(LIMITS.address);
  });

  it('a try whose claim landed but whose answer was lost holds the email: the next try is not the end of it, but waits for the lease and sends', async () => {
    const shop = await pipeline.support.newMerchant(false, 'Lost Answer Shop');
    const buyer = stranger();
    const event = await paidEvent(shop.user_id, buyer);
    // The first try's claim, written at T; its answer never came back, so that try failed and its job is retried.
    const { claimEmail, findEmail } = await store();
    expect(await claimEmail(event.event_id, 'buyer', new Date(T), 60)).toMatchObject({ lease: new Date(T + 60_000).toISOString() });
    const { SendMessageCommand, SQSClient } = await import('@aws-sdk/client-sqs');
    const send = vi.spyOn(SQSClient.prototype, 'send');
    // The retry, 5 s later, finds the claim held: nothing sent, and a try after the lease is queued.
    expect(await sendAt(event, T + 5_000)).toBe('SENDING');
    const retries = send.mock.calls.map(([command]) => command).filter((command) => command instanceof SendMessageCommand && command.input.MessageBody?.includes(event.event_id));
    send.mockRestore();
    expect(retries.map((command) => command.input)).toEqual([
      { QueueUrl: pipeline.sqs.emailQueueUrl, MessageBody: JSON.stringify({ event, attempt: 1, not_before: new Date(T + 66_000).toISOString() }), DelaySeconds: 61 },
    ]);
    expect(await arrived(buyer, 0)).toBe(0);
    // That try, after the lease: it takes the claim over and sends, once.
    expect(await sendAt(event, T + 66_000, smtp, 1)).toBe('SENT');
    expect(await arrived(buyer, 1)).toBe(1);
    expect((await findEmail(event.event_id, 'buyer'))?.attempts).toBe(2);
  });
});
