/**
 * The page's two languages. English and Chinese (the merchants of this API sell in both);
 * picked from the browser, switchable, and remembered on this device.
 */
export type Lang = 'en' | 'zh';

const en = {
  loading: 'Loading…',
  payTo: (merchant: string) => `Payment to ${merchant}`,
  order: 'Order',
  total: 'Total',
  sandboxBadge: 'Sandbox: test payments only, nothing is charged',
  switchTo: '中文',
  switchLabel: '切换到中文',
  payWith: 'Pay with',
  choose: 'Choose how you want to pay.',
  waiting: 'Waiting for your payment.',
  amount: 'Amount',
  address: 'Address',
  account: 'Account',
  memo: 'Memo (required)',
  reference: 'Reference',
  referenceHint: 'Pay with a Solana Pay wallet by scanning the QR code: it adds this reference, which is how the payment finds your order.',
  memoHint: 'Include the memo, or the payment cannot be matched to your order.',
  network: 'Network',
  networkHint: (network: string): string =>
    `Send on ${network} only. A payment on any other network (even to this same address) does not reach this order.`,
  lightning: 'Lightning invoice',
  link: 'Payment link',
  exact: 'Send exactly the amount shown, in one payment.',
  copy: 'Copy',
  copied: 'Copied',
  copyWhat: (what: string) => `Copy ${what.toLowerCase()}`,
  copiedWhat: (what: string) => `${what} copied`,
  copyFailed: 'Could not copy: select the text and copy it yourself.',
  qr: (currency: string) => `QR code of the ${currency} payment request`,
  scan: 'Scan with your wallet app',
  wallet: 'Open in wallet',
  openGateway: (name: string) => `Open ${name}`,
  timeLeft: 'Time left',
  pending: 'Payment seen, waiting for confirmations.',
  pendingMore: 'This page updates by itself; you can keep it open or come back later.',
  paid: 'Payment received. Thank you!',
  redirecting: (merchant: string) => `Taking you back to ${merchant}…`,
  closePage: 'You can close this page.',
  expired: 'This payment window has expired.',
  expiredMore: (merchant: string) =>
    `Prices are only held for a limited time, so this order can no longer be paid. If you already sent a payment, contact ${merchant}: it will be matched to this order. Otherwise go back and place the order again.`,
  contact: (merchant: string) => `Please contact ${merchant} for a new payment link.`,
  noMethods: (merchant: string) => `${merchant} cannot take payments here right now. Please contact ${merchant}.`,
  back: (merchant: string) => `Back to ${merchant}`,
  unresolved: 'There is a problem with your payment.',
  UNDERPAID: (merchant: string) => `We received less than the amount due. ${merchant} has been notified and will contact you about the rest.`,
  OVERPAID: (merchant: string) => `We received more than the amount due. ${merchant} has been notified and will contact you about the difference.`,
  PAID_LATE: (merchant: string) => `Your payment arrived after the payment window closed. ${merchant} has been notified and will review it.`,
  PAID_TO_REPLACED_INVOICE: (merchant: string) =>
    `Your payment was sent to an earlier payment address of this order, replaced when the currency was switched. ${merchant} has been notified and will review it.`,
  resolved: (merchant: string) => `${merchant} has resolved this order.`,
  canceled: 'This order was canceled.',
  refundPending: 'A refund of this order is on its way.',
  refunded: 'This order was refunded.',
  cancel: 'Cancel order',
  cancelAsk: 'Cancel this order? It cannot be paid afterwards.',
  cancelYes: 'Yes, cancel',
  cancelNo: 'Keep paying',
  simulate: 'Simulate payment (sandbox)',
  simulateHint: 'Pays this invoice in full with test funds.',
  notFound: 'Order not found',
  notFoundMore: 'This payment link is not valid. Check the link, or go back to the shop and try again.',
  loadFailed: 'The order could not be loaded. Retrying…',
  retry: 'Try again',
  failed: 'That did not work. Please try again.',
  ORDER_NOT_NEW: 'This order can no longer be changed.',
  PAYMENT_NOT_AVAILABLE: 'This payment method is not available right now. Please choose another.',
  API_LIMIT_EXCEEDED: (seconds: number) => `Too many requests from this device. Please try again in ${seconds} s.`,
  ORDER_CANCELED_FAIILED: 'This order can no longer be canceled.',
  gatewayTitle: (gateway: string) => `Sandbox ${gateway}`,
  gatewayMore:
    'This is a test gateway: no money moves here. Go back to the payment page and use “Simulate payment (sandbox)” to complete the order.',
  mode: (mode: string): string => (mode === 'app' ? 'App payment' : 'QR code payment'),
  currencies: {
    BTC: 'Bitcoin',
    LTC: 'Litecoin',
    ETH: 'Ethereum',
    USDT_ERC20: 'USDT (Ethereum)',
    USDC_ERC20: 'USDC (Ethereum)',
    USDT_TRC20: 'USDT (TRON)',
    USDT_ARB: 'USDT (Arbitrum One)',
    USDT_BNB: 'USDT (BNB Smart Chain)',
    USDT_CELO: 'USDT (Celo)',
    USDC_ARB: 'USDC (Arbitrum One)',
    USDC_SOL: 'USDC (Solana)',
    USDC_BASE: 'USDC (Base)',
    USDC_POL: 'USDC (Polygon PoS)',
    CUSD: 'cUSD (Celo)',
    ETH_ARB: 'ETH (Arbitrum One)',
    ETH_BASE: 'ETH (Base)',
    EOS: 'EOS',
    BCH: 'Bitcoin Cash',
    LBTC: 'Lightning',
    ALIPAY: 'Alipay',
    ALIGLOBAL: 'Alipay Global',
    WECHAT: 'WeChat Pay',
  } as Record<string, string>,
};

export type Strings = typeof en;

const zh: Strings = {
  loading: '加载中…',
  payTo: (merchant) => `向 ${merchant} 付款`,
  order: '订单',
  total: '总价',
  sandboxBadge: '沙盒：仅供测试，不会真实扣款',
  switchTo: 'English',
  switchLabel: 'Switch to English',
  payWith: '支付方式',
  choose: '请选择支付方式。',
  waiting: '等待付款。',
  amount: '金额',
  address: '地址',
  account: '账户',
  memo: '备注（必填）',
  reference: '付款参考',
  referenceHint: '请用支持 Solana Pay 的钱包扫描二维码付款：钱包会自动带上此参考，付款才能匹配到您的订单。',
  memoHint: '转账时务必填写备注，否则无法匹配到您的订单。',
  network: '网络',
  networkHint: (network) => `只能通过 ${network} 网络转账。通过其他网络（即使是同一地址）付款不会到达此订单。`,
  lightning: '闪电网络发票',
  link: '支付链接',
  exact: '请一次性准确支付所示金额。',
  copy: '复制',
  copied: '已复制',
  copyWhat: (what) => `复制${what}`,
  copiedWhat: (what) => `${what}已复制`,
  copyFailed: '无法复制：请手动选择文本并复制。',
  qr: (currency) => `${currency} 付款二维码`,
  scan: '请用钱包应用扫码',
  wallet: '在钱包中打开',
  openGateway: (name) => `打开${name}`,
  timeLeft: '剩余时间',
  pending: '已收到付款，等待区块确认。',
  pendingMore: '此页面会自动更新，您可以保持打开或稍后再来查看。',
  paid: '付款成功，谢谢！',
  redirecting: (merchant) => `正在返回 ${merchant}…`,
  closePage: '您可以关闭此页面。',
  expired: '支付已超时。',
  expiredMore: (merchant) =>
    `价格仅在限定时间内有效，此订单已无法支付。如果您已付款，请联系 ${merchant}，款项会与此订单匹配；否则请返回商家重新下单。`,
  contact: (merchant) => `请联系 ${merchant} 获取新的支付链接。`,
  noMethods: (merchant) => `${merchant} 目前无法在此收款，请联系 ${merchant}。`,
  back: (merchant) => `返回 ${merchant}`,
  unresolved: '您的付款存在问题。',
  UNDERPAID: (merchant) => `收到的金额少于应付金额。已通知 ${merchant}，商家会就差额与您联系。`,
  OVERPAID: (merchant) => `收到的金额多于应付金额。已通知 ${merchant}，商家会就多付部分与您联系。`,
  PAID_LATE: (merchant) => `您的付款在支付时限之后到账。已通知 ${merchant}，商家会进行核实。`,
  PAID_TO_REPLACED_INVOICE: (merchant) => `您的付款发送到了本订单此前的付款地址（切换币种时已被替换）。已通知 ${merchant}，商家会进行核实。`,
  resolved: (merchant) => `${merchant} 已处理此订单。`,
  canceled: '此订单已取消。',
  refundPending: '此订单的退款正在处理中。',
  refunded: '此订单已退款。',
  cancel: '取消订单',
  cancelAsk: '确定取消此订单？取消后将无法支付。',
  cancelYes: '确定取消',
  cancelNo: '继续支付',
  simulate: '模拟付款（沙盒）',
  simulateHint: '用测试资金全额支付此账单。',
  notFound: '未找到订单',
  notFoundMore: '此支付链接无效。请检查链接，或返回商家重试。',
  loadFailed: '无法加载订单，正在重试…',
  retry: '重试',
  failed: '操作未成功，请重试。',
  ORDER_NOT_NEW: '此订单已无法更改。',
  PAYMENT_NOT_AVAILABLE: '此支付方式暂不可用，请选择其他方式。',
  API_LIMIT_EXCEEDED: (seconds: number) => `此设备的请求过多，请在 ${seconds} 秒后重试。`,
  ORDER_CANCELED_FAIILED: '此订单已无法取消。',
  gatewayTitle: (gateway) => `沙盒 ${gateway}`,
  gatewayMore: '这是测试网关，不会产生真实付款。请返回支付页面，点击“模拟付款（沙盒）”完成订单。',
  mode: (mode) => (mode === 'app' ? '应用内支付' : '扫码支付'),
  currencies: {
    BTC: '比特币',
    LTC: '莱特币',
    ETH: '以太坊',
    USDT_ERC20: 'USDT（以太坊）',
    USDC_ERC20: 'USDC（以太坊）',
    USDT_TRC20: 'USDT（波场 TRON）',
    USDT_ARB: 'USDT（Arbitrum One）',
    USDT_BNB: 'USDT（BNB Smart Chain）',
    USDT_CELO: 'USDT（Celo）',
    USDC_ARB: 'USDC（Arbitrum One）',
    USDC_SOL: 'USDC（Solana）',
    USDC_BASE: 'USDC（Base）',
    USDC_POL: 'USDC（Polygon PoS）',
    CUSD: 'cUSD（Celo）',
    ETH_ARB: 'ETH（Arbitrum One）',
    ETH_BASE: 'ETH（Base）',
    EOS: 'EOS',
    BCH: '比特币现金',
    LBTC: '闪电网络',
    ALIPAY: '支付宝',
    ALIGLOBAL: '支付宝国际',
    WECHAT: '微信支付',
  },
};

export const STRINGS: Record<Lang, Strings> = { en, zh };

const STORAGE_KEY = 'pay.lang';

/** The remembered choice, else the browser's first language (zh-CN, zh-TW, zh... -> zh). */
export function initialLang(): Lang {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === 'en' || saved === 'zh') return saved;
  } catch {
    // Storage may be disabled (private mode): the browser's language decides.
  }
  const preferred = navigator.languages?.[0] ?? navigator.language ?? 'en';
  return preferred.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export function rememberLang(lang: Lang): void {
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // Not remembered; the switch still works for this visit.
  }
}

/** The `lang` attribute of the document for a language. */
export const htmlLang = (lang: Lang): string => (lang === 'zh' ? 'zh-CN' : 'en');
