import {
  InvalidParameterError,
  ParametersMissingError,
  RefundAddressError,
  RefundCheckUnavailableError,
  RefundFailedError,
  RefundLinkInvalidError,
  RefundNotFoundError,
  RefundTransactionError,
  RefundTransactionNotFinalError,
} from '#shared/domain/errors';
import { listRefundsResponseSchema, payRefundResponseSchema, refundResponseSchema } from '#shared/schemas/refunds';
import { getOrderResponseSchema } from '#shared/schemas/order-responses';
import { AUTHENTICATION_FAILED, INVALID_JSON, ORDER_CONFLICT, ORDER_ID_MISMATCH, PAYLOAD_TOO_LARGE, rateLimited, SERVICE_UNAVAILABLE, UNKNOWN_ORDER, errorCase } from '#tools/openapi/errors';
import { BTC_INVOICE, moved, NEW_ORDER, PAID_ORDER } from '#tools/openapi/examples';
import { ORDER_ID_PARAMETER, type OperationMeta } from '#tools/openapi/operation';

/** Refunds (issue 30): asking one, listing them, a new link, reporting the transaction, and the buyer's refund page. */

const REFUND_ID = '019a6f3e-5c1b-7d2a-9b3c-4d5e6f708192';
const SECRET = 'Xq3v9sA0b1C2d3E4f5G6h7I8j9K0l1M2n3O4p5Q6r7S';

/** The example refund: 0.001 BTC of the example order, waiting for the buyer's address. */
const AWAITING_ADDRESS = {
  refund_id: REFUND_ID,
  order_id: NEW_ORDER.order_id,
  status: 'AWAITING_ADDRESS',
  amount: BTC_INVOICE.pay_amount,
  currency: 'BTC',
  network: 'Bitcoin',
  basis: 'crypto',
  rate: null,
  reason: 'Out of stock',
  address: null,
  memo: null,
  payment_uri: null,
  txid: null,
  refund_url: `http://127.0.0.1:3000/pay/#refund=${SECRET}`,
  short_payments: [],
  created_at: '2019-04-25T09:00:00.000Z',
  address_set_at: null,
  sent_at: null,
};

const ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const AWAITING_PAYMENT = {
  ...AWAITING_ADDRESS,
  status: 'AWAITING_PAYMENT',
  address: ADDRESS,
  payment_uri: `bitcoin:${ADDRESS}?amount=${BTC_INVOICE.pay_amount}`,
  refund_url: null,
  address_set_at: '2019-04-25T10:00:00.000Z',
};
const SENT = { ...AWAITING_PAYMENT, status: 'SENT', payment_uri: null, txid: 'f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16', sent_at: '2019-04-25T11:00:00.000Z' };

const UNKNOWN_REFUND = errorCase('REFUND_NOT_FOUND', "No such refund of this order (another merchant's reads the same).", new RefundNotFoundError());
const PAGE_PUBLIC = "No token: the refund link's secret (in the body, never in a URL a log keeps) is the only capability. Rate limited per client like the payment page.";

export const REFUND_OPERATIONS: Readonly<Record<string, OperationMeta>> = {
  'refund-order': {
    operationId: 'refundOrder',
    summary: 'Refund Order',
    description: [
      'Asks a refund of a PAID order (all or part) or an UNRESOLVED one (the overpaid part or all): PAID or UNRESOLVED -> REFUND_PENDING;',
      "a further partial refund while REFUND_PENDING. MugglePay's bodies (`[]`, `{}`, `{order_id}`) refund all that is left, and the",
      "answer keeps MugglePay's shape with the new `refund` beside it: give its `refund_url` to the buyer, who sets where the money goes.",
      'The service holds no keys: you pay the refund from your own wallet (its `payment_uri`, once addressed); it is SENT when the payment',
      'is seen final on chain (or a reported transaction checks out), and the order REFUNDED, with its callback, when every refund is sent.',
      'Refunds add up to at most what was paid. A gateway order (ALIPAY, ALIGLOBAL, WECHAT) is refunded in full at its gateway, as before.',
      'Send an `Idempotency-Key` to make a retried request one refund.',
    ].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestExamples: {
      mugglePay: { summary: 'MugglePay style: all that is left', value: { order_id: NEW_ORDER.order_id } },
      empty: { summary: 'No body fields: all that is left', value: {} },
      custom: { summary: 'A part, in the paid currency', value: { basis: 'custom', amount: '0.0004', reason: 'One item returned' } },
      fiat: { summary: "The price at today's rate (locked)", value: { basis: 'fiat' } },
    },
    success: {
      description: 'The order, now REFUND_PENDING, its invoice, and the refund (none for a gateway order).',
      schema: getOrderResponseSchema,
      examples: { refundPending: { summary: 'Refund asked', value: { ...moved(PAID_ORDER, BTC_INVOICE, 'REFUND_PENDING', '2019-04-25T09:00:00.000Z'), refund: AWAITING_ADDRESS } } },
    },
    errors: [
      errorCase('ORDER_REFUND_FAILED', 'The order is in no status a refund can be asked in, or the amount is more than what is left to refund.', new RefundFailedError()),
      errorCase(
        'PARAMETERS_INVALID',
        'A custom refund without amount, an amount with a crypto basis, a basis for a gateway order.',
        new InvalidParameterError('amount is required for a custom refund (in BTC)'),
      ),
      ORDER_ID_MISMATCH,
      INVALID_JSON,
      AUTHENTICATION_FAILED,
      UNKNOWN_ORDER,
      ORDER_CONFLICT,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
  'list-refunds': {
    operationId: 'listRefunds',
    summary: "List an order's refunds",
    description: "The order's refunds, oldest first (Get Order carries them too, once the order has any). Beyond the contract.",
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    success: { description: "The order's refunds.", schema: listRefundsResponseSchema, examples: { one: { summary: 'One refund, addressed', value: { status: 200, refunds: [AWAITING_PAYMENT] } } } },
    errors: [AUTHENTICATION_FAILED, UNKNOWN_ORDER, SERVICE_UNAVAILABLE],
  },
  'report-refund-txid': {
    operationId: 'reportRefundTxid',
    summary: 'Report the transaction that paid a refund',
    description: [
      'For a refund paid some other way than its `payment_uri` (or before the watchers saw it): the transaction is checked on its chain',
      "(it must pay the refund address the refund's amount or more, final) before the refund counts as SENT. Sandbox merchants' transactions",
      'pass a sandbox check. A network whose check is not available answers REFUND_CHECK_UNAVAILABLE (never accepted unchecked).',
    ].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestExamples: { txid: { summary: 'The paying transaction', value: { refund_id: REFUND_ID, txid: SENT.txid } } },
    success: { description: 'The refund, SENT.', schema: refundResponseSchema, examples: { sent: { summary: 'Sent', value: { status: 200, refund: SENT } } } },
    errors: [
      errorCase(
        'REFUND_TX_INVALID',
        'The transaction was not found, does not pay this refund, pays less (recorded as a short payment), or the refund has no address yet.',
        new RefundTransactionError('the buyer has not set the refund address yet: nothing can pay it'),
      ),
      errorCase('REFUND_TX_NOT_FINAL', 'The transaction has not reached its confirmations yet: report it again later.', new RefundTransactionNotFinalError()),
      errorCase('REFUND_CHECK_UNAVAILABLE', "The refund's network cannot be checked by this deployment.", new RefundCheckUnavailableError('Bitcoin')),
      errorCase('PARAMETERS_MISSING', 'No txid.', new ParametersMissingError('txid')),
      INVALID_JSON,
      AUTHENTICATION_FAILED,
      UNKNOWN_REFUND,
      ORDER_CONFLICT,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
  'renew-refund-link': {
    operationId: 'renewRefundLink',
    summary: 'Issue a new refund link',
    description: 'A new one-time link for a refund not sent yet: the old link, and any address set through it, stop counting (the refund waits for an address again).',
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestExamples: { renew: { summary: 'Which refund', value: { refund_id: REFUND_ID } } },
    success: { description: 'The refund with its new link.', schema: refundResponseSchema, examples: { renewed: { summary: 'A new link', value: { status: 200, refund: AWAITING_ADDRESS } } } },
    errors: [
      errorCase('ORDER_REFUND_FAILED', 'The refund is sent already.', new RefundFailedError('The refund is sent already: its address cannot change.')),
      INVALID_JSON,
      AUTHENTICATION_FAILED,
      UNKNOWN_REFUND,
      ORDER_CONFLICT,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
  'pay-open-refund': {
    operationId: 'payOpenRefund',
    tag: 'Payment page',
    summary: 'What a refund link shows',
    description: ['The refund page: the order (nothing the merchant owns), the amount, currency and network, and what it asks for.', PAGE_PUBLIC].join('\n'),
    requestExamples: { open: { summary: "The link's secret", value: { secret: SECRET } } },
    success: {
      description: 'The refund page.',
      schema: payRefundResponseSchema,
      examples: {
        btc: {
          summary: 'A BTC refund',
          value: {
            status: 200,
            order: { title: NEW_ORDER.title, merchant_name: 'Test Shop', price_amount: NEW_ORDER.price_amount, price_currency: NEW_ORDER.price_currency, status: 'REFUND_PENDING', sandbox: false },
            refund: {
              amount: BTC_INVOICE.pay_amount,
              currency: 'BTC',
              network: 'Bitcoin',
              reason: 'Out of stock',
              status: 'AWAITING_ADDRESS',
              address: null,
              memo: null,
              takes_memo: false,
              asks: 'address',
            },
          },
        },
      },
    },
    errors: [errorCase('REFUND_LINK_INVALID', 'The link never was, was replaced, or was used (an address is set).', new RefundLinkInvalidError()), rateLimited('public'), SERVICE_UNAVAILABLE],
  },
  'pay-set-refund-address': {
    operationId: 'paySetRefundAddress',
    tag: 'Payment page',
    summary: "The buyer's refund address",
    description: [
      "Checked for the refund's currency and network (checksums, network prefixes, token contracts refused, a BOLT11 invoice of exactly the",
      'amount for LBTC, an account and memo for EOS; docs/merchant-guide.md "Refunds"); then the link stops working.',
      PAGE_PUBLIC,
    ].join('\n'),
    requestExamples: { btc: { summary: 'A Bitcoin address', value: { secret: SECRET, address: ADDRESS } } },
    success: {
      description: 'The refund page, addressed.',
      schema: payRefundResponseSchema,
      examples: {
        btc: {
          summary: 'Addressed',
          value: {
            status: 200,
            order: { title: NEW_ORDER.title, merchant_name: 'Test Shop', price_amount: NEW_ORDER.price_amount, price_currency: NEW_ORDER.price_currency, status: 'REFUND_PENDING', sandbox: false },
            refund: {
              amount: BTC_INVOICE.pay_amount,
              currency: 'BTC',
              network: 'Bitcoin',
              reason: 'Out of stock',
              status: 'AWAITING_PAYMENT',
              address: ADDRESS,
              memo: null,
              takes_memo: false,
              asks: 'address',
            },
          },
        },
      },
    },
    errors: [
      errorCase(
        'REFUND_ADDRESS_INVALID',
        'The address cannot receive this refund; the error says why (network, checksum, contract, amount).',
        new RefundAddressError('This is a Bitcoin test network address; this refund is paid on Bitcoin itself (mainnet).'),
      ),
      errorCase('REFUND_LINK_INVALID', 'The link never was, was replaced, or was used already.', new RefundLinkInvalidError()),
      rateLimited('public'),
      SERVICE_UNAVAILABLE,
    ],
  },
};
