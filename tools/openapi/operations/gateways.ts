import { MAX_BODY_BYTES, MAX_BODY_FIELDS } from '#shared/domain/limits';
import type { Route } from '#shared/http/routes';

/**
 * The gateways' notification endpoints: called by Alipay or WeChat Pay, not by merchants. They
 * take the gateway's own format and answer in it; no token, the gateway's signature decides.
 */
const ALIPAY_NOTIFY_DESCRIPTION = [
  'Alipay posts its asynchronous trade notifications here (`notify_url` of every trade this service opens).',
  "The form is verified with Alipay's public key (RSA2 over the sorted parameters without `sign` and `sign_type`)",
  'before anything is read: then `TRADE_SUCCESS` / `TRADE_FINISHED` records the trade as the payment of the invoice',
  "its `out_trade_no` names (the trade number is the payment's id: replays change nothing). Answers are Alipay's:",
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

/** The OpenAPI operation of a gateway's notification route (form or JSON in, the gateway's answers out). */
export const wechatFail = (description: string) => ({
  description,
  content: {
    'application/json': {
      schema: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string', const: 'FAIL' }, message: { type: 'string' } } },
    },
  },
});

/** WeChat Pay's notification: a signed JSON envelope whose `resource` is AEAD_AES_256_GCM ciphertext. */
function wechatOperation() {
  return {
    tags: ['Gateways'],
    operationId: 'wechatNotify',
    summary: 'WeChat Pay notification',
    description: [
      'WeChat Pay posts payment (`TRANSACTION.SUCCESS`) and refund (`REFUND.SUCCESS`) notifications here.',
      'The `Wechatpay-Signature` over `Wechatpay-Timestamp`, `Wechatpay-Nonce` and the body is verified with the',
      'platform key `Wechatpay-Serial` names, the timestamp must be within five minutes, and `resource` must decrypt',
      '(AEAD_AES_256_GCM, the API v3 key) and name this merchant, before anything is read. A paid trade is recorded',
      "under its `transaction_id` (replays change nothing); a refund's success completes the order's refund.",
    ].join(' '),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['id', 'event_type', 'resource'],
            maxProperties: MAX_BODY_FIELDS,
            properties: {
              id: { type: 'string', maxLength: MAX_BODY_BYTES },
              event_type: { type: 'string', maxLength: MAX_BODY_BYTES },
              resource_type: { type: 'string', maxLength: MAX_BODY_BYTES },
              resource: {
                type: 'object',
                required: ['algorithm', 'ciphertext', 'nonce'],
                maxProperties: MAX_BODY_FIELDS,
                properties: {
                  algorithm: { type: 'string', const: 'AEAD_AES_256_GCM' },
                  ciphertext: { type: 'string', maxLength: MAX_BODY_BYTES },
                  nonce: { type: 'string', maxLength: MAX_BODY_BYTES },
                  associated_data: { type: 'string', maxLength: MAX_BODY_BYTES },
                },
              },
            },
          },
        },
      },
    },
    responses: {
      204: { description: 'Taken: acted on, or nothing to do. WeChat Pay stops sending it.' },
      400: wechatFail('Refused with nothing changed: signature, timestamp, key or merchant wrong.'),
      503: wechatFail('Not decided now: WeChat Pay sends it again later.'),
    },
    security: [],
  };
}

/** The OpenAPI operation of a gateway notification route (form or JSON in, the gateway's answers out). */
export function gatewayOperation(route: Route) {
  if (route.fn === 'wechat-notify') return wechatOperation();
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
