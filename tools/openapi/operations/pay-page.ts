import { CancelFailedError, InvalidParameterError, InvoiceNotExistError, OrderNotNewError, ParametersMissingError, SandboxOnlyError } from '#shared/domain/errors';
import { MAX_INVOICES_PER_ORDER } from '#shared/domain/limits';
import { payOrderResponseSchema } from '#shared/schemas/pay-responses';
import { INVALID_JSON, ORDER_CONFLICT, PAYLOAD_TOO_LARGE, SERVICE_UNAVAILABLE, UNKNOWN_ORDER, errorCase, paymentNotAvailable, TOO_MANY_INVOICES } from '#tools/openapi/errors';
import { BTC_INVOICE, BTC_ORDER, NEW_ORDER } from '#tools/openapi/examples';
import type { OperationMeta } from '#tools/openapi/operation';
import { PAGE_ORDER_ID, PAGE_PUBLIC, PAY_ORDER_RESPONSE_EXAMPLES, payPage } from '#tools/openapi/pay-page-examples';

/** The hosted payment page's public endpoints. */

export const PAY_PAGE_OPERATIONS: Readonly<Record<string, OperationMeta>> = {
  'pay-get-order': {
    operationId: 'payGetOrder',
    tag: 'Payment page',
    summary: 'The order, for the payment page',
    description: [
      "What the hosted payment page shows and polls: the order (with the merchant's name), its current invoice",
      '(`{}` until the buyer picks a currency) and the currencies the buyer may pick.',
      PAGE_PUBLIC,
    ].join('\n'),
    pathParameters: { order_id: PAGE_ORDER_ID },
    success: { description: 'The order as the page shows it.', schema: payOrderResponseSchema, examples: PAY_ORDER_RESPONSE_EXAMPLES },
    errors: [UNKNOWN_ORDER, SERVICE_UNAVAILABLE],
  },
  'pay-checkout-order': {
    operationId: 'payCheckoutOrder',
    tag: 'Payment page',
    summary: 'Pick or switch the currency, from the payment page',
    description: [
      "Checkout Order as the order's merchant: makes the order's invoice in `pay_currency` current, its",
      'still-valid earlier one or a new one at a fresh address (at most ' + MAX_INVOICES_PER_ORDER + ' per order, then 429).',
      PAGE_PUBLIC,
    ].join('\n'),
    pathParameters: { order_id: PAGE_ORDER_ID },
    requestExamples: { btc: { summary: 'Pay in BTC', value: { pay_currency: 'BTC' } } },
    success: {
      description: 'The order and its new invoice, as the page shows them.',
      schema: payOrderResponseSchema,
      examples: { btc: PAY_ORDER_RESPONSE_EXAMPLES.btc!, eos: PAY_ORDER_RESPONSE_EXAMPLES.eos! },
    },
    errors: [
      errorCase('PARAMETERS_MISSING', 'pay_currency is missing.', new ParametersMissingError('pay_currency')),
      errorCase('PARAMETERS_INVALID', 'pay_currency is not one of the listed values, or a field is unknown.', new InvalidParameterError('Unknown parameter: order_id')),
      INVALID_JSON,
      errorCase('ORDER_NOT_NEW', 'The order is no longer NEW, so its payment currency cannot change.', new OrderNotNewError()),
      paymentNotAvailable('The currency is a gateway not enabled for the merchant, or no rate or address is available.'),
      UNKNOWN_ORDER,
      ORDER_CONFLICT,
      TOO_MANY_INVOICES,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
  'pay-cancel-order': {
    operationId: 'payCancelOrder',
    tag: 'Payment page',
    summary: 'Cancel, from the payment page',
    description: ['The buyer cancels a NEW order (NEW -> CANCELED); the page then goes to `cancel_url`. No body.', PAGE_PUBLIC].join('\n'),
    pathParameters: { order_id: PAGE_ORDER_ID },
    success: {
      description: 'The canceled order, as the page shows it.',
      schema: payOrderResponseSchema,
      examples: { canceled: { summary: 'Canceled before checkout', value: payPage({ ...NEW_ORDER, status: 'CANCELED' }) } },
    },
    errors: [errorCase('ORDER_CANCELED_FAIILED', "The order is not NEW (MugglePay's code, misspelling included).", new CancelFailedError()), UNKNOWN_ORDER, ORDER_CONFLICT, SERVICE_UNAVAILABLE],
  },
  'pay-sandbox-pay': {
    operationId: 'paySandboxPay',
    tag: 'Payment page',
    summary: 'Simulate a payment, from the payment page (sandbox)',
    description: [
      "Sandbox orders only: pays the current invoice in full with enough confirmations, as the merchant's",
      "`POST /v1/sandbox/orders/{order_id}/pay` does with `{}`. The transaction id is the invoice's, so repeating",
      'the call is one payment. No body.',
      PAGE_PUBLIC,
    ].join('\n'),
    pathParameters: { order_id: PAGE_ORDER_ID },
    success: {
      description: 'The order after the payment, as the page shows it.',
      schema: payOrderResponseSchema,
      examples: { paid: { summary: 'Paid in full', value: payPage({ ...BTC_ORDER, status: 'PAID' }, { ...BTC_INVOICE, status: 'PAID' }) } },
    },
    errors: [
      errorCase('INVOICE_NOT_EXIST', 'No currency has been picked yet.', new InvoiceNotExistError()),
      errorCase('ORDER_NOT_NEW', 'The order is no longer NEW.', new OrderNotNewError()),
      errorCase('SANDBOX_ONLY', 'The order is not a sandbox order.', new SandboxOnlyError()),
      UNKNOWN_ORDER,
      ORDER_CONFLICT,
      SERVICE_UNAVAILABLE,
    ],
  },
};
