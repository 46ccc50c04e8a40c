import { formatAmount } from '#shared/domain/amount-format';
import type { EmailEvent, EmailLanguage, OrderSummary, SubscriberNotice } from '#shared/domain/email';
import { STATE_LABELS } from '#shared/domain/state-labels';
import type { PaymentDigest } from '#shared/store/emails';

/**
 * Every email's words, English and Chinese, in one catalogue, and the plain text and HTML made
 * from them. A message is built only from the values given here (an order's summary, a
 * merchant's name, links): never a token, a secret, a callback URL or a session. The
 * exceptions are the buyer's own refund link, mailed only to the order's buyer, and a subscriber's
 * own page link, mailed only to the subscription's address. Amounts read as
 * the portal and the payment page write them (shared/domain/amount-format.ts: "30.00 USD"), and
 * a reason or a role by its one label (shared/domain/state-labels.ts).
 */

/** One email as sent: both bodies say the same. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** What a message shows beside its event. */
export interface MessageContext {
  merchantName: string;
  /** The portal's app URL (https://portal.example/portal/): order links and the preferences link. */
  portalUrl: string;
  /** The payment page's base URL (its `?id=` shows an order to the buyer). */
  paymentPageUrl: string;
  /** The day's payments (the daily summary). */
  digest?: PaymentDigest;
}

/** A paragraph, a list of label/value rows, or a link. */
type Block = { p: string } | { rows: [string, string][] } | { link: string; label: string };

interface Content {
  subject: string;
  blocks: Block[];
}

const orderRows = (order: OrderSummary, words: typeof EN): [string, string][] => [
  [words.orderRef, order.merchant_order_id],
  ...(order.title ? ([[words.item, order.title]] as [string, string][]) : []),
  [words.price, formatAmount(order.price_amount, order.price_currency)],
  ...(order.pay_currency !== order.price_currency ? ([[words.paidWith, formatAmount(order.pay_amount, order.pay_currency)]] as [string, string][]) : []),
  [words.orderId, order.order_id],
];

const EN = {
  orderRef: 'Order',
  item: 'Item',
  price: 'Price',
  paidWith: 'Paid with',
  orderId: 'Order id',
  openOrder: 'Open the order in the portal',
  openAudit: 'Open the audit log',
  openOrders: 'Open your paid orders',
  preferences: 'Choose which emails you get',
  footer: (merchant: string) => `You get this email as a member of ${merchant} in the merchant portal.`,
  paidSubject: (ref: string) => `Payment received: order ${ref}`,
  paidLead: (merchant: string) => `${merchant} received a payment.`,
  unresolvedSubject: (ref: string) => `Order ${ref} needs your decision`,
  unresolvedLead: (reason: string) => `A payment did not match its order (${reason}). Decide in the portal: resolve it, or refund it.`,
  reasons: STATE_LABELS.en.unresolvedReason as Record<string, string>,
  roles: STATE_LABELS.en.role as Record<string, string>,
  failingSubject: (ref: string) => `Callbacks failing for order ${ref}`,
  failingLead: (since: string, attempts: number, error: string) =>
    `Your server has not accepted the callback for this order since ${since} (${attempts} attempts, last: ${error}). They are retried for about three days; check your callback endpoint.`,
  deadSubject: (ref: string) => `Callback given up for order ${ref}`,
  deadLead: (attempts: number, error: string) =>
    `The callback for this order failed ${attempts} times (last: ${error}) and is no longer retried. Fix your endpoint, then resend it from the order's page.`,
  accountSubject: {
    'sign_in.new_passkey': 'Sign-in with a new passkey',
    'passkey.added': 'A passkey was added',
    'member.invited': 'A team member was invited',
    'member.joined': 'A team member joined',
    'member.removed': 'A team member was removed',
    'member.role_changed': "A team member's role changed",
    'refund.address_set': 'Refund address set',
  } as Record<string, string>,
  refundLead: (amount: string, address: string) => `The buyer set the address of the refund of ${amount}: ${address}. Pay it from your wallet; the order shows when it is seen.`,
  refundAddress: 'Refund address',
  accountLead: (action: string, actor: string, member?: string, role?: string) =>
    `${actor}: ${action.toLowerCase()}${member ? ` (${member}${role ? `, ${role}` : ''})` : ''}. If this was not you or your team, sign in and check the audit log.`,
  when: 'When',
  summarySubject: (day: string, count: number) => `${count} payment${count === 1 ? '' : 's'} on ${day}`,
  summaryLead: (merchant: string, day: string) => `What ${merchant} received on ${day} (UTC):`,
  payments: 'Payments',
  total: 'Total',
  receiptSubject: (merchant: string) => `Your receipt from ${merchant}`,
  receiptLead: (merchant: string) => `Thank you: ${merchant} received your payment.`,
  viewPayment: 'See your payment',
  refundLinkSubject: (merchant: string) => `Your refund from ${merchant}: where to send it`,
  refundLinkLead: (merchant: string, amount: string) =>
    `${merchant} is refunding ${amount} to you. Open the link below and enter the address to receive it (in the same currency and network you paid with). The link works once: after the address is set, only the merchant can change it.`,
  refundAmount: 'Refund',
  refundNote: 'Note from the merchant',
  setRefundAddress: 'Enter your refund address',
  subscriptionPlan: 'Subscription',
  subscriptionPrice: 'Price',
  subscriptionAmount: 'Amount due',
  subscriptionDue: 'Due on',
  subscriptionPeriod: 'Period',
  openSubscription: 'Open your subscription',
  payPeriod: 'Pay now',
  every: (unit: string, count: number) => (count === 1 ? `every ${unit}` : `every ${count} ${unit}s`),
  units: { day: 'day', week: 'week', month: 'month', year: 'year' } as Record<string, string>,
  trialSubject: (plan: string) => `Your free trial of ${plan} has started`,
  trialLead: (merchant: string, plan: string, due: string, days: number) =>
    `Your free trial of ${plan} from ${merchant} has started. The first payment is due on ${due}; we email its payment link ${days} days before. Your subscription's page shows its status, your payments and how to cancel.`,
  invoiceSubject: (plan: string, due: string) => `Your payment for ${plan} is due on ${due}`,
  invoiceLead: (merchant: string, plan: string, amount: string, due: string) =>
    `${merchant}: your payment of ${amount} for ${plan} is due on ${due}. Pay it with the link below, in the currency you choose. Your subscription's page shows its status and your past payments, and lets you cancel.`,
  beforeDueSubject: (plan: string) => `Reminder: your payment for ${plan} is due tomorrow`,
  beforeDueLead: (plan: string, amount: string, due: string) => `A reminder: your payment of ${amount} for ${plan} is due on ${due} and has not been received yet.`,
  onDueSubject: (plan: string) => `Your payment for ${plan} is due today`,
  onDueLead: (plan: string, amount: string) => `Your payment of ${amount} for ${plan} is due today and has not been received yet.`,
  pastDueSubject: (plan: string) => `Your payment for ${plan} is overdue`,
  pastDueLead: (plan: string, amount: string, due: string, until: string) =>
    `We have not received your payment of ${amount} for ${plan}, due on ${due}. Pay it by ${until} to keep your subscription; after that it ends.`,
  endedSubject: (plan: string) => `Your subscription to ${plan} has ended`,
  endedLead: {
    subscriber: (plan: string, merchant: string) => `As you asked, your subscription to ${plan} from ${merchant} has ended. Nothing more will be billed.`,
    merchant: (plan: string, merchant: string) => `${merchant} has ended your subscription to ${plan}. Nothing more will be billed.`,
    grace_ended: (plan: string, merchant: string) => `Your subscription to ${plan} from ${merchant} has ended: its last payment was not received in time. Nothing more will be billed.`,
  } as Record<string, (plan: string, merchant: string) => string>,
  endedMore: "Your subscription's page still shows your past payments and their receipts.",
  newLinkSubject: (plan: string) => `Your new link to your subscription to ${plan}`,
  newLinkLead: "Here is the new link to your subscription's page, as you asked. The link you had before no longer works.",
  linkSubject: (plan: string) => `Your link to your subscription to ${plan}`,
  linkLead: (plan: string, merchant: string) =>
    `Someone asked for the link to your subscription to ${plan} from ${merchant}. If it was not you, you can ignore this email: only this mailbox gets the link.`,
  subscriberFooter: (merchant: string) => `You get this email because this address subscribes to a plan of ${merchant}. Keep the link to yourself: it opens your subscription without a password.`,
};

const ZH: typeof EN = {
  orderRef: '订单',
  item: '商品',
  price: '价格',
  paidWith: '支付',
  orderId: '订单编号',
  openOrder: '在商户后台查看订单',
  openAudit: '查看审计日志',
  openOrders: '查看已付款订单',
  preferences: '选择接收哪些邮件',
  footer: (merchant) => `您作为 ${merchant} 商户后台的成员收到此邮件。`,
  paidSubject: (ref) => `已收款：订单 ${ref}`,
  paidLead: (merchant) => `${merchant} 收到一笔付款。`,
  unresolvedSubject: (ref) => `订单 ${ref} 需要您处理`,
  unresolvedLead: (reason) => `一笔付款与订单不符（${reason}）。请在商户后台处理：确认或退款。`,
  reasons: STATE_LABELS.zh.unresolvedReason,
  roles: STATE_LABELS.zh.role,
  failingSubject: (ref) => `订单 ${ref} 的回调一直失败`,
  failingLead: (since, attempts, error) => `自 ${since} 起，您的服务器未接受此订单的回调（已尝试 ${attempts} 次，最近：${error}）。系统会继续重试约三天，请检查您的回调地址。`,
  deadSubject: (ref) => `订单 ${ref} 的回调已停止重试`,
  deadLead: (attempts, error) => `此订单的回调已失败 ${attempts} 次（最近：${error}），不再重试。修复回调地址后，可在订单页面重新发送。`,
  accountSubject: {
    'sign_in.new_passkey': '使用新通行密钥登录',
    'passkey.added': '添加了通行密钥',
    'member.invited': '邀请了团队成员',
    'member.joined': '团队成员已加入',
    'member.removed': '移除了团队成员',
    'member.role_changed': '团队成员的角色已更改',
    'refund.address_set': '已设置退款地址',
  },
  refundLead: (amount, address) => `买家已设置 ${amount} 退款的地址：${address}。请从您的钱包付款；付款被看到后订单会显示。`,
  refundAddress: '退款地址',
  accountLead: (action, actor, member, role) => `${actor}：${action}${member ? `（${member}${role ? `，${role}` : ''}）` : ''}。如果这不是您或您的团队所为，请登录并查看审计日志。`,
  when: '时间',
  summarySubject: (day, count) => `${day} 收到 ${count} 笔付款`,
  summaryLead: (merchant, day) => `${merchant} 在 ${day}（UTC）收到：`,
  payments: '付款笔数',
  total: '合计',
  receiptSubject: (merchant) => `${merchant} 的付款收据`,
  receiptLead: (merchant) => `谢谢：${merchant} 已收到您的付款。`,
  viewPayment: '查看您的付款',
  refundLinkSubject: (merchant) => `${merchant} 的退款：请提供收款地址`,
  refundLinkLead: (merchant, amount) => `${merchant} 将向您退款 ${amount}。请打开下面的链接，填写接收退款的地址（与您付款时相同的币种和网络）。该链接只能使用一次：地址设置后，只有商家可以更改。`,
  refundAmount: '退款',
  refundNote: '商家留言',
  setRefundAddress: '填写退款地址',
  subscriptionPlan: '订阅',
  subscriptionPrice: '价格',
  subscriptionAmount: '应付金额',
  subscriptionDue: '到期日',
  subscriptionPeriod: '期数',
  openSubscription: '查看您的订阅',
  payPeriod: '立即付款',
  every: (unit, count) => (count === 1 ? `每${unit}` : `每 ${count} ${unit}`),
  units: { day: '天', week: '周', month: '个月', year: '年' },
  trialSubject: (plan) => `${plan} 的免费试用已开始`,
  trialLead: (merchant, plan, due, days) =>
    `您在 ${merchant} 的 ${plan} 免费试用已开始。首次付款的到期日为 ${due}；我们会在到期前 ${days} 天发送付款链接。您的订阅页面显示订阅状态、您的付款记录以及取消方式。`,
  invoiceSubject: (plan, due) => `${plan} 的付款将于 ${due} 到期`,
  invoiceLead: (merchant, plan, amount, due) =>
    `${merchant}：您为 ${plan} 应付的 ${amount} 将于 ${due} 到期。请通过下面的链接，用您选择的币种付款。您的订阅页面显示订阅状态和以往付款，也可以在那里取消订阅。`,
  beforeDueSubject: (plan) => `提醒：${plan} 的付款明天到期`,
  beforeDueLead: (plan, amount, due) => `提醒：您为 ${plan} 应付的 ${amount} 将于 ${due} 到期，目前尚未收到。`,
  onDueSubject: (plan) => `${plan} 的付款今天到期`,
  onDueLead: (plan, amount) => `您为 ${plan} 应付的 ${amount} 今天到期，目前尚未收到。`,
  pastDueSubject: (plan) => `${plan} 的付款已逾期`,
  pastDueLead: (plan, amount, due, until) => `我们尚未收到您为 ${plan} 应付的 ${amount}（到期日 ${due}）。请在 ${until} 之前付款以保留订阅，否则订阅将终止。`,
  endedSubject: (plan) => `您对 ${plan} 的订阅已终止`,
  endedLead: {
    subscriber: (plan, merchant) => `按照您的要求，您在 ${merchant} 的 ${plan} 订阅已终止，之后不会再收费。`,
    merchant: (plan, merchant) => `${merchant} 已终止您的 ${plan} 订阅，之后不会再收费。`,
    grace_ended: (plan, merchant) => `您在 ${merchant} 的 ${plan} 订阅已终止：最近一期的付款未能按时收到。之后不会再收费。`,
  },
  endedMore: '您的订阅页面仍会显示以往的付款及其收据。',
  newLinkSubject: (plan) => `您的 ${plan} 订阅的新链接`,
  newLinkLead: '按照您的要求，这是您订阅页面的新链接。之前的链接已失效。',
  linkSubject: (plan) => `您的 ${plan} 订阅的链接`,
  linkLead: (plan, merchant) => `有人请求了您在 ${merchant} 的 ${plan} 订阅的链接。如果不是您本人，请忽略此邮件：只有此邮箱会收到该链接。`,
  subscriberFooter: (merchant) => `您收到此邮件，是因为此邮箱订阅了 ${merchant} 的方案。请勿将链接告诉他人：打开它无需密码即可管理您的订阅。`,
};

/** Every email's words by language (tests/unit/translations.test.ts checks them as it checks the web apps'). */
export const WORDS: Record<EmailLanguage, typeof EN> = { en: EN, zh: ZH };

const orderLink = (context: MessageContext, orderId: string): string => `${context.portalUrl}#/orders/${encodeURIComponent(orderId)}`;
export const preferencesLink = (portalUrl: string): string => `${portalUrl}#/email`;

/** A merchant event's content in one language (undefined: the event is not a merchant email). */
function merchantContent(event: EmailEvent, language: EmailLanguage, context: MessageContext): Content | undefined {
  const words = WORDS[language];
  switch (event.kind) {
    case 'order_paid':
      return {
        subject: words.paidSubject(event.order.merchant_order_id),
        blocks: [{ p: words.paidLead(context.merchantName) }, { rows: orderRows(event.order, words) }, { link: orderLink(context, event.order.order_id), label: words.openOrder }],
      };
    case 'order_unresolved':
      return {
        subject: words.unresolvedSubject(event.order.merchant_order_id),
        blocks: [
          { p: words.unresolvedLead(words.reasons[event.order.unresolved_reason ?? ''] ?? event.order.unresolved_reason ?? '') },
          { rows: orderRows(event.order, words) },
          { link: orderLink(context, event.order.order_id), label: words.openOrder },
        ],
      };
    case 'callbacks_failing':
    case 'callback_dead_lettered':
      return {
        subject: event.kind === 'callbacks_failing' ? words.failingSubject(event.merchant_order_id) : words.deadSubject(event.merchant_order_id),
        blocks: [
          { p: event.kind === 'callbacks_failing' ? words.failingLead(event.since, event.attempts, event.last_error) : words.deadLead(event.attempts, event.last_error) },
          {
            rows: [
              [words.orderRef, event.merchant_order_id],
              [words.orderId, event.order_id],
            ],
          },
          { link: orderLink(context, event.order_id), label: words.openOrder },
        ],
      };
    case 'account_change': {
      const subject = words.accountSubject[event.action] ?? event.action;
      if (event.refund) {
        const amount = formatAmount(event.refund.amount, event.refund.currency);
        return {
          subject,
          blocks: [
            { p: words.refundLead(amount, event.refund.address) },
            {
              rows: [
                [words.refundAddress, event.refund.address],
                [words.orderId, event.refund.order_id],
              ],
            },
            { link: orderLink(context, event.refund.order_id), label: words.openOrder },
          ],
        };
      }
      return {
        subject,
        blocks: [
          { p: words.accountLead(subject, event.actor, event.member, event.role === undefined ? undefined : (words.roles[event.role] ?? event.role)) },
          { rows: [[words.when, event.at]] },
          { link: `${context.portalUrl}#/audit`, label: words.openAudit },
        ],
      };
    }
    case 'daily_summary': {
      const digest = context.digest;
      if (!digest) return undefined;
      return {
        subject: words.summarySubject(event.date, digest.count),
        blocks: [
          { p: words.summaryLead(context.merchantName, event.date) },
          {
            rows: [
              [words.payments, String(digest.count)],
              ...Object.entries(digest.totals).map(([currency, amount]) => [`${words.total} (${currency})`, formatAmount(amount, currency)] as [string, string]),
            ],
          },
          { link: `${context.portalUrl}#/orders?status=PAID`, label: words.openOrders },
        ],
      };
    }
    case 'refund_link':
      // The buyer's alone (refundLinkMessage): the merchant already has the link in the portal.
      return undefined;
    case 'subscriber':
    case 'subscriber_links':
      // The subscriber's alone (subscriberMessage, subscriberLinkMessage): they carry the subscriber's own page link.
      return undefined;
  }
}

/** A merchant's email of `event` to one portal user, in the user's language, with the preferences link. */
export function merchantMessage(event: EmailEvent, to: string, language: EmailLanguage, context: MessageContext): EmailMessage | undefined {
  const content = merchantContent(event, language, context);
  if (!content) return undefined;
  const words = WORDS[language];
  return render(to, content.subject, [...content.blocks, { p: words.footer(context.merchantName) }, { link: preferencesLink(context.portalUrl), label: words.preferences }], language);
}

/**
 * The buyer's receipt of a paid order. A buyer has no language setting and the order records
 * none, so a buyer's email says everything in English, then in Chinese.
 */
export function receiptMessage(order: OrderSummary & { email: string }, context: MessageContext, subscriberUrl?: string): EmailMessage {
  const blocksOf = (language: EmailLanguage): Block[] => {
    const words = WORDS[language];
    return [
      { p: words.receiptLead(context.merchantName) },
      { rows: orderRows(order, words) },
      { link: `${context.paymentPageUrl}?id=${encodeURIComponent(order.order_id)}`, label: words.viewPayment },
      // A subscription's period: its subscriber's page too, as in every subscriber email.
      ...(subscriberUrl ? [{ link: subscriberUrl, label: words.openSubscription }] : []),
    ];
  };
  return render(order.email, `${EN.receiptSubject(context.merchantName)} / ${ZH.receiptSubject(context.merchantName)}`, [...blocksOf('en'), { p: '—' }, ...blocksOf('zh')], 'en');
}

/** A refund the buyer is asked the address of: the order it refunds and its one-time link. */
export interface RefundLinkNotice {
  email: string;
  order: OrderSummary;
  amount: string;
  currency: string;
  reason?: string;
  /** The one-time refund link (its secret in the fragment): the only secret the buyer is given, and only its own. */
  url: string;
}

/** The buyer's refund link, in English then Chinese as the receipt. */
export function refundLinkMessage(notice: RefundLinkNotice, context: MessageContext): EmailMessage {
  const blocksOf = (language: EmailLanguage): Block[] => {
    const words = WORDS[language];
    return [
      { p: words.refundLinkLead(context.merchantName, formatAmount(notice.amount, notice.currency)) },
      {
        rows: [
          ...orderRows(notice.order, words),
          [words.refundAmount, formatAmount(notice.amount, notice.currency)],
          ...(notice.reason ? ([[words.refundNote, notice.reason]] as [string, string][]) : []),
        ],
      },
      { link: notice.url, label: words.setRefundAddress },
    ];
  };
  const subject = `${EN.refundLinkSubject(context.merchantName)} / ${ZH.refundLinkSubject(context.merchantName)}`;
  return render(notice.email, subject, [...blocksOf('en'), { p: '—' }, ...blocksOf('zh')], 'en');
}

/** What a subscriber's email is made of (shared/email/subscriber-emails.ts reads it from the table). */
export interface SubscriberNoticeContent {
  to: string;
  notice: SubscriberNotice;
  plan: { name: string; price_amount: string; price_currency: string; interval_unit: string; interval_count: number; invoice_days_before: number };
  /** The subscriber's page (its secret in the fragment): in every subscriber email, and only in the subscriber's own. */
  pageUrl: string;
  /** An invoice's or a reminder's order: what it asks, its period (0: the first), due date and payment page. */
  order?: { amount: string; currency: string; period: number; due_at: string; pay_url: string };
  /** Past due: when the grace period ends. */
  graceEndsAt?: string;
  /** The trial's end: the first due date. */
  trialEndsAt?: string;
  cancelReason?: string;
}

/** A date as an email writes it: the UTC day (both languages read YYYY-MM-DD). */
const day = (at: string): string => at.slice(0, 10);

/** A subscriber's email, in English then Chinese as the buyer's emails are (a subscriber has no language setting). */
export function subscriberMessage(content: SubscriberNoticeContent, context: MessageContext): EmailMessage {
  const { plan, order } = content;
  const blocksOf = (language: EmailLanguage): { subject: string; blocks: Block[] } => {
    const words = WORDS[language];
    const price = `${formatAmount(plan.price_amount, plan.price_currency)}, ${words.every(words.units[plan.interval_unit] ?? plan.interval_unit, plan.interval_count)}`;
    const amount = order ? formatAmount(order.amount, order.currency) : '';
    const due = order ? day(order.due_at) : '';
    const orderRows: [string, string][] = order
      ? [
          [words.subscriptionPlan, plan.name],
          [words.subscriptionAmount, amount],
          [words.subscriptionDue, due],
          [words.subscriptionPeriod, String(order.period + 1)],
        ]
      : [];
    const pay: Block[] = order ? [{ link: order.pay_url, label: words.payPeriod }] : [];
    const page: Block = { link: content.pageUrl, label: words.openSubscription };
    switch (content.notice) {
      case 'trial_started': {
        const first = day(content.trialEndsAt ?? '');
        return {
          subject: words.trialSubject(plan.name),
          blocks: [
            { p: words.trialLead(context.merchantName, plan.name, first, plan.invoice_days_before) },
            {
              rows: [
                [words.subscriptionPlan, plan.name],
                [words.subscriptionPrice, price],
                [words.subscriptionDue, first],
              ],
            },
            page,
          ],
        };
      }
      case 'invoice':
        return { subject: words.invoiceSubject(plan.name, due), blocks: [{ p: words.invoiceLead(context.merchantName, plan.name, amount, due) }, { rows: orderRows }, ...pay, page] };
      case 'before_due':
        return { subject: words.beforeDueSubject(plan.name), blocks: [{ p: words.beforeDueLead(plan.name, amount, due) }, { rows: orderRows }, ...pay, page] };
      case 'on_due':
        return { subject: words.onDueSubject(plan.name), blocks: [{ p: words.onDueLead(plan.name, amount) }, { rows: orderRows }, ...pay, page] };
      case 'past_due':
        return { subject: words.pastDueSubject(plan.name), blocks: [{ p: words.pastDueLead(plan.name, amount, due, day(content.graceEndsAt ?? '')) }, { rows: orderRows }, ...pay, page] };
      case 'canceled': {
        const lead = words.endedLead[content.cancelReason ?? 'merchant'] ?? words.endedLead.merchant!;
        return { subject: words.endedSubject(plan.name), blocks: [{ p: lead(plan.name, context.merchantName) }, { p: words.endedMore }, page] };
      }
      case 'new_link':
        return { subject: words.newLinkSubject(plan.name), blocks: [{ p: words.newLinkLead }, page] };
    }
  };
  const [en, zh] = [blocksOf('en'), blocksOf('zh')];
  const footer = (language: EmailLanguage): Block => ({ p: WORDS[language].subscriberFooter(context.merchantName) });
  return render(content.to, `${en.subject} / ${zh.subject}`, [...en.blocks, footer('en'), { p: '—' }, ...zh.blocks, footer('zh')], 'en');
}

/** The page link of a subscription asked for by email ("email me my link"), in English then Chinese. */
export function subscriberLinkMessage(to: string, plan: { name: string }, pageUrl: string, context: MessageContext): EmailMessage {
  const blocksOf = (language: EmailLanguage): Block[] => {
    const words = WORDS[language];
    return [{ p: words.linkLead(plan.name, context.merchantName) }, { link: pageUrl, label: words.openSubscription }, { p: words.subscriberFooter(context.merchantName) }];
  };
  return render(to, `${EN.linkSubject(plan.name)} / ${ZH.linkSubject(plan.name)}`, [...blocksOf('en'), { p: '—' }, ...blocksOf('zh')], 'en');
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** The plain text and the HTML of one message, from the same blocks. */
function render(to: string, subject: string, blocks: Block[], language: EmailLanguage): EmailMessage {
  const text = blocks.map((block) => ('p' in block ? block.p : 'rows' in block ? block.rows.map(([label, value]) => `${label}: ${value}`).join('\n') : `${block.label}: ${block.link}`)).join('\n\n');
  const body = blocks
    .map((block) =>
      'p' in block
        ? `<p>${escapeHtml(block.p)}</p>`
        : 'rows' in block
          ? `<table role="presentation">${block.rows.map(([label, value]) => `<tr><th align="left" style="padding-right:1em">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>`
          : `<p><a href="${escapeHtml(block.link)}">${escapeHtml(block.label)}</a></p>`,
    )
    .join('\n');
  const html = `<!doctype html>\n<html lang="${language === 'zh' ? 'zh-CN' : 'en'}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111;overflow-wrap:anywhere">\n${body}\n</body></html>\n`;
  return { to, subject, text: `${text}\n`, html };
}
