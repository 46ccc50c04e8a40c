import { createSign, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AlipaySdk } from 'alipay-sdk';

/**
 * A local server speaking Alipay OpenAPI (gateway.do) with real RSA2 cryptography: it checks
 * every request's signature with the merchant application's public key (through the official
 * alipay-sdk's own verifier, not our code), keeps trades, answers signed with its own test key
 * as Alipay does, and sends signed asynchronous notifications (or forged ones) to the
 * notify_url a trade was created with.
 */
export interface AlipayTrade {
  out_trade_no: string;
  trade_no: string;
  total_amount: string;
  subject: string;
  status: 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_FINISHED' | 'TRADE_CLOSED';
  notify_url: string;
  timeout_express?: string;
  settle_currency?: string;
  gmt_payment?: string;
  refunds: { out_request_no: string; refund_amount: string }[];
}

export interface ReceivedCall {
  method: string;
  params: Record<string, string>;
  biz: Record<string, string>;
  signatureValid: boolean;
  timestampSkewSeconds: number;
}

export interface FakeAlipay {
  url: string;
  /** Alipay's test public key (PEM), for the merchant's credentials. */
  alipayPublicKey: string;
  appId: string;
  trades: Map<string, AlipayTrade>;
  calls: ReceivedCall[];
  /** Marks a trade paid (the buyer paid in the app) at `at` (China time text made from it). */
  pay(outTradeNo: string, at?: Date): AlipayTrade;
  /** Posts a notification for a trade to its notify_url; returns the HTTP status and body. */
  notify(outTradeNo: string, options?: NotifyOptions): Promise<{ status: number; body: string }>;
  /** The next answers of `method` are an error (code 40004 with this sub_code) or signed with a wrong key. */
  failNext(method: string, how: { subCode?: string; badSignature?: boolean; times?: number }): void;
  /** Opens a link made for the buyer's phone (GET gateway.do?...): the server checks its signature. */
  open(link: string): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

export interface NotifyOptions {
  /** Fields to add or override (after the real ones), e.g. a tampered total_amount. */
  fields?: Record<string, string>;
  trade_status?: AlipayTrade['status'];
  /** 'alipay' (default): Alipay's key; 'forged': another key; 'none': no signature. */
  signer?: 'alipay' | 'forged' | 'none';
  /** Signed first, changed after (a tampered notification). */
  tamper?: Record<string, string>;
  /** Post to another URL than the trade's notify_url. */
  to?: string;
}

/** Alipay's `yyyy-MM-dd HH:mm:ss` in Asia/Shanghai, computed by Intl (independently of the service's code). */
export function shanghaiTime(date: Date): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Asia/Shanghai',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

function rsaKeys() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

const signWith = (key: string, content: string) => createSign('RSA-SHA256').update(content, 'utf8').sign(key, 'base64');

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeAlipay(options: { appId: string; appPublicKey: string }): Promise<FakeAlipay> {
  const keys = rsaKeys();
  const forger = rsaKeys();
  // The official SDK, configured as Alipay's side: it verifies with the application's public key.
  const verifier = new AlipaySdk({ appId: options.appId, privateKey: keys.privateKey, keyType: 'PKCS8', alipayPublicKey: options.appPublicKey });
  const trades = new Map<string, AlipayTrade>();
  const calls: ReceivedCall[] = [];
  const failures = new Map<string, { subCode?: string; badSignature?: boolean; times: number }>();

  const answer = (method: string, body: Record<string, unknown>) => {
    const failure = failures.get(method);
    const key = failure?.badSignature ? forger.privateKey : keys.privateKey;
    if (failure?.badSignature && --failure.times <= 0) failures.delete(method);
    const json = JSON.stringify(body);
    return `{"${method.replace(/\./g, '_')}_response":${json},"sign":"${signWith(key, json)}"}`;
  };

  const handle = (method: string, params: Record<string, string>): string => {
    const biz = JSON.parse(params.biz_content ?? '{}') as Record<string, string>;
    const signatureValid = params.sign_type === 'RSA2' && verifier.checkNotifySignV2({ ...params });
    const sentAt = new Date(`${(params.timestamp ?? '').replace(' ', 'T')}+08:00`).getTime();
    const expected = new Date(`${shanghaiTime(new Date()).replace(' ', 'T')}+08:00`).getTime();
    calls.push({ method, params, biz, signatureValid, timestampSkewSeconds: Math.abs(expected - sentAt) / 1000 });
    if (!signatureValid || params.app_id !== options.appId) {
      return answer(method, { code: '40002', msg: 'Invalid Arguments', sub_code: 'isv.invalid-signature', sub_msg: 'bad signature' });
    }
    const failure = failures.get(method);
    if (failure?.subCode) {
      if (--failure.times <= 0) failures.delete(method);
      return answer(method, { code: '40004', msg: 'Business Failed', sub_code: failure.subCode, sub_msg: 'refused by the test' });
    }
    const trade = trades.get(biz.out_trade_no ?? '');
    switch (method) {
      case 'alipay.trade.precreate':
      case 'alipay.trade.wap.pay': {
        if (!trade) {
          trades.set(biz.out_trade_no!, {
            out_trade_no: biz.out_trade_no!,
            trade_no: `2025${randomBytes(12).toString('hex')}`,
            total_amount: biz.total_amount!,
            subject: biz.subject!,
            status: 'WAIT_BUYER_PAY',
            notify_url: params.notify_url!,
            timeout_express: biz.timeout_express,
            settle_currency: biz.settle_currency,
            refunds: [],
          });
        }
        return answer(method, { code: '10000', msg: 'Success', out_trade_no: biz.out_trade_no, qr_code: `https://qr.alipay.test/${biz.out_trade_no}` });
      }
      case 'alipay.trade.query': {
        if (!trade) return answer(method, { code: '40004', msg: 'Business Failed', sub_code: 'ACQ.TRADE_NOT_EXIST', sub_msg: 'no such trade' });
        return answer(method, {
          code: '10000',
          msg: 'Success',
          trade_no: trade.trade_no,
          out_trade_no: trade.out_trade_no,
          trade_status: trade.status,
          total_amount: trade.total_amount,
          ...(trade.gmt_payment ? { send_pay_date: trade.gmt_payment } : {}),
        });
      }
      case 'alipay.trade.refund': {
        if (!trade || (trade.status !== 'TRADE_SUCCESS' && trade.status !== 'TRADE_CLOSED')) {
          return answer(method, { code: '40004', msg: 'Business Failed', sub_code: 'ACQ.TRADE_STATUS_ERROR', sub_msg: 'not paid' });
        }
        const repeat = trade.refunds.some((refund) => refund.out_request_no === biz.out_request_no);
        if (!repeat) trade.refunds.push({ out_request_no: biz.out_request_no!, refund_amount: biz.refund_amount! });
        trade.status = 'TRADE_CLOSED';
        return answer(method, { code: '10000', msg: 'Success', trade_no: trade.trade_no, out_trade_no: trade.out_trade_no, refund_fee: biz.refund_amount, fund_change: repeat ? 'N' : 'Y' });
      }
      case 'alipay.trade.fastpay.refund.query': {
        const refund = trade?.refunds.find((entry) => entry.out_request_no === biz.out_request_no);
        if (!refund) return answer(method, { code: '10000', msg: 'Success' });
        return answer(method, { code: '10000', msg: 'Success', out_request_no: refund.out_request_no, refund_amount: refund.refund_amount, refund_status: 'REFUND_SUCCESS' });
      }
      default:
        return answer(method, { code: '40004', msg: 'Business Failed', sub_code: 'isv.invalid-method', sub_msg: method });
    }
  };

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const body = await readBody(request);
    const params: Record<string, string> = {};
    for (const [name, value] of url.searchParams) params[name] = value;
    for (const [name, value] of new URLSearchParams(body)) params[name] = value;
    if (url.pathname !== '/gateway.do' || !params.method) {
      response.writeHead(404).end();
      return;
    }
    if (request.method === 'GET') {
      // A buyer's phone opening a wap.pay link: Alipay's cashier page when the link is signed.
      const text = handle(params.method, params);
      const ok = text.includes('"code":"10000"');
      response.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8' }).end(ok ? '<html>Alipay cashier</html>' : text);
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json;charset=utf-8' }).end(handle(params.method, params));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const trade = (outTradeNo: string): AlipayTrade => {
    const found = trades.get(outTradeNo);
    if (!found) throw new Error(`no trade ${outTradeNo}`);
    return found;
  };

  return {
    url: `http://127.0.0.1:${port}/gateway.do`,
    alipayPublicKey: keys.publicKey,
    appId: options.appId,
    trades,
    calls,
    pay(outTradeNo, at = new Date()) {
      const paid = trade(outTradeNo);
      paid.status = 'TRADE_SUCCESS';
      paid.gmt_payment = shanghaiTime(at);
      return paid;
    },
    async notify(outTradeNo, notifyOptions = {}) {
      const paid = trade(outTradeNo);
      const fields: Record<string, string> = {
        notify_time: shanghaiTime(new Date()),
        notify_type: 'trade_status_sync',
        notify_id: randomBytes(16).toString('hex'),
        charset: 'utf-8',
        version: '1.0',
        app_id: options.appId,
        trade_no: paid.trade_no,
        out_trade_no: paid.out_trade_no,
        trade_status: notifyOptions.trade_status ?? paid.status,
        total_amount: paid.total_amount,
        receipt_amount: paid.total_amount,
        subject: paid.subject,
        ...(paid.gmt_payment ? { gmt_payment: paid.gmt_payment } : {}),
        ...notifyOptions.fields,
      };
      // Alipay signs every parameter but sign and sign_type, sorted by name.
      const content = Object.keys(fields)
        .sort()
        .map((name) => `${name}=${fields[name]}`)
        .join('&');
      const signer = notifyOptions.signer ?? 'alipay';
      const form: Record<string, string> = { ...fields, sign_type: 'RSA2', ...notifyOptions.tamper };
      if (signer !== 'none') form.sign = signWith(signer === 'alipay' ? keys.privateKey : forger.privateKey, content);
      const response = await fetch(notifyOptions.to ?? paid.notify_url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: new URLSearchParams(form).toString(),
      });
      return { status: response.status, body: await response.text() };
    },
    failNext(method, how) {
      failures.set(method, { ...how, times: how.times ?? 1 });
    },
    async open(link) {
      const response = await fetch(link);
      return { status: response.status, body: await response.text() };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
