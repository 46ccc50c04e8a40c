import { MAX_INVOICES_PER_ORDER, MAX_OFFSET } from '#shared/domain/limits';
import { listOrdersQuerySchema } from '#shared/schemas/orders';
import { checkoutOrderResponseSchema, createOrderResponseSchema, getOrderResponseSchema, getOrdersResponseSchema } from '#shared/schemas/order-responses';
import { CHECKOUT_ORDER_ERRORS, CREATE_ORDER_ERRORS, GET_ORDERS_ERRORS, GET_ORDER_ERRORS } from '#tools/openapi/errors';
import {
  CHECKOUT_REQUEST_EXAMPLES,
  CHECKOUT_RESPONSE_EXAMPLES,
  CREATE_REQUEST_EXAMPLES,
  CREATE_RESPONSE_EXAMPLES,
  GET_ORDERS_RESPONSE_EXAMPLES,
  GET_ORDER_RESPONSE_EXAMPLES,
} from '#tools/openapi/examples';
import { GET_ORDERS_QUERY_DESCRIPTIONS, ORDER_ID_PARAMETER, type OperationMeta } from '#tools/openapi/operation';

/** Create Order, Get Order, Checkout Order, Get Orders. */

const { limit, offset } = listOrdersQuerySchema.properties;

export const ORDER_OPERATIONS: Readonly<Record<string, OperationMeta>> = {
  'create-order': {
    operationId: 'createOrder',
    summary: 'Create Order',
    description: [
      'Stores a NEW order and returns the hosted payment page (`payment_url`) to send the buyer to.',
      'This is the only call a merchant site needs when it uses the hosted page.',
      '',
      '**Contract quirk:** success is HTTP **200** with `"status": 201` in the body.',
      '',
      'Without `pay_currency`, `order.pay_amount` and `order.pay_currency` repeat the price; with it, the order is',
      'checked out at once and priced in that currency. The order in this answer has no `token`,',
      '`receive_currency` or `deleted` (Get Order and Get Orders have them).',
      'When the order changes status, the service POSTs to `callback_url`, carrying the `token` given here.',
    ].join('\n'),
    requestExamples: CREATE_REQUEST_EXAMPLES,
    success: {
      description: 'Created. HTTP 200, body `status` 201 (contract quirk).',
      schema: createOrderResponseSchema,
      examples: CREATE_RESPONSE_EXAMPLES,
    },
    errors: CREATE_ORDER_ERRORS,
  },
  'get-order': {
    operationId: 'getOrder',
    summary: 'Get Order',
    description: [
      'The order and its current invoice, for an in-house payment flow.',
      '`invoice` is `{}` until the order has been checked out.',
      '',
      "**Contract quirk:** a missing order (or another merchant's) is HTTP 404 with",
      '`{"eror": "Order not found", "status": "404"}`: the key is misspelt and `status` is a string.',
    ].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    success: { description: 'The order and its invoice.', schema: getOrderResponseSchema, examples: GET_ORDER_RESPONSE_EXAMPLES },
    errors: GET_ORDER_ERRORS,
  },
  'checkout-order': {
    operationId: 'checkoutOrder',
    summary: 'Checkout Order',
    description: [
      'Prices a NEW order in `pay_currency` and opens an invoice with `pay_amount` and `payment_address`',
      '(plus `payment_uri` for a QR code, and `memo` for EOS). Checking out in another currency makes that',
      "currency's invoice current: the order's earlier invoice in it when that one still has a quarter of its",
      'window left (same address, same amount: its rate stays locked), else a new one at a fresh address.',
      `The same currency again answers the current invoice. An order has at most ${MAX_INVOICES_PER_ORDER} invoices (then 429).`,
      'Invoices run 60 minutes for crypto and 3 hours for gateways.',
      '',
      '**Contract quirk:** an unknown order is HTTP **422** `{"error": "Order does not exist", "status": 422}`,',
      'not 404.',
    ].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestExamples: CHECKOUT_REQUEST_EXAMPLES,
    success: { description: 'The order and its new invoice.', schema: checkoutOrderResponseSchema, examples: CHECKOUT_RESPONSE_EXAMPLES },
    errors: CHECKOUT_ORDER_ERRORS,
  },
  'list-orders': {
    operationId: 'getOrders',
    summary: 'Get Orders',
    description: [
      "The merchant's orders, **newest first**, without invoices. Page with `limit`",
      `(${limit.minimum}..${limit.maximum}, default ${limit.default}) and \`offset\` (${offset.minimum} or more, default ${offset.default}; with \`status\`, at most ${MAX_OFFSET});`,
      'a page shorter than `limit` is the last one (the answer carries no total). Every offset reads about `limit` orders, however deep. Unknown query parameters are ignored.',
    ].join('\n'),
    queryDescriptions: GET_ORDERS_QUERY_DESCRIPTIONS,
    success: { description: 'One page of orders.', schema: getOrdersResponseSchema, examples: GET_ORDERS_RESPONSE_EXAMPLES },
    errors: GET_ORDERS_ERRORS,
  },
};
