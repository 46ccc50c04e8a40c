import type { KeyObject } from 'node:crypto';
import { MAX_BODY_FIELDS } from '#shared/domain/limits';
import { fromMinorUnits, toMinorUnits, type Decimal } from '#shared/domain/money';
import {
  GatewayCallError,
  type GatewayEvent,
  type GatewayNotification,
  type GatewayPayment,
  type GatewayPaymentRequest,
  type GatewayRefund,
  type GatewayTrade,
  invoiceIdOfTradeNumber,
  type LiveGateway,
  NotificationRejectedError,
  type TradeReference,
  tradeNumberOf,
} from '#shared/payments/gateways/port';
import { authorization, decryptResource, responseMessage, rfc3339China, verifySignature } from '#shared/payments/gateways/wechat-signing';

/** One WeChat Pay merchant (API v3). */
export interface WechatSettings {
  mchid: string;
  appid: string;
  /** Serial number of the merchant's API certificate (names our key in every request). */
  serialNo: string;
  /** The merchant's API private key. */
  privateKey: KeyObject;
  /** The API v3 key (32 characters): decrypts notification resources. */
  apiV3Key: string;
  /** WeChat Pay's keys by serial (platform certificates, or the WeChat Pay public key and its id). */
  platformKeys: ReadonlyMap<string, KeyObject>;
  /** https://api.mch.weixin.qq.com */
  baseUrl: string;
  notifyUrl: string;
  /** Per call, default 8000 ms. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Notifications older or newer than this are refused (WeChat Pay's own guidance: 5 minutes). */
const CLOCK_WINDOW_SECONDS = 300;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A fen amount (integer) from WeChat's JSON. */
function fen(value: unknown): Decimal | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? fromMinorUnits(BigInt(value), 2) : undefined;
}

function parseTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * WeChat Pay API v3 with requests signed and answers, notifications and resources checked
 * with node:crypto (the maintained Node libraries, wechatpay-node-v3 and wechatpay-axios-plugin,
 * bring superagent or axios for a few lines of RSA and AES-GCM; the tests run against a server
 * built on wechatpay-axios-plugin's own crypto helpers, tests/support/wechat-server.ts). Our `out_trade_no` is the invoice id (32 hex digits, WeChat's
 * limit is 32); `attach` carries the order id; a refund's `out_refund_no` is both ids (64).
 */
export class WechatGateway implements LiveGateway {
  readonly code = 'WECHAT';

  constructor(private readonly settings: WechatSettings) {}

  /** PC: Native pay's `code_url` (shown as a QR code); phone: H5 pay's `h5_url`. */
  async createPayment(request: GatewayPaymentRequest): Promise<GatewayPayment> {
    if (!request.orderId) throw new GatewayCallError('a WeChat Pay trade needs the order id');
    const now = request.now ?? new Date();
    if (request.expiresAt.getTime() - now.getTime() < 60_000) throw new GatewayCallError('the invoice expires in less than a minute');
    // H5 pay checks the buyer's IP address: without it the payment cannot be made.
    if (request.mobile && !request.clientIp) throw new GatewayCallError("WeChat Pay H5 needs the buyer's IP address");
    const body = {
      appid: this.settings.appid,
      mchid: this.settings.mchid,
      description: request.description.slice(0, 127) || 'Order',
      out_trade_no: tradeNumberOf(request.invoiceId),
      // Whole seconds, never after the invoice's expiry.
      time_expire: rfc3339China(new Date(Math.floor(request.expiresAt.getTime() / 1000) * 1000)),
      attach: request.orderId,
      notify_url: this.settings.notifyUrl,
      amount: { total: Number(toMinorUnits(request.amount, 2)), currency: 'CNY' },
      ...(request.mobile ? { scene_info: { payer_client_ip: request.clientIp, h5_info: { type: 'Wap' } } } : {}),
    };
    const answer = await this.call('POST', `/v3/pay/transactions/${request.mobile ? 'h5' : 'native'}`, body);
    const url = request.mobile ? answer.body.h5_url : answer.body.code_url;
    if (answer.status !== 200 || typeof url !== 'string' || !/^(weixin|https):\/\//.test(url)) throw refusal('create', answer);
    return { url };
  }

  async queryPayment(reference: TradeReference): Promise<GatewayTrade | undefined> {
    const path = `/v3/pay/transactions/out-trade-no/${tradeNumberOf(reference.invoiceId)}?mchid=${encodeURIComponent(this.settings.mchid)}`;
    const answer = await this.call('GET', path);
    if (answer.status === 404 && answer.body.code === 'ORDER_NOT_EXIST') return undefined;
    if (answer.status !== 200) throw refusal('query', answer);
    if (answer.body.out_trade_no !== tradeNumberOf(reference.invoiceId)) throw new GatewayCallError('WeChat Pay answered for another trade');
    return this.trade(reference, answer.body);
  }

  /** A full refund; `out_refund_no` is fixed per invoice, so asking again is the same refund. */
  async refund(request: TradeReference & { tradeNo: string; amount: Decimal }): Promise<GatewayRefund> {
    const refundId = refundNumber(request);
    const total = Number(toMinorUnits(request.amount, 2));
    const answer = await this.call('POST', '/v3/refund/domestic/refunds', {
      out_trade_no: tradeNumberOf(request.invoiceId),
      out_refund_no: refundId,
      notify_url: this.settings.notifyUrl,
      amount: { refund: total, total, currency: 'CNY' },
    });
    if (answer.status !== 200) throw refusal('refund', answer);
    const status = answer.body.status;
    if (status === 'SUCCESS') return { refundId, confirmed: true };
    if (status === 'PROCESSING') return { refundId, confirmed: false };
    throw refusal('refund', answer);
  }

  /**
   * A notification: its timestamp must be within five minutes, its signature WeChat Pay's
   * (the key its serial names), its resource must decrypt under our API v3 key and name our
   * merchant; only then is it read.
   */
  readNotification(notification: GatewayNotification, now: Date): GatewayEvent {
    const { headers, body } = notification;
    const timestamp = headers['wechatpay-timestamp'] ?? '';
    const nonce = headers['wechatpay-nonce'] ?? '';
    const signature = headers['wechatpay-signature'] ?? '';
    const serial = headers['wechatpay-serial'] ?? '';
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now.getTime() / 1000 - Number(timestamp)) > CLOCK_WINDOW_SECONDS) {
      throw new NotificationRejectedError('timestamp missing or outside the five-minute window');
    }
    const key = this.platformKey(serial);
    if (!key) throw new NotificationRejectedError('signed with an unknown platform key');
    if (!verifySignature(responseMessage(timestamp, nonce, body), signature, key)) throw new NotificationRejectedError('signature does not verify');
    let envelope: Record<string, any>;
    try {
      envelope = JSON.parse(body) as Record<string, any>;
    } catch {
      throw new NotificationRejectedError('not JSON');
    }
    const resource = envelope?.resource;
    if (Object.keys(envelope ?? {}).length > MAX_BODY_FIELDS || Object.keys(resource ?? {}).length > MAX_BODY_FIELDS) {
      throw new NotificationRejectedError(`more than ${MAX_BODY_FIELDS} fields`);
    }
    if (!resource || resource.algorithm !== 'AEAD_AES_256_GCM' || typeof resource.ciphertext !== 'string' || typeof resource.nonce !== 'string') {
      throw new NotificationRejectedError('no AEAD_AES_256_GCM resource');
    }
    const plain = decryptResource(resource, this.settings.apiV3Key);
    if (plain === undefined) throw new NotificationRejectedError('resource does not decrypt under the API v3 key');
    let parsed: unknown;
    try {
      parsed = JSON.parse(plain);
    } catch {
      throw new NotificationRejectedError('resource is not JSON');
    }
    // Signed and decrypted, yet `null`, a number or a list: nothing of ours, refused like any bad resource.
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new NotificationRejectedError('resource is not a JSON object');
    const data = parsed as Record<string, unknown>;
    if (data.mchid !== this.settings.mchid) throw new NotificationRejectedError('for another merchant');
    const eventType = String(envelope.event_type);
    if (eventType.startsWith('REFUND.')) {
      const reference = referenceOfRefund(data.out_refund_no);
      if (!reference) return { kind: 'ignored', reason: 'not one of our refund numbers' };
      return { kind: 'refund', reference, refundId: String(data.out_refund_no), succeeded: eventType === 'REFUND.SUCCESS' && data.refund_status === 'SUCCESS' };
    }
    if (eventType !== 'TRANSACTION.SUCCESS') return { kind: 'ignored', reason: `event ${eventType}` };
    const invoiceId = typeof data.out_trade_no === 'string' ? invoiceIdOfTradeNumber(data.out_trade_no) : undefined;
    const orderId = typeof data.attach === 'string' ? invoiceIdOfTradeNumber(data.attach.replace(/-/g, '')) : undefined;
    if (!invoiceId || !orderId) return { kind: 'ignored', reason: 'not one of our trade numbers' };
    const trade = this.trade({ orderId, invoiceId }, data);
    return trade.state === 'PAID' ? { kind: 'trade', trade } : { kind: 'ignored', reason: `trade is ${String(data.trade_state)}` };
  }

  private trade(reference: TradeReference, data: Record<string, any>): GatewayTrade {
    const tradeNo = data.transaction_id;
    const state = String(data.trade_state);
    if (state === 'SUCCESS' || state === 'REFUND') {
      const amount = fen(data.amount?.total);
      if (typeof tradeNo !== 'string' || !/^[0-9A-Za-z_]{1,64}$/.test(tradeNo) || !amount) {
        throw new GatewayCallError('WeChat Pay named no usable transaction_id or amount');
      }
      if (data.amount?.currency !== undefined && data.amount.currency !== 'CNY') throw new GatewayCallError('WeChat Pay trade not in CNY');
      return { ...reference, tradeNo, state: 'PAID', amount, paidAt: parseTime(data.success_time) };
    }
    const closed = state === 'CLOSED' || state === 'REVOKED' || state === 'PAYERROR';
    return { ...reference, tradeNo: typeof tradeNo === 'string' ? tradeNo : '', state: closed ? 'CLOSED' : 'WAITING' };
  }

  private platformKey(serial: string): KeyObject | undefined {
    for (const [known, key] of this.settings.platformKeys) if (known.toUpperCase() === serial.toUpperCase()) return key;
    return undefined;
  }

  /** One signed call; the answer's signature (WeChat Pay's platform key) is checked before it is believed. */
  private async call(method: 'GET' | 'POST', pathWithQuery: string, payload?: unknown): Promise<Answer> {
    const body = payload === undefined ? '' : JSON.stringify(payload);
    const url = new URL(pathWithQuery, this.settings.baseUrl);
    let response: Response;
    let text: string;
    try {
      response = await (this.settings.fetch ?? fetch)(url, {
        method,
        headers: {
          accept: 'application/json',
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          authorization: authorization({
            mchid: this.settings.mchid,
            serialNo: this.settings.serialNo,
            key: this.settings.privateKey,
            method,
            pathWithQuery: `${url.pathname}${url.search}`,
            body,
          }),
        },
        body: payload === undefined ? undefined : body,
        signal: AbortSignal.timeout(this.settings.timeoutMs ?? 8000),
        redirect: 'error',
      });
      text = await response.text();
    } catch (error) {
      throw new GatewayCallError(`${method} ${url.pathname}: ${(error as Error).message}`, { cause: error });
    }
    const key = this.platformKey(response.headers.get('wechatpay-serial') ?? '');
    const signed =
      key !== undefined &&
      verifySignature(responseMessage(response.headers.get('wechatpay-timestamp') ?? '', response.headers.get('wechatpay-nonce') ?? '', text), response.headers.get('wechatpay-signature') ?? '', key);
    if (!signed) throw new GatewayCallError(`${method} ${url.pathname}: the answer's signature does not verify (HTTP ${response.status})`);
    let parsed: unknown = {};
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new GatewayCallError(`${method} ${url.pathname}: the answer is not JSON`, { cause: error });
      }
    }
    return { status: response.status, body: (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown> };
  }
}

/** `out_refund_no`: the order id and the invoice id, 64 hex digits (WeChat allows 64). */
export const refundNumber = (reference: TradeReference): string => `${tradeNumberOf(reference.orderId)}${tradeNumberOf(reference.invoiceId)}`;

function referenceOfRefund(value: unknown): TradeReference | undefined {
  if (typeof value !== 'string' || value.length !== 64) return undefined;
  const orderId = invoiceIdOfTradeNumber(value.slice(0, 32));
  const invoiceId = invoiceIdOfTradeNumber(value.slice(32));
  return orderId && invoiceId ? { orderId, invoiceId } : undefined;
}

function refusal(what: string, answer: Answer): GatewayCallError {
  return new GatewayCallError(`WeChat Pay ${what}: HTTP ${answer.status} ${String(answer.body.code ?? '')} ${String(answer.body.message ?? '')}`.trim());
}
