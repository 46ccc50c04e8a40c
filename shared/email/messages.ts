import type { EmailEvent, EmailLanguage, OrderSummary } from '#shared/domain/email';
import type { PaymentDigest } from '#shared/store/emails';

/**
 * Every email's words, English and Chinese, in one catalogue, and the plain text and HTML made
 * from them. A message is built only from the values given here (an order's summary, a
 * merchant's name, links): never a token, a secret, a callback URL or a session. The one
 * exception is the buyer's own refund link, mailed only to the order's buyer.
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

const money = (amount: string, currency: string): string => `${amount} ${currency}`;

const orderRows = (order: OrderSummary, words: typeof EN): [string, string][] => [
  [words.orderRef, order.merchant_order_id],
  ...(order.title ? ([[words.item, order.title]] as [string, string][]) : []),
  [words.price, money(order.price_amount, order.price_currency)],
  ...(order.pay_currency !== order.price_currency ? ([[words.paidWith, money(order.pay_amount, order.pay_currency)]] as [string, string][]) : []),
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
  reasons: { UNDERPAID: 'underpaid', OVERPAID: 'overpaid', PAID_LATE: 'paid after the invoice expired', PAID_TO_REPLACED_INVOICE: 'paid to a replaced invoice' } as Record<string, string>,
  failingSubject: (ref: string) => `Callbacks failing for order ${ref}`,
  failingLead: (since: string, attempts: number, error: string) =>
    `Your server has not accepted the callback for this order since ${since} (${attempts} attempts, last: ${error}). They are retried for about three days; check your callback endpoint.`,
  deadSubject: (ref: string) => `Callback given up for order ${ref}`,
  deadLead: (attempts: number, error: string) => `The callback for this order failed ${attempts} times (last: ${error}) and is no longer retried. Fix your endpoint, then resend it from the order's page.`,
  accountSubject: {
    'sign_in.new_passkey': 'Sign-in with a new passkey',
    'passkey.added': 'A passkey was added',
    'member.invited': 'A team member was invited',
    'member.joined': 'A team member joined',
    'member.removed': 'A team member was removed',
    'member.role_changed': 'A team member\'s role changed',
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
  reasons: { UNDERPAID: '少付', OVERPAID: '多付', PAID_LATE: '发票过期后付款', PAID_TO_REPLACED_INVOICE: '付款至已替换的发票' },
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
  refundLinkLead: (merchant, amount) =>
    `${merchant} 将向您退款 ${amount}。请打开下面的链接，填写接收退款的地址（与您付款时相同的币种和网络）。该链接只能使用一次：地址设置后，只有商家可以更改。`,
  refundAmount: '退款',
  refundNote: '商家留言',
  setRefundAddress: '填写退款地址',
};

const WORDS: Record<EmailLanguage, typeof EN> = { en: EN, zh: ZH };

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
          { rows: [[words.orderRef, event.merchant_order_id], [words.orderId, event.order_id]] },
          { link: orderLink(context, event.order_id), label: words.openOrder },
        ],
      };
    case 'account_change': {
      const subject = words.accountSubject[event.action] ?? event.action;
      if (event.refund) {
        const amount = money(event.refund.amount, event.refund.currency);
        return {
          subject,
          blocks: [{ p: words.refundLead(amount, event.refund.address) }, { rows: [[words.refundAddress, event.refund.address], [words.orderId, event.refund.order_id]] }, { link: orderLink(context, event.refund.order_id), label: words.openOrder }],
        };
      }
      return {
        subject,
        blocks: [{ p: words.accountLead(subject, event.actor, event.member, event.role) }, { rows: [[words.when, event.at]] }, { link: `${context.portalUrl}#/audit`, label: words.openAudit }],
      };
    }
    case 'daily_summary': {
      const digest = context.digest;
      if (!digest) return undefined;
      return {
        subject: words.summarySubject(event.date, digest.count),
        blocks: [
          { p: words.summaryLead(context.merchantName, event.date) },
          { rows: [[words.payments, String(digest.count)], ...Object.entries(digest.totals).map(([currency, amount]) => [`${words.total} (${currency})`, money(amount, currency)] as [string, string])] },
          { link: `${context.portalUrl}#/orders?status=PAID`, label: words.openOrders },
        ],
      };
    }
    case 'refund_link':
      // The buyer's alone (refundLinkMessage): the merchant already has the link in the portal.
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
export function receiptMessage(order: OrderSummary & { email: string }, context: MessageContext): EmailMessage {
  const blocksOf = (language: EmailLanguage): Block[] => {
    const words = WORDS[language];
    return [
      { p: words.receiptLead(context.merchantName) },
      { rows: orderRows(order, words) },
      { link: `${context.paymentPageUrl}?id=${encodeURIComponent(order.order_id)}`, label: words.viewPayment },
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
      { p: words.refundLinkLead(context.merchantName, money(notice.amount, notice.currency)) },
      { rows: [...orderRows(notice.order, words), [words.refundAmount, money(notice.amount, notice.currency)], ...(notice.reason ? ([[words.refundNote, notice.reason]] as [string, string][]) : [])] },
      { link: notice.url, label: words.setRefundAddress },
    ];
  };
  const subject = `${EN.refundLinkSubject(context.merchantName)} / ${ZH.refundLinkSubject(context.merchantName)}`;
  return render(notice.email, subject, [...blocksOf('en'), { p: '—' }, ...blocksOf('zh')], 'en');
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** The plain text and the HTML of one message, from the same blocks. */
function render(to: string, subject: string, blocks: Block[], language: EmailLanguage): EmailMessage {
  const text = blocks
    .map((block) => ('p' in block ? block.p : 'rows' in block ? block.rows.map(([label, value]) => `${label}: ${value}`).join('\n') : `${block.label}: ${block.link}`))
    .join('\n\n');
  const body = blocks
    .map((block) =>
      'p' in block
        ? `<p>${escapeHtml(block.p)}</p>`
        : 'rows' in block
          ? `<table role="presentation">${block.rows.map(([label, value]) => `<tr><th align="left" style="padding-right:1em">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>`
          : `<p><a href="${escapeHtml(block.link)}">${escapeHtml(block.label)}</a></p>`,
    )
    .join('\n');
  const html = `<!doctype html>\n<html lang="${language === 'zh' ? 'zh-CN' : 'en'}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">\n${body}\n</body></html>\n`;
  return { to, subject, text: `${text}\n`, html };
}
