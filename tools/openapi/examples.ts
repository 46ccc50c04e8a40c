import { checkedOutWith, type Invoice, type Order } from '#shared/domain/order';
import { createdOrderView, invoiceView, orderView } from '#shared/schemas/order-views';

/**
 * Examples. The answers are built by the service's own views and error mapper, so their
 * fields, field order and messages are the real ones; tests validate each against its schema.
 */

export type Examples = Record<string, { summary: string; value: unknown }>;

export const PAYMENT_PAGE = 'http://127.0.0.1:3000/pay/';

/** The MugglePay Create Order example (API/order/CreateOrder.md), priced at 9.99 USD. */
export const CREATE_REQUEST = {
  merchant_order_id: '503a854998-6230-4338-adb7',
  price_amount: 9.99,
  price_currency: 'USD',
  title: 'Monthly Program x 1',
  description: 'Game Pass Friends and Family, up to four players can enjoy Game Pass',
  callback_url: 'https://ecards.com/api/success',
  cancel_url: 'https://ecards.com/ecardstatus?status=cancel',
  success_url: 'https://ecards.com/ecardstatus?status=success',
  token: 'XI231SD02-SDFWE123D',
};

export const NEW_ORDER: Order = {
  order_id: '94be2b2a-2905-4857-b701-b04e57e84593',
  user_id: 32014,
  merchant_order_id: CREATE_REQUEST.merchant_order_id,
  title: CREATE_REQUEST.title,
  description: CREATE_REQUEST.description,
  callback_url: CREATE_REQUEST.callback_url,
  cancel_url: CREATE_REQUEST.cancel_url,
  success_url: CREATE_REQUEST.success_url,
  token: CREATE_REQUEST.token,
  price_amount: '9.99',
  price_currency: 'USD',
  pay_amount: '9.99',
  pay_currency: 'USD',
  receive_currency: '',
  status: 'NEW',
  created_at: '2019-04-24T16:57:35.416Z',
  updated_at: '2019-04-24T16:57:35.416Z',
  deleted: 0,
  version: 1,
  mobile: false,
  fast: false,
  sandbox: true,
};

/** 9.99 USD at 65,000 USD/BTC, rounded up to 8 decimals; the address is BIP84 test vector m/84'/0'/0'/0/7. */
export const BTC_INVOICE: Invoice = {
  invoice_id: '7707ce37-aad6-4a9d-94b4-821db7c7a958',
  order_id: NEW_ORDER.order_id,
  user_id: NEW_ORDER.user_id,
  merchant_order_id: NEW_ORDER.merchant_order_id,
  pay_amount: '0.0001537',
  pay_currency: 'BTC',
  receive_amount: '9.99',
  receive_currency: 'USD',
  status: 'NEW',
  created_at: '2019-04-24T16:58:02.105Z',
  expired_at: '2019-04-24T17:58:02.105Z',
  payment_address: 'bc1q3utnvcdn0ekpzp9pstymxvhqlr8y5chwyt5fkp',
  payment_uri: 'bitcoin:bc1q3utnvcdn0ekpzp9pstymxvhqlr8y5chwyt5fkp?amount=0.00015370',
  rate: { numerator: '1', denominator: '65000', source: 'static', as_of: '2019-04-24T16:58:00.000Z' },
};

/** 9.99 USD at 0.80 USD/EOS; EOS pays one account, the memo ties the transfer to the invoice. */
export const EOS_INVOICE: Invoice = {
  ...BTC_INVOICE,
  invoice_id: 'dc5425bf-29fa-4b59-bc20-2203e05a8eed',
  pay_amount: '12.4875',
  pay_currency: 'EOS',
  created_at: '2019-04-24T16:59:10.250Z',
  expired_at: '2019-04-24T17:59:10.250Z',
  payment_address: 'sandboxpayio',
  payment_uri: 'eos:sandboxpayio?quantity=12.4875%20EOS&memo=dc5425bf-29fa-4b59-bc20-2203e05a8eed',
  memo: 'dc5425bf-29fa-4b59-bc20-2203e05a8eed',
  rate: { numerator: '1', denominator: '0.80', source: 'static', as_of: '2019-04-24T16:59:00.000Z' },
};

/** The order as a checkout leaves it (at the invoice's creation). */
export const checkedOut = (order: Order, invoice: Invoice): Order => ({ ...checkedOutWith(order, invoice), updated_at: invoice.created_at });

export const BTC_ORDER = checkedOut(NEW_ORDER, BTC_INVOICE);
export const EOS_ORDER = checkedOut(NEW_ORDER, EOS_INVOICE);

/** A later order of the same merchant (MugglePay's Get Orders example), for the newest-first list. */
export const LATER_ORDER: Order = {
  ...NEW_ORDER,
  order_id: 'd84cc10f-9e88-4783-9fb0-3a7b9aea8de4',
  merchant_order_id: 'Order #5630',
  title: 'Order 5630',
  description: 'Membership $0.15',
  token: 'Ex1asdfasdf',
  price_amount: '0.15',
  pay_amount: '0.15',
  created_at: '2019-04-24T17:05:12.330Z',
  updated_at: '2019-04-24T17:05:12.330Z',
};

export const paymentUrl = (order: Order) => `${PAYMENT_PAGE}?id=${order.order_id}`;

export const CREATE_REQUEST_EXAMPLES: Examples = {
  hostedPage: { summary: 'Hosted payment page (the contract example)', value: CREATE_REQUEST },
  minimal: {
    summary: 'Price only; a numeric merchant_order_id is stored as a string',
    value: { merchant_order_id: 100388, price_amount: 10, price_currency: 'USD' },
  },
  payCurrency: { summary: 'Checked out at creation in BTC', value: { ...CREATE_REQUEST, pay_currency: 'BTC' } },
};

export const CREATE_RESPONSE_EXAMPLES: Examples = {
  hostedPage: {
    summary: 'Without pay_currency: pay_amount and pay_currency repeat the price',
    value: { status: 201, order: createdOrderView(NEW_ORDER), payment_url: paymentUrl(NEW_ORDER) },
  },
  payCurrency: {
    summary: 'With pay_currency BTC: priced in BTC at creation',
    value: { status: 201, order: createdOrderView(BTC_ORDER), payment_url: paymentUrl(BTC_ORDER) },
  },
};

export const GET_ORDER_RESPONSE_EXAMPLES: Examples = {
  checkedOut: {
    summary: 'Checked out in BTC',
    value: { status: 200, order: orderView(BTC_ORDER), invoice: invoiceView(BTC_INVOICE) },
  },
  notCheckedOut: {
    summary: 'Before the first checkout: invoice is {}',
    value: { status: 200, order: orderView(NEW_ORDER), invoice: {} },
  },
};

export const CHECKOUT_REQUEST_EXAMPLES: Examples = {
  btc: { summary: 'Pay in BTC, order_id repeated', value: { order_id: NEW_ORDER.order_id, pay_currency: 'BTC' } },
  eos: { summary: 'Pay in EOS (the contract example)', value: { pay_currency: 'EOS' } },
};

export const CHECKOUT_RESPONSE_EXAMPLES: Examples = {
  btc: {
    summary: 'BTC: a fresh address and a BIP21 URI',
    value: { status: 200, order: orderView(BTC_ORDER), invoice: invoiceView(BTC_INVOICE) },
  },
  eos: {
    summary: 'EOS: the receiving account plus a memo',
    value: { status: 200, order: orderView(EOS_ORDER), invoice: invoiceView(EOS_INVOICE) },
  },
};

export const GET_ORDERS_RESPONSE_EXAMPLES: Examples = {
  page: { summary: 'Newest first', value: { status: 200, orders: [orderView(LATER_ORDER), orderView(BTC_ORDER)] } },
  empty: { summary: 'Past the last order', value: { status: 200, orders: [] } },
};

/** The order and invoice after a move along the status machine (they move in step). */
export function moved(order: Order, invoice: Invoice | undefined, status: Order['status'], at: string) {
  const settled = status === 'PAID' && invoice ? { receive_currency: invoice.receive_currency } : {};
  return {
    status: 200,
    order: orderView({ ...order, ...settled, status, updated_at: at }),
    invoice: invoice ? invoiceView({ ...invoice, status }) : {},
  };
}

export const PAID_ORDER = { ...BTC_ORDER, receive_currency: 'USD' };

/** An example callback log entry: the PAID change of the example order, delivered on the second try. */
export const DELIVERED_CALLBACK = {
  event_id: `evt_${NEW_ORDER.order_id.replaceAll('-', '')}_3`,
  status: 'PAID',
  version: 3,
  callback_url: NEW_ORDER.callback_url,
  state: 'DELIVERED',
  attempt_count: 2,
  attempts: [
    { at: '2019-04-24T16:41:01.004Z', http_status: 503, latency_ms: 182 },
    { at: '2019-04-24T16:42:03.010Z', http_status: 200, latency_ms: 96 },
  ],
  next_attempt_at: null,
  created_at: '2019-04-24T16:41:01.000Z',
  delivered_at: '2019-04-24T16:42:03.120Z',
};
export const ORDER_ACTION_REQUEST_EXAMPLES: Examples = {
  orderId: { summary: 'MugglePay style: the order id repeated', value: { order_id: NEW_ORDER.order_id } },
  empty: { summary: 'No body fields', value: {} },
};
