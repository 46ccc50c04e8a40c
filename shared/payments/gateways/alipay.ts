import type { KeyObject } from 'node:crypto';
import { formatFixed, parseDecimal, type Decimal } from '#shared/domain/money';
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
import { chinaTime, parseChinaTime, rsa2Verify, signRequest, topLevelJsonValue, verifyNotification } from '#shared/payments/gateways/alipay-signing';
import { readFormBody } from '#shared/payments/gateways/form';

/** One Alipay OpenAPI merchant application (ALIPAY, or ALIGLOBAL against the global gateway). */
export interface AlipaySettings {
  /** ALIPAY or ALIGLOBAL. */
  code: string;
  appId: string;
  /** The application's RSA private key (signs our requests). */
  privateKey: KeyObject;
  /** Alipay's public key (verifies answers and notifications). */
  alipayPublicKey: KeyObject;
  /** The OpenAPI gateway, e.g. https://openapi.alipay.com/gateway.do. */
  gatewayUrl: string;
  /** Where Alipay posts asynchronous notifications (our public endpoint). */
  notifyUrl: string;
  /** Where the buyer's phone returns after paying on Alipay's mobile page (the order's payment page). */
  returnUrl: (orderId: string) => string;
  /** ALIGLOBAL: the currency Alipay settles the merchant in (`settle_currency`); prices stay in CNY. */
  settleCurrency?: string;
  /** When set, notifications must name this seller (Alipay's 2088... user id). */
  sellerId?: string;
  /** Per call, default 8000 ms. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Alipay's answer codes: 10000 is success; 40004 a business refusal (sub_code says which). */
const SUCCESS = '10000';

type AlipayAnswer = Record<string, unknown> & { code?: string; sub_code?: string; sub_msg?: string; msg?: string };

const AMOUNT = /^\d{1,12}(\.\d{1,2})?$/;

/**
 * Alipay OpenAPI (alipay.trade.*) with RSA2 signatures made and checked with node:crypto
 * (the official alipay-sdk bundles its own HTTP stack, about 1 MB minified; the tests check
 * these signatures against it). Our trade number (`out_trade_no`) is the order id and the
 * invoice id, 64 hex digits, so a verified notification names its invoice by itself.
 */
export class AlipayGateway implements LiveGateway {
  readonly code: string;

  constructor(private readonly settings: AlipaySettings) {
    this.code = settings.code;
  }

  /** PC: alipay.trade.precreate's QR code link; phone: a signed alipay.trade.wap.pay link that opens Alipay. */
  async createPayment(request: GatewayPaymentRequest): Promise<GatewayPayment> {
    if (!request.orderId) throw new GatewayCallError('an Alipay trade needs the order id');
    const now = request.now ?? new Date();
    const minutes = Math.floor((request.expiresAt.getTime() - now.getTime()) / 60_000);
    if (minutes < 1) throw new GatewayCallError('the invoice expires in less than a minute');
    const biz: Record<string, string> = {
      out_trade_no: outTradeNo({ orderId: request.orderId, invoiceId: request.invoiceId }),
      total_amount: formatFixed(request.amount, 2),
      subject: request.description.slice(0, 128) || 'Order',
      // Alipay closes the trade before our invoice expires (whole minutes, rounded down).
      timeout_express: `${minutes}m`,
      ...(this.settings.settleCurrency ? { settle_currency: this.settings.settleCurrency } : {}),
    };
    if (request.mobile) {
      const params = this.signed('alipay.trade.wap.pay', { ...biz, product_code: 'QUICK_WAP_WAY', quit_url: this.settings.returnUrl(request.orderId) }, now, {
        return_url: this.settings.returnUrl(request.orderId),
      });
      const url = new URL(this.settings.gatewayUrl);
      for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
      return { url: url.toString() };
    }
    const answer = await this.call('alipay.trade.precreate', biz, now);
    if (answer.code !== SUCCESS || typeof answer.qr_code !== 'string' || !/^https:\/\//.test(answer.qr_code)) {
      throw refusal('alipay.trade.precreate', answer);
    }
    return { url: answer.qr_code };
  }

  async queryPayment(reference: TradeReference): Promise<GatewayTrade | undefined> {
    const answer = await this.call('alipay.trade.query', { out_trade_no: outTradeNo(reference) }, new Date());
    if (answer.code !== SUCCESS) {
      if (answer.sub_code === 'ACQ.TRADE_NOT_EXIST') return undefined;
      throw refusal('alipay.trade.query', answer);
    }
    if (answer.out_trade_no !== undefined && answer.out_trade_no !== outTradeNo(reference)) {
      throw new GatewayCallError('alipay.trade.query answered for another trade');
    }
    return this.trade(reference, {
      trade_no: answer.trade_no,
      trade_status: answer.trade_status,
      total_amount: answer.total_amount,
      paid_at: answer.send_pay_date,
    });
  }

  /**
   * alipay.trade.refund for the whole amount, under one request number per invoice (a retry is
   * the same refund). Alipay confirms with fund_change = Y; otherwise the refund query decides.
   */
  async refund(request: TradeReference & { tradeNo: string; amount: Decimal }): Promise<GatewayRefund> {
    const now = new Date();
    const refundId = `R${tradeNumberOf(request.invoiceId)}`;
    const trade = { out_trade_no: outTradeNo(request), out_request_no: refundId };
    const answer = await this.call('alipay.trade.refund', { ...trade, refund_amount: formatFixed(request.amount, 2) }, now);
    if (answer.code !== SUCCESS) throw refusal('alipay.trade.refund', answer);
    if (answer.fund_change === 'Y') return { refundId, confirmed: true };
    const query = await this.call('alipay.trade.fastpay.refund.query', trade, now);
    if (query.code !== SUCCESS) throw refusal('alipay.trade.fastpay.refund.query', query);
    // The query answers for a refund that exists; REFUND_SUCCESS (or, in older answers, no status) is done.
    const done = query.refund_status === 'REFUND_SUCCESS' || (query.refund_status === undefined && typeof query.refund_amount === 'string');
    return { refundId, confirmed: done };
  }

  /**
   * An asynchronous notification (a form POST). The RSA2 signature of Alipay's key is checked
   * before anything is read from it; then it must be for our application (and seller).
   */
  readNotification(notification: GatewayNotification): GatewayEvent {
    const params = readFormBody(notification.body);
    if (!params) throw new NotificationRejectedError('not a form body');
    if (!verifyNotification(params, this.settings.alipayPublicKey)) throw new NotificationRejectedError('signature does not verify');
    if (params.app_id !== this.settings.appId) throw new NotificationRejectedError('for another application');
    if (this.settings.sellerId && params.seller_id !== undefined && params.seller_id !== this.settings.sellerId) {
      throw new NotificationRejectedError('for another seller');
    }
    const reference = referenceOf(params.out_trade_no);
    if (!reference) return { kind: 'ignored', reason: 'not one of our trade numbers' };
    // A refund's notification carries the refund's request number (out_biz_no).
    if (params.out_biz_no && params.refund_fee) {
      return { kind: 'refund', reference, refundId: params.out_biz_no, succeeded: true };
    }
    const trade = this.trade(reference, {
      trade_no: params.trade_no,
      trade_status: params.trade_status,
      total_amount: params.total_amount,
      paid_at: params.gmt_payment,
    });
    if (trade.state !== 'PAID') return { kind: 'ignored', reason: `trade is ${params.trade_status}` };
    return { kind: 'trade', trade };
  }

  private trade(reference: TradeReference, fields: { trade_no: unknown; trade_status: unknown; total_amount: unknown; paid_at: unknown }): GatewayTrade {
    if (typeof fields.trade_no !== 'string' || !/^[0-9A-Za-z_]{1,64}$/.test(fields.trade_no)) {
      throw new GatewayCallError('Alipay named no usable trade_no');
    }
    const status = String(fields.trade_status);
    if (status === 'TRADE_SUCCESS' || status === 'TRADE_FINISHED') {
      if (typeof fields.total_amount !== 'string' || !AMOUNT.test(fields.total_amount)) {
        throw new GatewayCallError('Alipay named no usable total_amount');
      }
      return {
        ...reference,
        tradeNo: fields.trade_no,
        state: 'PAID',
        amount: parseDecimal(fields.total_amount),
        paidAt: parseChinaTime(typeof fields.paid_at === 'string' ? fields.paid_at : undefined),
      };
    }
    return { ...reference, tradeNo: fields.trade_no, state: status === 'TRADE_CLOSED' ? 'CLOSED' : 'WAITING' };
  }

  /** The common parameters with `biz_content`, signed. */
  private signed(method: string, biz: Record<string, string>, now: Date, extra: Record<string, string> = {}): Record<string, string> {
    return signRequest(
      {
        app_id: this.settings.appId,
        method,
        format: 'JSON',
        charset: 'utf-8',
        sign_type: 'RSA2',
        timestamp: chinaTime(now),
        version: '1.0',
        notify_url: this.settings.notifyUrl,
        ...extra,
        biz_content: JSON.stringify(biz),
      },
      this.settings.privateKey,
    );
  }

  /** One signed call; the answer's own signature is checked before it is believed. */
  private async call(method: string, biz: Record<string, string>, now: Date): Promise<AlipayAnswer> {
    const params = this.signed(method, biz, now);
    let text: string;
    try {
      const response = await (this.settings.fetch ?? fetch)(this.settings.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8', accept: 'application/json' },
        body: new URLSearchParams(params).toString(),
        signal: AbortSignal.timeout(this.settings.timeoutMs ?? 8000),
        redirect: 'error',
      });
      text = await response.text();
      if (response.status !== 200) throw new GatewayCallError(`${method}: HTTP ${response.status}`);
    } catch (error) {
      if (error instanceof GatewayCallError) throw error;
      throw new GatewayCallError(`${method}: ${(error as Error).message}`, { cause: error });
    }
    const responseKey = `${method.replace(/\./g, '_')}_response`;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      throw new GatewayCallError(`${method}: the answer is not JSON`, { cause: error });
    }
    const key = parsed[responseKey] !== undefined ? responseKey : 'error_response';
    const raw = topLevelJsonValue(text, key);
    const answer = parsed[key];
    if (raw === undefined || typeof answer !== 'object' || answer === null) throw new GatewayCallError(`${method}: no ${responseKey}`);
    const sign = parsed.sign;
    const signedByAlipay = typeof sign === 'string' && rsa2Verify(raw, sign, this.settings.alipayPublicKey);
    // Alipay signs every answer it makes for a correctly signed request: an unsigned or
    // badly signed answer is not Alipay's, and nothing is decided on it.
    if (!signedByAlipay) throw new GatewayCallError(`${method}: the answer's signature does not verify`);
    return answer as AlipayAnswer;
  }
}

/** `out_trade_no`: the order id and the invoice id, 64 hex digits (Alipay allows 64 letters, digits and _). */
export const outTradeNo = (reference: TradeReference): string => `${tradeNumberOf(reference.orderId)}${tradeNumberOf(reference.invoiceId)}`;

function referenceOf(outTradeNumber: string | undefined): TradeReference | undefined {
  if (!outTradeNumber || outTradeNumber.length !== 64) return undefined;
  const orderId = invoiceIdOfTradeNumber(outTradeNumber.slice(0, 32));
  const invoiceId = invoiceIdOfTradeNumber(outTradeNumber.slice(32));
  return orderId && invoiceId ? { orderId, invoiceId } : undefined;
}

function refusal(method: string, answer: AlipayAnswer): GatewayCallError {
  return new GatewayCallError(`${method}: ${answer.code ?? '?'} ${answer.sub_code ?? answer.msg ?? ''} ${answer.sub_msg ?? ''}`.trim());
}
