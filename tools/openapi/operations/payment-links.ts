import { InvalidParameterError, LinkDisabledError, LinkExpiredError, LinkNotFoundError, LinkSoldOutError, ParametersMissingError } from '#shared/domain/errors';
import { linkOrderResponseSchema, linkResponseSchema, listLinksResponseSchema, payLinkResponseSchema } from '#shared/schemas/payment-links';
import { AUTHENTICATION_FAILED, INVALID_JSON, PAYLOAD_TOO_LARGE, SERVICE_UNAVAILABLE, badPage, errorCase, paymentNotAvailable } from '#tools/openapi/errors';
import type { OperationMeta } from '#tools/openapi/operation';

/** Payment links (beyond the contract): the merchant's token routes and the link page's public ones. */

const LINK_ID = "The link_id Create Link answered. Another merchant's link, or any other value, is answered as a missing link.";
const PAGE_LINK_ID = "The link_id in the link's URL (`?link=`).";
const LINK = {
  link_id: '6f1c2a8e-3b1d-4c5e-9f0a-1b2c3d4e5f60',
  url: 'https://pay.example.com/pay/?link=6f1c2a8e-3b1d-4c5e-9f0a-1b2c3d4e5f60',
  title: 'Club membership 2027',
  description: 'One year, all sessions',
  price_currency: 'USD',
  price_amount: '25',
  min_amount: null,
  max_amount: null,
  currencies: ['BTC', 'USDT_TRC20'],
  quantity: 40,
  units_left: 37,
  expires_at: '2027-01-31T23:59:59.000Z',
  success_url: 'https://club.example/thanks',
  callback_url: '',
  ask_email: true,
  enabled: true,
  state: 'OPEN',
  order_count: 5,
  created_at: '2026-11-27T10:00:00.000Z',
  updated_at: '2026-11-27T10:00:00.000Z',
};
const LINK_NOT_FOUND = errorCase('LINK_NOT_FOUND', 'No such link of this merchant.', new LinkNotFoundError());
const BAD_FIELD = errorCase('PARAMETERS_INVALID', 'A field is unknown, malformed or out of its bounds (the message names it).', new InvalidParameterError('min_amount must not be above max_amount'));
const MISSING_FIELD = errorCase('PARAMETERS_MISSING', 'A required field is missing.', new ParametersMissingError('title'));
const CREATE_BODY = {
  title: 'Club membership 2027',
  description: 'One year, all sessions',
  price_amount: '25',
  price_currency: 'USD',
  currencies: ['BTC', 'USDT_TRC20'],
  quantity: 40,
  expires_at: '2027-01-31T23:59:59Z',
  success_url: 'https://club.example/thanks',
  ask_email: true,
};
const PUBLIC = "No token: the link id is the page's only capability. Throttled per client address as the payment page's routes are (429 API_LIMIT_EXCEEDED with Retry-After).";

export const PAYMENT_LINK_OPERATIONS: Readonly<Record<string, OperationMeta>> = {
  'create-link': {
    operationId: 'createLink',
    tag: 'Payment links',
    summary: 'Create a payment link',
    description: [
      "A reusable page on the payment site (the answer's `url`; share it or its QR code): a fixed `price_amount`, or the buyer",
      'chooses between `min_amount` and `max_amount`. Each buyer who picks a currency there gets an ordinary order',
      '(`merchant_order_id` `link_<link_id>_<visit id>`), checked out at once; callbacks, Get Order, refunds and the portal',
      "treat it like any other. With `quantity`, a buyer's order holds a unit until it is paid (sold) or expires or is",
      'canceled unpaid (the unit comes back). HTTP 201. Beyond the contract.',
    ].join('\n'),
    requestExamples: {
      fixed: { summary: "A fixed price, 40 places, an expiry, the buyer's email", value: CREATE_BODY },
      chosen: { summary: 'The buyer chooses 5 to 500 USD', value: { title: 'Donation', min_amount: '5', max_amount: '500', price_currency: 'USD' } },
    },
    success: {
      status: 201,
      description: 'The new link.',
      schema: linkResponseSchema,
      examples: { created: { summary: 'Created', value: { status: 201, link: { ...LINK, order_count: 0, units_left: 40 } } } },
    },
    errors: [MISSING_FIELD, BAD_FIELD, INVALID_JSON, AUTHENTICATION_FAILED, PAYLOAD_TOO_LARGE, SERVICE_UNAVAILABLE],
  },
  'list-links': {
    operationId: 'listLinks',
    tag: 'Payment links',
    summary: 'List payment links',
    description: "The merchant's payment links, newest first, a page by cursor. Beyond the contract.",
    success: { description: 'A page of links.', schema: listLinksResponseSchema, examples: { page: { summary: 'One link', value: { status: 200, links: [LINK], next_cursor: null } } } },
    errors: [badPage('limit or cursor'), AUTHENTICATION_FAILED, SERVICE_UNAVAILABLE],
  },
  'get-link': {
    operationId: 'getLink',
    tag: 'Payment links',
    summary: 'Get a payment link',
    description: 'One payment link with its state and the units left. Beyond the contract.',
    pathParameters: { link_id: LINK_ID },
    success: { description: 'The link.', schema: linkResponseSchema, examples: { link: { summary: 'A link', value: { status: 200, link: LINK } } } },
    errors: [LINK_NOT_FOUND, AUTHENTICATION_FAILED, SERVICE_UNAVAILABLE],
  },
  'update-link': {
    operationId: 'updateLink',
    tag: 'Payment links',
    summary: 'Change, disable or enable a payment link',
    description: [
      '`{"enabled": false}` disables the link (its page says so, no new order); `true` enables it again. The title,',
      'description, currencies, quantity (not below the units sold or held), expiry, URLs and `ask_email` may change;',
      '`remove` takes away the currencies, quantity or expiry. The price cannot change (orders were made at it). Beyond the contract.',
    ].join('\n'),
    pathParameters: { link_id: LINK_ID },
    requestExamples: { disable: { summary: 'Disable', value: { enabled: false } }, more: { summary: 'More places, no expiry', value: { quantity: 60, remove: ['expires_at'] } } },
    success: {
      description: 'The link as it is now.',
      schema: linkResponseSchema,
      examples: { disabled: { summary: 'Disabled', value: { status: 200, link: { ...LINK, enabled: false, state: 'DISABLED' } } } },
    },
    errors: [BAD_FIELD, INVALID_JSON, LINK_NOT_FOUND, AUTHENTICATION_FAILED, PAYLOAD_TOO_LARGE, SERVICE_UNAVAILABLE],
  },
  'pay-get-link': {
    operationId: 'payGetLink',
    tag: 'Payment page',
    summary: 'The payment link, for its page',
    description: ['What the link page shows: the link, its state and the currencies the buyer may pick (none unless OPEN). Opening a link makes nothing: no order, no address.', PUBLIC].join('\n'),
    pathParameters: { link_id: PAGE_LINK_ID },
    success: {
      description: 'The link as its page shows it.',
      schema: payLinkResponseSchema,
      examples: {
        open: {
          summary: 'Open',
          value: {
            status: 200,
            link: {
              link_id: LINK.link_id,
              title: LINK.title,
              description: LINK.description,
              price_currency: 'USD',
              price_amount: '25',
              min_amount: null,
              max_amount: null,
              units_left: 37,
              expires_at: LINK.expires_at,
              ask_email: true,
              state: 'OPEN',
              merchant_name: 'Chess Club',
              sandbox: false,
            },
            currencies: ['BTC', 'USDT_TRC20'],
          },
        },
      },
    },
    errors: [LINK_NOT_FOUND, SERVICE_UNAVAILABLE],
  },
  'pay-create-link-order': {
    operationId: 'payCreateLinkOrder',
    tag: 'Payment page',
    summary: "The buyer's order from a payment link",
    description: [
      "The buyer picked a currency (and the amount, and an email when asked): an ordinary order of the link's merchant,",
      'checked out in `pay_currency`; the page continues on its `payment_url`. On a link with a quantity the order holds a',
      'unit (409 LINK_SOLD_OUT when none is left, after giving back those of expired or canceled orders). HTTP 201.',
      PUBLIC,
    ].join('\n'),
    pathParameters: { link_id: PAGE_LINK_ID },
    requestExamples: { btc: { summary: 'Pay in BTC', value: { pay_currency: 'BTC', email: 'buyer@example.com' } } },
    success: {
      status: 201,
      description: 'The new order and its payment page.',
      schema: linkOrderResponseSchema,
      examples: {
        created: { summary: 'Created', value: { status: 201, order_id: '94be2b2a-2905-8857-b701-b04e57e84593', payment_url: 'https://pay.example.com/pay/?id=94be2b2a-2905-8857-b701-b04e57e84593' } },
      },
    },
    errors: [
      errorCase('PARAMETERS_MISSING', 'pay_currency, the amount (the buyer chooses) or the email (the link asks) is missing.', new ParametersMissingError('amount')),
      errorCase('PARAMETERS_INVALID', "A field is unknown or malformed, or the amount is out of the link's bounds.", new InvalidParameterError('amount must be between 5 and 500 USD')),
      INVALID_JSON,
      paymentNotAvailable('The link does not offer this currency now.'),
      errorCase('LINK_DISABLED', 'The merchant disabled the link.', new LinkDisabledError()),
      errorCase('LINK_EXPIRED', 'The link has expired.', new LinkExpiredError()),
      errorCase('LINK_SOLD_OUT', 'Every unit is sold or held by a checkout in progress.', new LinkSoldOutError()),
      LINK_NOT_FOUND,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
};
