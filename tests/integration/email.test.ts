import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapturedMail } from '#infra/local/mailbox';
import type { EmailEvent } from '#shared/domain/email';
import { signedInUser, type PortalBrowser } from '../support/portal';
import { startPipeline } from '../support/pipeline';

/**
 * Email end to end on the real parts: orders paid through the API's sandbox, the table's stream
 * read by order-events, the email queue on the SQS emulator, the sender, and a real SMTP server
 * on loopback whose messages are parsed by mailparser (what a mail client would show). Preferences
 * are set through the portal's own route by signed-in users.
 */
const TABLE = `email-${process.pid}`;
let pipeline: Awaited<ReturnType<typeof startPipeline>>;
let call: ReturnType<typeof import('../support/api').client>;
let origin: string;
let failing: Server;
let failingUrl: string;
const secrets: string[] = [];

interface Member {
  browser: PortalBrowser;
  userId: string;
  address: string;
}

const mail = () => pipeline.mailbox!;
const to = (address: string) => (message: CapturedMail) => message.envelopeTo.includes(address);
/** Messages to `address` whose subject starts with `subject` (members also hear of each other joining). */
const about = (address: string, subject: string) => (message: CapturedMail) => to(address)(message) && message.subject.startsWith(subject);
const received = (address: string, subject: string) => mail().messages().filter(about(address, subject));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A member of `merchantId` signed in through an invite, with the email preferences given (through the portal's route). */
async function member(merchantId: number, preferences: { language?: 'en' | 'zh'; payments?: 'each' | 'daily' | 'off'; topics?: Record<string, boolean> } = {}): Promise<Member> {
  const { browser } = await signedInUser(pipeline.api.url, origin, merchantId, 'owner');
  const address = `${randomUUID().slice(0, 8)}@merchant.test`;
  const saved = await browser.call('POST', '/v1/portal/email-preferences', {
    body: {
      address,
      language: preferences.language ?? 'en',
      payments: preferences.payments ?? 'each',
      topics: { unresolved: true, callbacks: true, refund_address: true, new_passkey: true, team: true, ...preferences.topics },
    },
  });
  expect(saved.status, saved.text).toBe(200);
  const session = await browser.call('GET', '/v1/portal/session');
  secrets.push(browser.cookie!.split('=')[1]!, browser.csrf!);
  return { browser, userId: session.body.user.user_id, address };
}

async function merchant(name: string) {
  const created = await pipeline.support.newMerchant(true, name);
  secrets.push(created.api_token, created.callback_secret);
  return created;
}

async function paidOrder(token: string, body: Record<string, unknown>) {
  const orderToken = `tok-${randomUUID()}`;
  secrets.push(orderToken);
  const merchantOrderId = `M-${randomUUID().slice(0, 8)}`;
  const created = await call('POST', '/v1/orders', { token, body: { merchant_order_id: merchantOrderId, price_amount: 12.5, price_currency: 'USD', title: 'Blue mug', token: orderToken, ...body } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  const checkout = await call('POST', `/v1/orders/${id}/checkout`, { token, body: { pay_currency: 'BTC' } });
  expect(checkout.status, checkout.text).toBe(200);
  const paid = await call('POST', `/v1/sandbox/orders/${id}/pay`, { token, body: {} });
  expect(paid.status, paid.text).toBe(200);
  return { id, merchantOrderId };
}

/** No secret of this file (API tokens, callback secrets, order tokens, session ids, CSRF tokens) in any message. */
function expectNoSecrets(messages: readonly CapturedMail[]): void {
  for (const message of messages) {
    for (const secret of secrets) expect(message.raw, `${message.subject} carries a secret`).not.toContain(secret);
  }
}

beforeAll(async () => {
  pipeline = await startPipeline(TABLE, { EMAIL_CALLBACK_ALERT_SECONDS: '2' }, { email: true });
  call = pipeline.support.client(pipeline.api.url);
  origin = `http://localhost:${new URL(pipeline.api.url).port}`;
  Object.assign(process.env, { PORTAL_ORIGIN: origin, PORTAL_CLIENT_IP_HEADER: 'x-test-client' });
  // A merchant endpoint that always fails: its callbacks fail past the (test's two-second) hour.
  failing = createServer((_request, response) => {
    response.writeHead(500);
    response.end('down');
  });
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/callback`;
}, 60_000);

afterAll(async () => {
  if (pipeline?.mailbox) expectNoSecrets(pipeline.mailbox.messages());
  failing?.close();
  await pipeline?.stop();
});

// Each test has merchants and addresses of its own and mostly waits for mail: they run at the same time.
describe.concurrent('email', () => {
  describe('a payment received', () => {
    it('emails each member who wants it, in their language, and the buyer a receipt in both; not those who chose otherwise', async () => {
      const shop = await merchant('Mug Shop');
      const english = await member(shop.user_id, { language: 'en' });
      const chinese = await member(shop.user_id, { language: 'zh' });
      const off = await member(shop.user_id, { payments: 'off' });
      const buyer = `buyer-${randomUUID().slice(0, 8)}@example.test`;
      const order = await paidOrder(shop.api_token, { email: buyer });

      const [en] = await mail().waitFor(about(english.address, 'Payment received'));
      expect(en!.subject).toBe(`Payment received: order ${order.merchantOrderId}`);
      expect(en!.from).toContain('pay@shop.test');
      expect(en!.text).toContain('Mug Shop received a payment.');
      expect(en!.text).toContain('12.50 USD');
      expect(en!.text).toContain(`${origin}/portal/#/orders/${order.id}`);
      // Every merchant email links to the preferences.
      expect(en!.text).toContain(`${origin}/portal/#/email`);
      expect(en!.html).toContain(`href="${origin}/portal/#/email"`);
      expect(en!.html).toContain('<html lang="en">');

      const [zh] = await mail().waitFor(about(chinese.address, '已收款'));
      expect(zh!.subject).toBe(`已收款：订单 ${order.merchantOrderId}`);
      expect(zh!.text).toContain('Mug Shop 收到一笔付款。');
      expect(zh!.text).toContain('选择接收哪些邮件');
      expect(zh!.html).toContain('<html lang="zh-CN">');

      const [receipt] = await mail().waitFor(to(buyer));
      expect(receipt!.subject).toBe('Your receipt from Mug Shop / Mug Shop 的付款收据');
      expect(receipt!.text).toContain('Thank you: Mug Shop received your payment.');
      expect(receipt!.text).toContain('谢谢：Mug Shop 已收到您的付款。');
      expect(receipt!.text).toContain(`?id=${order.id}`);
      // A buyer is not sent to the portal.
      expect(receipt!.text).not.toContain('/portal/');

      // Something later for the same merchant arrives: by then, the member who chose "off" got nothing.
      await paidOrder(shop.api_token, {});
      await mail().waitFor(about(english.address, 'Payment received'), { count: 2 });
      expect(received(off.address, 'Payment received')).toEqual([]);
      expect(received(english.address, 'Payment received')).toHaveLength(2);
      // No receipt without a buyer's email: still one message to the buyer.
      expect(mail().messages().filter(to(buyer))).toHaveLength(1);
    });

    it('counts payments for the members who chose the daily summary, and mails it once the day is over', async ({ expect }) => {
      const shop = await merchant('Daily Shop');
      const daily = await member(shop.user_id, { payments: 'daily', language: 'en' });
      await paidOrder(shop.api_token, { price_amount: 10 });
      await paidOrder(shop.api_token, { price_amount: 2.5 });
      const { findPaymentDigest } = await import('#shared/store/emails');
      const today = new Date().toISOString().slice(0, 10);
      await expect.poll(async () => (await findPaymentDigest(today, shop.user_id))?.count, { timeout: 15_000 }).toBe(2);
      expect(received(daily.address, 'Payment received')).toEqual([]);

      const { queueDailySummaries } = await import('#shared/email/summary');
      const tomorrow = new Date(Date.now() + 86_400_000);
      // Two runs the same day: one summary.
      expect(await queueDailySummaries(tomorrow)).toBeGreaterThanOrEqual(1);
      await queueDailySummaries(tomorrow);
      const [summary] = await mail().waitFor(about(daily.address, '2 payments'));
      expect(summary!.subject).toBe(`2 payments on ${today}`);
      expect(summary!.text).toContain('Total (USD): 12.50 USD');
      await sleep(1500);
      expect(received(daily.address, '2 payments')).toHaveLength(1);
    });
  });

  describe('once per event', () => {
    it('a replayed stream record and duplicated queue messages send one email', async () => {
      const shop = await merchant('Replay Shop');
      const owner = await member(shop.user_id);
      const event: EmailEvent = {
        kind: 'order_unresolved',
        event_id: `order_unresolved.${randomUUID()}.3`,
        order: {
          order_id: randomUUID(),
          user_id: shop.user_id,
          merchant_order_id: 'R-1',
          title: '',
          price_amount: '5',
          price_currency: 'USD',
          pay_amount: '5',
          pay_currency: 'USD',
          status: 'UNRESOLVED',
          unresolved_reason: 'UNDERPAID',
          at: new Date().toISOString(),
        },
      };
      const { enqueueEmailJob } = await import('#shared/email/queue');
      await Promise.all([0, 1, 2].map(() => enqueueEmailJob({ event, attempt: 0 })));
      const [message] = await mail().waitFor(about(owner.address, 'Order R-1'));
      expect(message!.subject).toBe('Order R-1 needs your decision');
      expect(message!.text).toContain('(underpaid)');

      // The same order change, as the stream hands it to order-events twice.
      const { marshall } = await import('@aws-sdk/util-dynamodb');
      const { handler } = await import('#functions/order-events/handler');
      const order = {
        type: 'ORDER',
        user_id: shop.user_id,
        merchant_order_id: 'R-2',
        title: '',
        price_amount: '5',
        price_currency: 'USD',
        pay_amount: '5',
        pay_currency: 'USD',
        updated_at: new Date().toISOString(),
        version: 3,
        PK: `ORDER#${randomUUID()}`,
        SK: 'ORDER',
      };
      const record = (sequence: string) => ({
        eventID: randomUUID(),
        eventName: 'MODIFY' as const,
        dynamodb: {
          Keys: marshall({ PK: order.PK, SK: 'ORDER' }) as never,
          OldImage: marshall({ ...order, status: 'PENDING', version: 2 }) as never,
          NewImage: marshall({ ...order, status: 'UNRESOLVED', unresolved_reason: 'OVERPAID' }) as never,
          SequenceNumber: sequence,
        },
      });
      expect(await handler({ Records: [record('1')] })).toEqual({ batchItemFailures: [] });
      expect(await handler({ Records: [record('2')] })).toEqual({ batchItemFailures: [] });
      await mail().waitFor(about(owner.address, 'Order R-2'));
      await sleep(1500);
      expect(received(owner.address, 'Order R-').map((mail) => mail.subject)).toEqual(['Order R-1 needs your decision', 'Order R-2 needs your decision']);
    });
  });

  describe('bounces and complaints', () => {
    it('an address SES reports as bouncing gets no more email (recorded as suppressed)', async () => {
      const shop = await merchant('Bounce Shop');
      const bouncing = await member(shop.user_id);
      const fine = await member(shop.user_id);
      const { handler } = await import('#functions/record-email-bounce/handler');
      const answer = await handler({
        version: '0',
        id: randomUUID(),
        'detail-type': 'Email Bounced',
        source: 'aws.ses',
        account: '123456789012',
        time: new Date().toISOString(),
        region: 'eu-west-1',
        resources: [],
        detail: { eventType: 'Bounce', bounce: { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: bouncing.address.toUpperCase() }] } },
      });
      expect(answer).toEqual({ suppressed: 1 });
      const order = await paidOrder(shop.api_token, {});
      await mail().waitFor(about(fine.address, 'Payment received'));
      await sleep(1000);
      expect(received(bouncing.address, 'Payment received')).toEqual([]);
      const { findEmail } = await import('#shared/store/emails');
      const { findOrderWithInvoice } = await import('#shared/store/orders');
      const version = (await findOrderWithInvoice(order.id))!.order.version;
      expect((await findEmail(`order_paid.${order.id}.${version}`, `user:${bouncing.userId}`))?.state).toBe('SUPPRESSED');
      expect((await findEmail(`order_paid.${order.id}.${version}`, `user:${fine.userId}`))?.state).toBe('SENT');
    });
  });

  describe('failing callbacks', () => {
    it("one email when an order's callbacks have failed past the alert time, one when they are given up", async () => {
      const shop = await merchant('Failing Shop');
      const owner = await member(shop.user_id);
      const order = await paidOrder(shop.api_token, { callback_url: failingUrl });
      const [failingMail] = await mail().waitFor((message) => to(owner.address)(message) && message.subject.startsWith('Callbacks failing'), { timeoutMs: 30_000 });
      expect(failingMail!.subject).toBe(`Callbacks failing for order ${order.merchantOrderId}`);
      expect(failingMail!.text).toContain('HTTP 500');
      const [given] = await mail().waitFor((message) => to(owner.address)(message) && message.subject.startsWith('Callback given up'), { timeoutMs: 40_000 });
      expect(given!.text).toContain('4 times');
      // The callback URL is the merchant's own setting, but no email repeats it.
      expect(given!.raw).not.toContain(failingUrl);
      expect(
        mail()
          .messages()
          .filter((message) => to(owner.address)(message) && message.subject.startsWith('Callbacks failing')),
      ).toHaveLength(1);
    }, 90_000);
  });

  describe('account changes', () => {
    it('a team change is emailed to the members who want it, naming who made it', async () => {
      const shop = await merchant('Team Shop');
      const owner = await member(shop.user_id);
      const quiet = await member(shop.user_id, { topics: { team: false } });
      const invited = await owner.browser.call('POST', '/v1/portal/team/invites', { body: { name: 'Ada', role: 'viewer' } });
      expect(invited.status, invited.text).toBe(200);
      secrets.push(String(invited.body.invite?.url ?? invited.body.url).split('#/invite/')[1]!);
      const invitedAda = (address: string) => (mail: CapturedMail) => about(address, 'A team member was invited')(mail) && mail.text.includes('Ada');
      const [message] = await mail().waitFor(invitedAda(owner.address));
      const ownerName = (await owner.browser.call('GET', '/v1/portal/session')).body.user.name as string;
      expect(message!.text).toContain(`${ownerName}: a team member was invited (Ada, Viewer).`);
      await sleep(1000);
      expect(mail().messages().filter(invitedAda(quiet.address))).toEqual([]);
    });
  });

  describe('refunds', () => {
    it("a buyer setting a refund's address is emailed to the members who want it, with the address to pay", async () => {
      const shop = await merchant('Refund Shop');
      const owner = await member(shop.user_id);
      const { id } = await paidOrder(shop.api_token, {});
      const { askRefund } = await import('#shared/services/refunds/ask');
      const { refundUrl, setRefundAddress } = await import('#shared/services/refunds/buyer-link');
      const { findMerchant } = await import('#shared/store/merchants');
      const { profileOf } = await import('#shared/domain/merchant');
      const asked = await askRefund(profileOf((await findMerchant(shop.user_id))!), id, {}, { who: 'operator:test', from: 'test' }, new Date());
      const secret = new URL(await refundUrl(asked.refund!)).hash.slice('#refund='.length);
      secrets.push(secret);
      const address = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
      await setRefundAddress({ secret, address, now: new Date() });
      const [message] = await mail().waitFor(about(owner.address, 'Refund address set'));
      expect(message!.text).toContain(`Refund address: ${address}`);
      expect(message!.text).toContain(`${origin}/portal/#/orders/${id}`);
    });
  });

  describe("the buyer's refund link", () => {
    /** The one-time link in a message's plain text, and its secret (the fragment after `#refund=`). */
    const linkIn = (text: string) => {
      const url = /(https?:\/\/\S+#refund=([A-Za-z0-9_-]+))/.exec(text);
      expect(url, text).not.toBeNull();
      return { url: url![1]!, secret: url![2]! };
    };

    it('a refund asked on an order with an email mails the buyer its one-time link (en and zh, text and HTML), once, and again when the link is renewed', async () => {
      const shop = await merchant('Refund Mail Shop');
      const buyer = `buyer-${randomUUID().slice(0, 8)}@example.test`;
      const order = await paidOrder(shop.api_token, { email: buyer });
      await mail().waitFor((message) => to(buyer)(message) && message.subject.startsWith('Your receipt'));

      const asked = await call('POST', `/v1/orders/${order.id}/refund`, { token: shop.api_token, body: { reason: 'Out of stock' } });
      expect(asked.status, asked.text).toBe(200);
      const refundId = asked.body.refund.refund_id as string;
      const isRefundMail = (message: CapturedMail) => to(buyer)(message) && message.subject.startsWith('Your refund from');
      const [first] = await mail().waitFor(isRefundMail);
      expect(first!.subject).toBe('Your refund from Refund Mail Shop: where to send it / Refund Mail Shop 的退款：请提供收款地址');
      expect(first!.text).toContain('Refund Mail Shop is refunding');
      expect(first!.text).toContain('Refund Mail Shop 将向您退款');
      expect(first!.text).toContain('Item: Blue mug');
      expect(first!.text).toContain('Note from the merchant: Out of stock');
      const link = linkIn(first!.text);
      const { apiConfig } = await import('#shared/core/config');
      expect(link.url.startsWith(apiConfig().paymentPageUrl)).toBe(true);
      expect(first!.html).toContain(`href="${link.url}"`);
      // The link is the refund's own: its secret's hash is what the table holds, and the page opens with it.
      const { findRefund } = await import('#shared/store/refunds');
      const { refundLinkHash } = await import('#shared/core/server-key');
      expect(refundLinkHash(link.secret)).toBe((await findRefund(order.id, refundId))!.link_hash);
      const opened = await call('POST', '/v1/pay/refund', { body: { secret: link.secret } });
      expect(opened.status, opened.text).toBe(200);
      expect(opened.body.order.title).toBe('Blue mug');
      expect(opened.body.refund).toMatchObject({ status: 'AWAITING_ADDRESS', reason: 'Out of stock', currency: 'BTC' });

      // The refund's record replayed to order-events: still one email (one per link version).
      const { marshall } = await import('@aws-sdk/util-dynamodb');
      const { refundToItem } = await import('#shared/store/refunds');
      const { handler } = await import('#functions/order-events/handler');
      const item = refundToItem((await findRefund(order.id, refundId))!);
      const replay = {
        eventID: randomUUID(),
        eventName: 'INSERT' as const,
        dynamodb: { Keys: marshall({ PK: item.PK, SK: item.SK }) as never, NewImage: marshall(item, { removeUndefinedValues: true }) as never, SequenceNumber: '1' },
      };
      expect(await handler({ Records: [replay] })).toEqual({ batchItemFailures: [] });

      // A new link: a new email with the new link; the old one opens nothing.
      const renewed = await call('POST', `/v1/orders/${order.id}/refund-link`, { token: shop.api_token, body: { refund_id: refundId } });
      expect(renewed.status, renewed.text).toBe(200);
      const [, second] = await mail().waitFor(isRefundMail, { count: 2 });
      const newLink = linkIn(second!.text);
      expect(newLink.secret).not.toBe(link.secret);
      expect(refundLinkHash(newLink.secret)).toBe((await findRefund(order.id, refundId))!.link_hash);
      expect((await call('POST', '/v1/pay/refund', { body: { secret: link.secret } })).status).toBe(404);
      await sleep(1500);
      expect(mail().messages().filter(isRefundMail)).toHaveLength(2);
      // Nothing secret but the buyer's own link: afterAll checks the API token, callback secret and order token are in no message.
    });
  });
});
