import { fileURLToPath } from 'node:url';
import {
  CallbackInProgressError,
  AuthenticationError,
  CancelFailedError,
  ConcurrentUpdateError,
  InvalidParameterError,
  InvalidPriceError,
  InvoiceNotExistError,
  MalformedJsonError,
  MerchantOrderIdExistsError,
  NoCallbackError,
  OrderDoesNotExistError,
  OrderNotFoundError,
  OrderNotNewError,
  ParametersMissingError,
  PayloadTooLargeError,
  PaymentNotAvailableError,
  RefundFailedError,
  RefundNotPendingError,
  ResolveFailedError,
  SandboxOnlyError,
  ServiceUnavailableError,
  UnknownOrderError,
  type AppError,
} from '#shared/domain/errors';
import { checkedOutWith, createdOrderView, invoiceView, orderView, type Invoice, type Order } from '#shared/domain/order';
import { errorResponse } from '#shared/http/errors';
import { ROUTES, type Route } from '#shared/http/routes';
import { MAX_BODY_BYTES, MAX_OFFSET } from '#shared/limits';
import {
  checkoutBodySchema,
  createOrderBodySchema,
  listOrdersQuerySchema,
  orderActionBodySchema,
  sandboxPayBodySchema,
  sandboxRefundBodySchema,
} from '#shared/schemas/orders';
import { payCheckoutBodySchema, payPageView } from '#shared/schemas/pay';
import {
  checkoutOrderResponseSchema,
  createOrderResponseSchema,
  errorSchema,
  getOrderResponseSchema,
  getOrdersResponseSchema,
  listCallbacksResponseSchema,
  orderDoesNotExistErrorSchema,
  orderNotFoundErrorSchema,
  payOrderResponseSchema,
  priceNotValidErrorSchema,
  redeliverCallbackResponseSchema,
  RESPONSE_SCHEMAS,
} from '#shared/schemas/responses';

/**
 * The OpenAPI 3.1 document of the merchant API, generated from the request schemas
 * (shared/schemas/orders.ts), the response schemas (shared/schemas/responses.ts) and the route
 * table (shared/http/routes.ts). Nothing here restates a field list: the document only adds
 * prose, examples and the mapping from each route's function to its operation.
 * `npm run openapi` writes it to docs/openapi.json; a test keeps that file current.
 */

/** Where the generated document is committed. */
export const OPENAPI_DOCUMENT_FILE = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));

// ---------------------------------------------------------------------------------------------
// Components: every named schema once, `$id` turned into the component name.

/** A JSON Schema with an `$id`: it becomes `#/components/schemas/<$id>`. */
interface NamedSchema {
  readonly $id: string;
}

/** Request bodies and responses; the Get Orders query becomes parameters instead. */
const NAMED_SCHEMAS: readonly NamedSchema[] = [
  createOrderBodySchema,
  checkoutBodySchema,
  orderActionBodySchema,
  sandboxPayBodySchema,
  sandboxRefundBodySchema,
  payCheckoutBodySchema,
  ...RESPONSE_SCHEMAS,
];

const COMPONENT_NAMES: ReadonlySet<string> = new Set(NAMED_SCHEMAS.map((schema) => schema.$id));

function componentRef(name: string): string {
  if (!COMPONENT_NAMES.has(name)) throw new Error(`OpenAPI: "${name}" is not a named schema`);
  return `#/components/schemas/${name}`;
}

/** `{$ref}` to a named schema's component. */
const ref = (schema: NamedSchema) => ({ $ref: componentRef(schema.$id) });

/**
 * A copy of a JSON Schema as an OpenAPI component: `$id` dropped (the component key names it)
 * and relative `$ref`s (`'Order'`) pointed at the components. Our schemas have no property
 * literally named `$id` or `$ref`, so a plain walk is enough.
 */
function toComponent(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toComponent);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id') continue;
    copy[key] = key === '$ref' ? componentRef(String(value)) : toComponent(value);
  }
  return copy;
}

function buildComponentSchemas(): Record<string, unknown> {
  if (COMPONENT_NAMES.size !== NAMED_SCHEMAS.length) throw new Error('OpenAPI: two schemas share an $id');
  return Object.fromEntries(NAMED_SCHEMAS.map((schema) => [schema.$id, toComponent(schema)]));
}

// ---------------------------------------------------------------------------------------------
// Examples. The answers are built by the service's own views and error mapper, so their
// fields, field order and messages are the real ones; tests validate each against its schema.

type Examples = Record<string, { summary: string; value: unknown }>;

const PAYMENT_PAGE = 'http://127.0.0.1:3000/pay/';

/** The MugglePay Create Order example (API/order/CreateOrder.md), priced at 9.99 USD. */
const CREATE_REQUEST = {
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

const NEW_ORDER: Order = {
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
const BTC_INVOICE: Invoice = {
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
const EOS_INVOICE: Invoice = {
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
const checkedOut = (order: Order, invoice: Invoice): Order => ({ ...checkedOutWith(order, invoice), updated_at: invoice.created_at });

const BTC_ORDER = checkedOut(NEW_ORDER, BTC_INVOICE);
const EOS_ORDER = checkedOut(NEW_ORDER, EOS_INVOICE);

/** A later order of the same merchant (MugglePay's Get Orders example), for the newest-first list. */
const LATER_ORDER: Order = {
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

const paymentUrl = (order: Order) => `${PAYMENT_PAGE}?id=${order.order_id}`;

const CREATE_REQUEST_EXAMPLES: Examples = {
  hostedPage: { summary: 'Hosted payment page (the contract example)', value: CREATE_REQUEST },
  minimal: {
    summary: 'Price only; a numeric merchant_order_id is stored as a string',
    value: { merchant_order_id: 100388, price_amount: 10, price_currency: 'USD' },
  },
  payCurrency: { summary: 'Checked out at creation in BTC', value: { ...CREATE_REQUEST, pay_currency: 'BTC' } },
};

const CREATE_RESPONSE_EXAMPLES: Examples = {
  hostedPage: {
    summary: 'Without pay_currency: pay_amount and pay_currency repeat the price',
    value: { status: 201, order: createdOrderView(NEW_ORDER), payment_url: paymentUrl(NEW_ORDER) },
  },
  payCurrency: {
    summary: 'With pay_currency BTC: priced in BTC at creation',
    value: { status: 201, order: createdOrderView(BTC_ORDER), payment_url: paymentUrl(BTC_ORDER) },
  },
};

const GET_ORDER_RESPONSE_EXAMPLES: Examples = {
  checkedOut: {
    summary: 'Checked out in BTC',
    value: { status: 200, order: orderView(BTC_ORDER), invoice: invoiceView(BTC_INVOICE) },
  },
  notCheckedOut: {
    summary: 'Before the first checkout: invoice is {}',
    value: { status: 200, order: orderView(NEW_ORDER), invoice: {} },
  },
};

const CHECKOUT_REQUEST_EXAMPLES: Examples = {
  btc: { summary: 'Pay in BTC, order_id repeated', value: { order_id: NEW_ORDER.order_id, pay_currency: 'BTC' } },
  eos: { summary: 'Pay in EOS (the contract example)', value: { pay_currency: 'EOS' } },
};

const CHECKOUT_RESPONSE_EXAMPLES: Examples = {
  btc: {
    summary: 'BTC: a fresh address and a BIP21 URI',
    value: { status: 200, order: orderView(BTC_ORDER), invoice: invoiceView(BTC_INVOICE) },
  },
  eos: {
    summary: 'EOS: the receiving account plus a memo',
    value: { status: 200, order: orderView(EOS_ORDER), invoice: invoiceView(EOS_INVOICE) },
  },
};

const GET_ORDERS_RESPONSE_EXAMPLES: Examples = {
  page: { summary: 'Newest first', value: { status: 200, orders: [orderView(LATER_ORDER), orderView(BTC_ORDER)] } },
  empty: { summary: 'Past the last order', value: { status: 200, orders: [] } },
};

/** The order and invoice after a move along the status machine (they move in step). */
function moved(order: Order, invoice: Invoice | undefined, status: Order['status'], at: string) {
  const settled = status === 'PAID' && invoice ? { receive_currency: invoice.receive_currency } : {};
  return {
    status: 200,
    order: orderView({ ...order, ...settled, status, updated_at: at }),
    invoice: invoice ? invoiceView({ ...invoice, status }) : {},
  };
}

const PAID_ORDER = { ...BTC_ORDER, receive_currency: 'USD' };

/** An example callback log entry: the PAID change of the example order, delivered on the second try. */
const DELIVERED_CALLBACK = {
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
const ORDER_ACTION_REQUEST_EXAMPLES: Examples = {
  orderId: { summary: 'MugglePay style: the order id repeated', value: { order_id: NEW_ORDER.order_id } },
  empty: { summary: 'No body fields', value: {} },
};

// ---------------------------------------------------------------------------------------------
// Errors: each case is a real error instance; its example body comes from the error mapper.

interface ErrorCase {
  /** Example key, unique within an operation. */
  name: string;
  /** When it happens (Markdown, one sentence). */
  when: string;
  error: AppError;
  /** The body's schema: the generic one unless the contract fixes a special body. */
  schema: NamedSchema;
}

const errorCase = (name: string, when: string, error: AppError, schema: NamedSchema = errorSchema): ErrorCase => ({
  name,
  when,
  error,
  schema,
});

const AUTHENTICATION_FAILED = errorCase(
  'AUTHENTICATION_FAILED',
  'The `token` header is missing or is not a valid API token.',
  new AuthenticationError(),
);
const INVALID_JSON = errorCase('INVALID_JSON', 'The body is not JSON.', new MalformedJsonError());
const PAYLOAD_TOO_LARGE = errorCase(
  'PAYLOAD_TOO_LARGE',
  `The body is larger than ${MAX_BODY_BYTES} bytes.`,
  new PayloadTooLargeError(MAX_BODY_BYTES),
);
const SERVICE_UNAVAILABLE = errorCase(
  'SERVICE_UNAVAILABLE',
  'The order store could not be reached; nothing was changed, retry later.',
  new ServiceUnavailableError(),
);
const UNKNOWN_FIELD = errorCase(
  'PARAMETERS_INVALID',
  'A field has the wrong type, an unknown value, exceeds its limit, or is not part of the body; the message names it.',
  new InvalidParameterError('Unknown parameter: colour'),
);
const UNKNOWN_ORDER = errorCase(
  'ORDER_NOT_FOUND',
  "No such order for this merchant (another merchant's reads the same). Beyond the contract, so the generic body.",
  new UnknownOrderError(),
);
const ORDER_ID_MISMATCH = errorCase(
  'PARAMETERS_INVALID',
  'order_id differs from the path, or the body has an unknown field.',
  new InvalidParameterError('order_id does not match the order in the path'),
);
const ORDER_CONFLICT = errorCase(
  'ORDER_CONFLICT',
  'Other writes kept changing the order; nothing was changed by this call, retry.',
  new ConcurrentUpdateError(),
);
const SANDBOX_ONLY = errorCase('SANDBOX_ONLY', 'The merchant is not a sandbox merchant.', new SandboxOnlyError());
const paymentNotAvailable = (when: string) =>
  errorCase('PAYMENT_NOT_AVAILABLE', when, new PaymentNotAvailableError('WECHAT is not enabled for this merchant'));

const CREATE_ORDER_ERRORS: readonly ErrorCase[] = [
  errorCase(
    'PRICE_NOT_VALID',
    'price_amount is not a number above 0 and below 10^12 with at most the currency\'s decimals. Contract body, no `error_code`.',
    new InvalidPriceError(),
    priceNotValidErrorSchema,
  ),
  errorCase('PARAMETERS_MISSING', 'price_amount is missing.', new ParametersMissingError('price_amount')),
  UNKNOWN_FIELD,
  INVALID_JSON,
  errorCase(
    'ORDER_MERCHANTID_EXIST',
    'This merchant already has an order with this merchant_order_id.',
    new MerchantOrderIdExistsError(),
  ),
  errorCase(
    'ORDER_CONFLICT',
    'Another request with the same merchant_order_id was being written at that moment; nothing was stored by this call, retry.',
    new ConcurrentUpdateError(),
  ),
  paymentNotAvailable('pay_currency is a gateway not enabled for the merchant, or no rate is available.'),
  AUTHENTICATION_FAILED,
  PAYLOAD_TOO_LARGE,
  SERVICE_UNAVAILABLE,
];

const GET_ORDER_ERRORS: readonly ErrorCase[] = [
  AUTHENTICATION_FAILED,
  errorCase(
    'ORDER_NOT_FOUND',
    'No such order for this merchant (another merchant\'s order reads the same). Contract quirk: the key is spelt `eror` and `status` is the string "404".',
    new OrderNotFoundError(),
    orderNotFoundErrorSchema,
  ),
  SERVICE_UNAVAILABLE,
];

const CHECKOUT_ORDER_ERRORS: readonly ErrorCase[] = [
  errorCase('PARAMETERS_MISSING', 'pay_currency is missing.', new ParametersMissingError('pay_currency')),
  errorCase(
    'PARAMETERS_INVALID',
    'pay_currency is not one of the listed values, a field is unknown, or order_id differs from the path.',
    new InvalidParameterError('order_id does not match the order in the path'),
  ),
  INVALID_JSON,
  errorCase('ORDER_NOT_NEW', 'The order is no longer NEW, so its payment currency cannot change.', new OrderNotNewError()),
  paymentNotAvailable('The currency is a gateway not enabled for the merchant, or no rate or address is available.'),
  AUTHENTICATION_FAILED,
  errorCase(
    'ORDER_DOES_NOT_EXIST',
    'No such order for this merchant. Contract quirk: HTTP 422 (not 404) with `{error, status: 422}` and no `error_code`.',
    new OrderDoesNotExistError(),
    orderDoesNotExistErrorSchema,
  ),
  errorCase(
    'ORDER_CONFLICT',
    'Concurrent checkouts of the order kept winning; exactly one invoice is current, retry to switch.',
    new ConcurrentUpdateError(),
  ),
  PAYLOAD_TOO_LARGE,
  SERVICE_UNAVAILABLE,
];

const GET_ORDERS_ERRORS: readonly ErrorCase[] = [
  errorCase(
    'PARAMETERS_INVALID',
    'status, limit or offset is out of range or repeated; the message names the parameter.',
    new InvalidParameterError('limit must be <= 50'),
  ),
  AUTHENTICATION_FAILED,
  SERVICE_UNAVAILABLE,
];

/** Cancel, refund and resolve: one state check each, the rest shared. */
const orderActionErrors = (refused: ErrorCase): readonly ErrorCase[] => [
  refused,
  ORDER_ID_MISMATCH,
  INVALID_JSON,
  AUTHENTICATION_FAILED,
  UNKNOWN_ORDER,
  ORDER_CONFLICT,
  PAYLOAD_TOO_LARGE,
  SERVICE_UNAVAILABLE,
];

const SANDBOX_PAY_ERRORS: readonly ErrorCase[] = [
  errorCase('INVOICE_NOT_EXIST', 'The order has not been checked out.', new InvoiceNotExistError()),
  errorCase(
    'PARAMETERS_INVALID',
    "A field is out of range or unknown, or amount has more decimals than the invoice's currency.",
    new InvalidParameterError('amount has more decimals than BTC has'),
  ),
  INVALID_JSON,
  AUTHENTICATION_FAILED,
  SANDBOX_ONLY,
  UNKNOWN_ORDER,
  ORDER_CONFLICT,
  PAYLOAD_TOO_LARGE,
  SERVICE_UNAVAILABLE,
];

const SANDBOX_COMPLETE_REFUND_ERRORS: readonly ErrorCase[] = [
  errorCase('ORDER_REFUND_FAILED', 'The order has no refund pending.', new RefundNotPendingError()),
  errorCase('PARAMETERS_INVALID', 'txid is malformed or a field is unknown.', new InvalidParameterError('Unknown parameter: amount')),
  INVALID_JSON,
  AUTHENTICATION_FAILED,
  SANDBOX_ONLY,
  UNKNOWN_ORDER,
  ORDER_CONFLICT,
  PAYLOAD_TOO_LARGE,
  SERVICE_UNAVAILABLE,
];

/** The body the service answers for an error, exactly as the error mapper writes it. */
function errorBody(error: AppError): unknown {
  return JSON.parse(String(errorResponse(error).body));
}

/** One response per HTTP status; several bodies under one status become a `oneOf`. */
function errorResponses(cases: readonly ErrorCase[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCase[]>();
  for (const item of cases) byStatus.set(item.error.statusCode, [...(byStatus.get(item.error.statusCode) ?? []), item]);
  const responses: Record<string, unknown> = {};
  for (const [status, items] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schemas = [...new Set(items.map((item) => item.schema))].map(ref);
    responses[String(status)] = {
      description: items.map((item) => `- \`${item.name}\`: ${item.when}`).join('\n'),
      content: {
        'application/json': {
          schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas },
          examples: Object.fromEntries(
            items.map((item) => [item.name, { summary: item.error.message, value: errorBody(item.error) }]),
          ),
        },
      },
    };
  }
  return responses;
}

// ---------------------------------------------------------------------------------------------
// The payment page's public endpoints: the example order's merchant, as the page sees it.

const PAGE_MERCHANT = {
  user_id: NEW_ORDER.user_id,
  name: 'Ecards',
  sandbox: true,
  receive_currency: 'USD',
  gateways: [],
  created_at: '2019-04-01T08:00:00.000Z',
};

const payPage = (order: Order, invoice?: Invoice) => payPageView({ order, invoice, merchant: PAGE_MERCHANT });

const PAY_ORDER_RESPONSE_EXAMPLES: Examples = {
  notCheckedOut: { summary: 'Before the buyer picks a currency: invoice is {}', value: payPage(NEW_ORDER) },
  btc: { summary: 'Checked out in BTC', value: payPage(BTC_ORDER, BTC_INVOICE) },
  eos: { summary: 'Checked out in EOS: the account plus a memo', value: payPage(EOS_ORDER, EOS_INVOICE) },
};

const PAGE_ORDER_ID = 'The order_id from the payment_url (`?id=`). Any other value is answered as a missing order.';

const PAGE_PUBLIC = [
  '',
  '**Public:** no `token`; the unguessable order id is the only capability. The answer holds only what the',
  "buyer needs: never the merchant's callback `token` or `callback_url`, `user_id`, `merchant_order_id` or the",
  "invoice's rate and payments. A missing or malformed order id is HTTP 404 `ORDER_NOT_FOUND`.",
].join('\n');

// ---------------------------------------------------------------------------------------------
// Operations, keyed by the function that serves the route (Route.fn).

/** What the document says about the operation behind one route function. */
export interface OperationMeta {
  operationId: string;
  /** Defaults to Orders. */
  tag?: 'Orders' | 'Callbacks' | 'Sandbox' | 'Payment page';
  summary: string;
  description: string;
  /** Description of each `{param}` of the route's path; must name exactly those params. */
  pathParameters?: Record<string, string>;
  /** A query schema whose properties become `in: query` parameters. */
  query?: { readonly properties: Record<string, { readonly description?: string }> };
  requestBody?: { schema: NamedSchema; examples: Examples };
  success: { description: string; schema: NamedSchema; examples: Examples };
  errors: readonly ErrorCase[];
}

/**
 * A merchant's action on one order (cancel, refund, resolve): POST with the optional
 * `order_id` body, answered with the order and its invoice, refused with `refused` when the
 * order is not in the status the action needs.
 */
function orderAction(action: {
  operationId: string;
  summary: string;
  description: readonly string[];
  success: string;
  examples: Examples;
  refused: ErrorCase;
}): OperationMeta {
  return {
    operationId: action.operationId,
    summary: action.summary,
    description: action.description.join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestBody: { schema: orderActionBodySchema, examples: ORDER_ACTION_REQUEST_EXAMPLES },
    success: { description: action.success, schema: getOrderResponseSchema, examples: action.examples },
    errors: orderActionErrors(action.refused),
  };
}

const { limit, offset } = listOrdersQuerySchema.properties;

/** Query parameters documented with the rules their schema enforces. */
const GET_ORDERS_QUERY = {
  properties: {
    status: { ...listOrdersQuerySchema.properties.status, description: 'Only orders in this status. Default: every status.' },
    limit: {
      ...limit,
      description: `Orders per page, ${limit.minimum}..${limit.maximum}. Default ${limit.default}.`,
    },
    offset: {
      ...offset,
      description: `Orders to skip, ${offset.minimum}..${offset.maximum}. Default ${offset.default}. Deeper pages are refused so a request's cost stays bounded.`,
    },
  },
} as const;

const ORDER_ID_PARAMETER = 'The order_id returned by Create Order. Any other value is answered as a missing order.';

/**
 * Operation metadata per route function. A route whose function is missing here fails the
 * build, so a new endpoint cannot ship undocumented.
 */
export const OPERATIONS: Readonly<Record<string, OperationMeta>> = {
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
    requestBody: { schema: createOrderBodySchema, examples: CREATE_REQUEST_EXAMPLES },
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
      '**Contract quirk:** a missing order (or another merchant\'s) is HTTP 404 with',
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
      '(plus `payment_uri` for a QR code, and `memo` for EOS). Checking out again, in the same or another',
      'currency, replaces the invoice with a new one at a fresh address. Invoices run 60 minutes for crypto and',
      '3 hours for gateways.',
      '',
      '**Contract quirk:** an unknown order is HTTP **422** `{"error": "Order does not exist", "status": 422}`,',
      'not 404.',
    ].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestBody: { schema: checkoutBodySchema, examples: CHECKOUT_REQUEST_EXAMPLES },
    success: { description: 'The order and its new invoice.', schema: checkoutOrderResponseSchema, examples: CHECKOUT_RESPONSE_EXAMPLES },
    errors: CHECKOUT_ORDER_ERRORS,
  },
  'list-orders': {
    operationId: 'getOrders',
    summary: 'Get Orders',
    description: [
      "The merchant's orders, **newest first**, without invoices. Page with `limit`",
      `(${limit.minimum}..${limit.maximum}, default ${limit.default}) and \`offset\` (${offset.minimum}..${MAX_OFFSET}, default ${offset.default});`,
      'a page shorter than `limit` is the last one (the answer carries no total). Unknown query parameters are ignored.',
    ].join('\n'),
    query: GET_ORDERS_QUERY,
    success: { description: 'One page of orders.', schema: getOrdersResponseSchema, examples: GET_ORDERS_RESPONSE_EXAMPLES },
    errors: GET_ORDERS_ERRORS,
  },
  'cancel-order': orderAction({
    operationId: 'cancelOrder',
    summary: 'Cancel Order',
    description: [
      'Cancels a NEW order (NEW -> CANCELED); it can no longer be paid. Beyond the contract (MugglePay has it).',
      'The body may repeat `order_id` (MugglePay sends it); the path is what counts.',
    ],
    success: 'The canceled order and its invoice ({} if it was never checked out).',
    examples: { canceled: { summary: 'Canceled before checkout', value: moved(NEW_ORDER, undefined, 'CANCELED', '2019-04-24T17:00:00.000Z') } },
    refused: errorCase('ORDER_CANCELED_FAIILED', 'The order is not NEW (MugglePay\'s code, misspelling included).', new CancelFailedError()),
  }),
  'refund-order': orderAction({
    operationId: 'refundOrder',
    summary: 'Refund Order',
    description: [
      'Starts the refund of a PAID order (PAID -> REFUND_PENDING); it becomes REFUNDED once the refund has been sent.',
      'Beyond the contract (MugglePay has it). The body may repeat `order_id`.',
    ],
    success: 'The order, now REFUND_PENDING, and its invoice.',
    examples: { refundPending: { summary: 'Refund started', value: moved(PAID_ORDER, BTC_INVOICE, 'REFUND_PENDING', '2019-04-25T09:00:00.000Z') } },
    refused: errorCase('ORDER_REFUND_FAILED', 'The order is not PAID.', new RefundFailedError()),
  }),
  'resolve-order': orderAction({
    operationId: 'resolveOrder',
    summary: 'Resolve Order',
    description: [
      'Marks an UNRESOLVED order (underpaid, overpaid or paid late; see `unresolved_reason`) as RESOLVED once the',
      'merchant has dealt with it. The body may repeat `order_id`.',
    ],
    success: 'The order, now RESOLVED, and its invoice.',
    examples: {
      resolved: {
        summary: 'Resolved after an underpayment',
        value: moved({ ...BTC_ORDER, unresolved_reason: 'UNDERPAID' }, BTC_INVOICE, 'RESOLVED', '2019-04-25T09:30:00.000Z'),
      },
    },
    refused: errorCase('ORDER_RESOLVE_FAILED', 'The order is not UNRESOLVED.', new ResolveFailedError()),
  }),
  'sandbox-pay': {
    operationId: 'sandboxPay',
    tag: 'Sandbox',
    summary: 'Simulate a payment (sandbox)',
    description: [
      "Sandbox merchants only: reports a payment of the order's current invoice exactly as a chain watcher would,",
      'and the order moves as a real payment would move it (PAID, PENDING while confirmations are missing, or',
      'UNRESOLVED when the amount or timing is off). Reporting the same `txid` again is idempotent; more',
      'confirmations for it can complete the payment.',
    ].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestBody: {
      schema: sandboxPayBodySchema,
      examples: {
        full: { summary: 'The full amount, enough confirmations', value: {} },
        partial: { summary: 'An underpayment with one confirmation', value: { amount: 0.0001, confirmations: 1, txid: 'sandbox-tx-1' } },
      },
    },
    success: {
      description: 'The order and its invoice after the payment.',
      schema: getOrderResponseSchema,
      examples: { paid: { summary: 'Paid in full', value: moved(PAID_ORDER, BTC_INVOICE, 'PAID', '2019-04-24T17:10:00.000Z') } },
    },
    errors: SANDBOX_PAY_ERRORS,
  },
  'sandbox-complete-refund': {
    operationId: 'sandboxCompleteRefund',
    tag: 'Sandbox',
    summary: 'Simulate a sent refund (sandbox)',
    description: [
      'Sandbox merchants only: reports that the refund of a REFUND_PENDING order was sent (-> REFUNDED).',
      'Reporting the same `txid` again is idempotent.',
    ].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestBody: {
      schema: sandboxRefundBodySchema,
      examples: {
        txid: { summary: 'With the refund transaction', value: { txid: 'sandbox-refund-1' } },
        empty: { summary: 'A generated txid', value: {} },
      },
    },
    success: {
      description: 'The order, now REFUNDED, and its invoice.',
      schema: getOrderResponseSchema,
      examples: { refunded: { summary: 'Refund sent', value: moved(PAID_ORDER, BTC_INVOICE, 'REFUNDED', '2019-04-25T10:00:00.000Z') } },
    },
    errors: SANDBOX_COMPLETE_REFUND_ERRORS,
  },
  'list-callbacks': {
    operationId: 'listCallbacks',
    tag: 'Callbacks',
    summary: 'List the callbacks of an order',
    description: [
      'Every status-change callback of the order, newest first, with its delivery attempts (time, HTTP status,',
      'latency, error) and state. Beyond the contract.',
    ].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    success: {
      description: "The order's callbacks.",
      schema: listCallbacksResponseSchema,
      examples: { delivered: { summary: 'A PAID callback delivered on the second attempt', value: { status: 200, callbacks: [DELIVERED_CALLBACK] } } },
    },
    errors: [AUTHENTICATION_FAILED, UNKNOWN_ORDER, SERVICE_UNAVAILABLE],
  },
  'redeliver-callback': {
    operationId: 'redeliverCallback',
    tag: 'Callbacks',
    summary: 'Send the latest callback again',
    description: [
      "Queues the order's latest status-change callback again, with the same event id (webhook-id) and body,",
      'from a first attempt and with the full retry schedule. The body may repeat `order_id`. Beyond the contract.',
    ].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestBody: { schema: orderActionBodySchema, examples: ORDER_ACTION_REQUEST_EXAMPLES },
    success: {
      description: 'The callback, PENDING again.',
      schema: redeliverCallbackResponseSchema,
      examples: {
        queued: {
          summary: 'Queued again',
          value: { status: 200, callback: { ...DELIVERED_CALLBACK, state: 'PENDING', attempt_count: 0, next_attempt_at: '2019-04-25T09:00:00.000Z', delivered_at: '2019-04-24T16:41:03.120Z' } },
        },
      },
    },
    errors: [
      errorCase('NO_CALLBACK', 'The order has no callback yet (no status change, or no callback_url).', new NoCallbackError()),
      errorCase('CALLBACK_IN_PROGRESS', 'An attempt of this callback is running right now; nothing was changed, ask again in a minute.', new CallbackInProgressError()),
      ORDER_ID_MISMATCH,
      INVALID_JSON,
      AUTHENTICATION_FAILED,
      UNKNOWN_ORDER,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
  'pay-get-order': {
    operationId: 'payGetOrder',
    tag: 'Payment page',
    summary: 'The order, for the payment page',
    description: [
      'What the hosted payment page shows and polls: the order (with the merchant\'s name), its current invoice',
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
      'Checkout Order as the order\'s merchant: prices a NEW order in `pay_currency` and opens a new invoice',
      '(a fresh address), replacing the current one.',
      PAGE_PUBLIC,
    ].join('\n'),
    pathParameters: { order_id: PAGE_ORDER_ID },
    requestBody: { schema: payCheckoutBodySchema, examples: { btc: { summary: 'Pay in BTC', value: { pay_currency: 'BTC' } } } },
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
    errors: [
      errorCase('ORDER_CANCELED_FAIILED', "The order is not NEW (MugglePay's code, misspelling included).", new CancelFailedError()),
      UNKNOWN_ORDER,
      ORDER_CONFLICT,
      SERVICE_UNAVAILABLE,
    ],
  },
  'pay-sandbox-pay': {
    operationId: 'paySandboxPay',
    tag: 'Payment page',
    summary: 'Simulate a payment, from the payment page (sandbox)',
    description: [
      "Sandbox orders only: pays the current invoice in full with enough confirmations, as the merchant's",
      '`POST /v1/sandbox/orders/{order_id}/pay` does with `{}`. The transaction id is the invoice\'s, so repeating',
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


// ---------------------------------------------------------------------------------------------
// Paths, one operation per route.

const SECURITY = [{ ApiToken: [] }];

function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}

function metadataFor(route: Route): OperationMeta {
  const meta = OPERATIONS[route.fn];
  if (!meta) throw new Error(`OpenAPI: no operation metadata for ${route.method} ${route.path} (fn "${route.fn}")`);
  const documented = Object.keys(meta.pathParameters ?? {}).sort().join(',');
  if (pathParameterNames(route.path).sort().join(',') !== documented) {
    throw new Error(`OpenAPI: path parameters of ${route.method} ${route.path} do not match the metadata of "${route.fn}"`);
  }
  return meta;
}

function parameters(route: Route, meta: OperationMeta): unknown[] {
  const inPath = pathParameterNames(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    description: meta.pathParameters?.[name],
    schema: { type: 'string' },
  }));
  const inQuery = Object.entries(meta.query?.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: 'query', required: false, description, schema: rest };
  });
  return route.method === 'POST' ? [...inPath, ...inQuery, IDEMPOTENCY_KEY_PARAMETER] : [...inPath, ...inQuery];
}

/** Every POST takes an Idempotency-Key (shared/http/idempotency.ts). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: [
    'Makes a retry safe: the same key with the same request answers the first answer again (header',
    '`idempotent-replayed: true`) without doing the work twice; with a different request 422',
    'IDEMPOTENCY_KEY_REUSED; while the first is still running 409 IDEMPOTENCY_IN_PROGRESS. Kept 24 hours,',
    'per merchant; answers of 5xx and 409 ORDER_CONFLICT are not kept (a retry runs again).',
  ].join(' '),
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};

function jsonContent(schema: NamedSchema, examples: Examples) {
  return { 'application/json': { schema: ref(schema), examples } };
}

/** Routes that share a function (GET /v1/orders and /v1/orders/) get numbered operation ids. */
function operation(route: Route, meta: OperationMeta, routes: readonly Route[]) {
  const siblings = routes.filter((other) => other.fn === route.fn);
  const index = siblings.indexOf(route);
  const aliases = siblings.filter((other) => other !== route).map((other) => `\`${other.method} ${other.path}\``);
  const params = parameters(route, meta);
  return {
    tags: [meta.tag ?? 'Orders'],
    operationId: index === 0 ? meta.operationId : `${meta.operationId}${index + 1}`,
    summary: meta.summary,
    description: aliases.length ? `${meta.description}\n\nSame operation as ${aliases.join(', ')}.` : meta.description,
    ...(params.length ? { parameters: params } : {}),
    ...(meta.requestBody ? { requestBody: { required: true, content: jsonContent(meta.requestBody.schema, meta.requestBody.examples) } } : {}),
    responses: {
      200: { description: meta.success.description, content: jsonContent(meta.success.schema, meta.success.examples) },
      ...errorResponses(meta.errors),
    },
    // The payment page's endpoints take no token.
    security: route.public ? [] : SECURITY,
  };
}

/**
 * The gateways' notification endpoints: called by Alipay or WeChat Pay, not by merchants. They
 * take the gateway's own format and answer in it; no token, the gateway's signature decides.
 */
const ALIPAY_NOTIFY_DESCRIPTION = [
  'Alipay posts its asynchronous trade notifications here (`notify_url` of every trade this service opens).',
  'The form is verified with Alipay\'s public key (RSA2 over the sorted parameters without `sign` and `sign_type`)',
  'before anything is read: then `TRADE_SUCCESS` / `TRADE_FINISHED` records the trade as the payment of the invoice',
  'its `out_trade_no` names (the trade number is the payment\'s id: replays change nothing). Answers are Alipay\'s:',
  '`success`, or `fail` (Alipay retries).',
].join(' ');

const alipayText = (value: string, description: string) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string', const: value } } },
});

const GATEWAY_OPERATIONS: Readonly<Record<string, { operationId: string; summary: string; description: string; form: boolean }>> = {
  'alipay-notify': { operationId: 'alipayNotify', summary: 'Alipay notification', description: ALIPAY_NOTIFY_DESCRIPTION, form: true },
  'aliglobal-notify': {
    operationId: 'aliglobalNotify',
    summary: 'Alipay Global notification',
    description: `${ALIPAY_NOTIFY_DESCRIPTION} The same as Alipay's, for the ALIGLOBAL application and its key.`,
    form: true,
  },
};

function gatewayOperation(route: Route) {
  const meta = GATEWAY_OPERATIONS[route.fn];
  if (!meta) throw new Error(`OpenAPI: no operation metadata for ${route.method} ${route.path} (fn "${route.fn}")`);
  return {
    tags: ['Gateways'],
    operationId: meta.operationId,
    summary: meta.summary,
    description: meta.description,
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            required: ['app_id', 'out_trade_no', 'trade_no', 'trade_status', 'sign', 'sign_type'],
            properties: {
              app_id: { type: 'string' },
              out_trade_no: { type: 'string', description: 'The order id and the invoice id, 64 hex digits.' },
              trade_no: { type: 'string', description: "Alipay's trade number: the payment's id." },
              trade_status: { type: 'string', enum: ['WAIT_BUYER_PAY', 'TRADE_SUCCESS', 'TRADE_FINISHED', 'TRADE_CLOSED'] },
              total_amount: { type: 'string' },
              gmt_payment: { type: 'string' },
              sign: { type: 'string' },
              sign_type: { type: 'string', const: 'RSA2' },
            },
            additionalProperties: { type: 'string' },
          },
        },
      },
    },
    responses: {
      200: alipayText('success', 'Taken: acted on, or nothing to do (a repeat, an unpaid status). Alipay stops sending it.'),
      400: alipayText('fail', 'Refused with nothing changed: the signature does not verify, or it is for another application.'),
      503: alipayText('fail', 'Not decided now (credentials or the store unavailable): Alipay sends it again later.'),
    },
    security: [],
  };
}

function buildPaths(routes: readonly Route[]): Record<string, Record<string, unknown>> {
  const stale = Object.keys(OPERATIONS).filter((fn) => !routes.some((route) => route.fn === fn));
  if (stale.length) throw new Error(`OpenAPI: metadata for functions without a route: ${stale.join(', ')}`);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = route.gateway ? gatewayOperation(route) : operation(route, metadataFor(route), routes);
  }
  return paths;
}

// ---------------------------------------------------------------------------------------------
// The document.

const API_DESCRIPTION = [
  'Hosted crypto payment orders, compatible with the MugglePay merchant API v1, quirks included.',
  '',
  '**Authentication.** Every call carries the merchant API token in the `token` header. A missing or unknown',
  'token is HTTP 401 `AUTHENTICATION_FAILED`. (The `token` field of Create Order is a different thing: a',
  'merchant-chosen value echoed in callbacks.) The hosted payment page\'s endpoints under `/v1/pay/` take no',
  'token and answer only what a buyer needs.',
  '',
  '**Errors.** Errors are JSON `{"status": <HTTP status>, "error": <message>, "error_code": <CODE>}`, except the',
  "contract's three fixed bodies:",
  '- Get Order, unknown order: HTTP 404 `{"eror": "Order not found", "status": "404"}` (misspelt key, string status);',
  '- Checkout Order, unknown order: HTTP 422 `{"error": "Order does not exist", "status": 422}`;',
  '- Create Order, invalid price: HTTP 400 `{"status": 400, "error": "Price is not valid"}`.',
  '',
  'The order actions beyond the contract (cancel, refund, resolve, sandbox) answer a missing order with the',
  'generic body, HTTP 404 `ORDER_NOT_FOUND`.',
  '',
  'Bad input is always a 4xx naming the field, never a 5xx. Unknown paths are HTTP 404 `NOT_FOUND`;',
  'HTTP 503 `SERVICE_UNAVAILABLE` means nothing was changed and the call may be retried.',
  '',
  '**Success quirk.** Create Order answers HTTP 200 with `"status": 201` in the body.',
].join('\n');

/** The OpenAPI document type, loosely: tests walk it as plain JSON. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: unknown[];
  tags: unknown[];
  security: unknown[];
  paths: Record<string, Record<string, unknown>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
}

/**
 * Builds the OpenAPI 3.1.0 document for `routes` (the service's {@link ROUTES} by default).
 *
 * @throws Error when a route has no {@link OPERATIONS} entry or its path parameters are not
 *   documented, when metadata names a function no route serves, or when a `$ref` names no schema.
 */
export function buildOpenApiDocument(routes: readonly Route[] = ROUTES): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'Crypto Pay Orders API', version: '1.0.0', description: API_DESCRIPTION },
    servers: [
      {
        url: '{base_url}',
        description: 'A deployment of the service',
        variables: {
          base_url: {
            default: 'http://127.0.0.1:3000',
            description: 'Base address without a trailing slash (the default is `npm start` on this machine).',
          },
        },
      },
    ],
    tags: [
      { name: 'Orders', description: 'Payment orders and their invoices.' },
      { name: 'Callbacks', description: 'The delivery log of status-change callbacks, and redelivery.' },
      { name: 'Sandbox', description: 'Sandbox merchants only: simulate what a chain or a refund would report.' },
      { name: 'Payment page', description: 'Public endpoints of the hosted payment page (no token; the order id is the capability).' },
      { name: 'Gateways', description: "Payment gateways' signed notifications (called by Alipay and WeChat Pay, not by merchants)." },
    ],
    security: SECURITY,
    paths: buildPaths(routes),
    components: {
      securitySchemes: {
        ApiToken: {
          type: 'apiKey',
          in: 'header',
          name: 'token',
          description: "The merchant's API token from the merchant portal (`npm run merchant` locally).",
        },
      },
      schemas: buildComponentSchemas(),
    },
  };
}

/** The document as committed: 2-space JSON and a final newline. */
export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
