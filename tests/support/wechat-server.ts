import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Aes, Formatter, Rsa } from 'wechatpay-axios-plugin';

/**
 * A local server speaking WeChat Pay API v3 with real cryptography, built on
 * wechatpay-axios-plugin's own signing, verifying and AES-GCM helpers (not our code): it checks
 * every request's WECHATPAY2-SHA256-RSA2048 Authorization with the merchant's public key, signs
 * every answer with its platform key (a self-signed X.509 certificate made by openssl for this
 * run, whose serial is Wechatpay-Serial), and sends notifications whose resource is encrypted
 * with the merchant's API v3 key: genuine, forged, stale or encrypted under another key.
 */
export interface WechatTrade {
  out_trade_no: string;
  transaction_id: string;
  total: number;
  description: string;
  attach: string;
  notify_url: string;
  time_expire: string;
  kind: 'native' | 'h5';
  payer_client_ip?: string;
  trade_state: 'NOTPAY' | 'SUCCESS' | 'CLOSED' | 'REFUND';
  success_time?: string;
  refunds: { out_refund_no: string; refund: number; total: number; status: 'PROCESSING' | 'SUCCESS'; notify_url: string }[];
}

export interface WechatCall {
  method: string;
  path: string;
  body: Record<string, any>;
  signatureValid: boolean;
  skewSeconds: number;
}

export interface NotifyOptions {
  /** 'platform' (default), or 'forged' (another key under the platform's serial). */
  signer?: 'platform' | 'forged';
  /** Encrypt the resource under another API v3 key. */
  wrongKey?: boolean;
  /** The Wechatpay-Timestamp to send (default now). */
  timestamp?: number;
  /** Replace the signed body after signing (tampering). */
  tamper?: (body: string) => string;
  /** Change the decrypted resource before it is encrypted (e.g. another mchid). */
  resource?: Record<string, unknown>;
  /** Encrypt exactly this text as the resource (e.g. `null`): correctly signed and encrypted, not an object. */
  plaintext?: string;
  to?: string;
  serial?: string;
}

export interface FakeWechat {
  url: string;
  mchid: string;
  appid: string;
  apiV3Key: string;
  /** The platform certificate (PEM) for the merchant's credentials, and its serial. */
  platformCertificate: string;
  platformSerial: string;
  trades: Map<string, WechatTrade>;
  calls: WechatCall[];
  pay(outTradeNo: string, at?: Date): WechatTrade;
  notifyPaid(outTradeNo: string, options?: NotifyOptions): Promise<{ status: number; body: string }>;
  notifyRefund(outRefundNo: string, options?: NotifyOptions): Promise<{ status: number; body: string }>;
  /** The next `times` refunds answer PROCESSING instead of SUCCESS. */
  processRefundsLater(times: number): void;
  /** The next `times` answers on `path` prefix are signed by another key. */
  badSignatureNext(pathPrefix: string, times: number): void;
  close(): Promise<void>;
}

const pemKeys = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

/** A self-signed platform certificate and its key, made by openssl for this run. */
function platformCertificate(): { key: string; certificate: string } {
  const dir = mkdtempSync(join(tmpdir(), 'wechat-platform-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '2',
        '-subj',
        '/CN=Tenpay.com Root CA test/O=Tenpay test',
        '-set_serial',
        `0x${randomBytes(16).toString('hex')}`,
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), certificate: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** WeChat Pay's RFC 3339 time in +08:00. */
const chinaRfc3339 = (date: Date) => `${new Date(date.getTime() + 8 * 3600_000).toISOString().slice(0, 19)}+08:00`;

export async function startFakeWechat(options: { mchid: string; appid: string; merchantSerial: string; merchantPublicKey: string }): Promise<FakeWechat> {
  const platform = platformCertificate();
  const platformSerial = new X509Certificate(platform.certificate).serialNumber.toUpperCase();
  const forger = pemKeys();
  const apiV3Key = randomBytes(16).toString('hex');
  const trades = new Map<string, WechatTrade>();
  const calls: WechatCall[] = [];
  let laterRefunds = 0;
  const badSignatures = new Map<string, number>();

  const signedHeaders = (body: string, key = platform.key) => {
    const timestamp = Formatter.timestamp();
    const nonce = Formatter.nonce();
    return {
      'wechatpay-timestamp': String(timestamp),
      'wechatpay-nonce': nonce,
      'wechatpay-serial': platformSerial,
      'wechatpay-signature': Rsa.sign(Formatter.response(timestamp, nonce, body), key),
    };
  };

  /** Verifies the Authorization header as WeChat Pay does. */
  const authorized = (request: IncomingMessage, path: string, body: string): { valid: boolean; skew: number } => {
    const header = String(request.headers.authorization ?? '');
    const match = /^WECHATPAY2-SHA256-RSA2048 (.*)$/.exec(header);
    if (!match) return { valid: false, skew: Infinity };
    const fields = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (fields.mchid !== options.mchid || fields.serial_no !== options.merchantSerial) return { valid: false, skew: Infinity };
    const message = Formatter.request(request.method!, path, fields.timestamp!, fields.nonce_str!, body);
    return { valid: Rsa.verify(message, fields.signature!, options.merchantPublicKey), skew: Math.abs(Date.now() / 1000 - Number(fields.timestamp)) };
  };

  const handle = (method: string, url: URL, body: Record<string, any>): [number, Record<string, unknown> | undefined] => {
    const path = url.pathname;
    if (method === 'POST' && (path === '/v3/pay/transactions/native' || path === '/v3/pay/transactions/h5')) {
      if (body.mchid !== options.mchid || body.appid !== options.appid) return [400, { code: 'PARAM_ERROR', message: 'mchid/appid' }];
      if (!trades.has(body.out_trade_no)) {
        trades.set(body.out_trade_no, {
          out_trade_no: body.out_trade_no,
          transaction_id: `4200${randomBytes(12).toString('hex')}`,
          total: body.amount.total,
          description: body.description,
          attach: body.attach,
          notify_url: body.notify_url,
          time_expire: body.time_expire,
          kind: path.endsWith('h5') ? 'h5' : 'native',
          payer_client_ip: body.scene_info?.payer_client_ip,
          trade_state: 'NOTPAY',
          refunds: [],
        });
      }
      return path.endsWith('h5')
        ? [200, { h5_url: `https://wx.tenpay.test/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=${body.out_trade_no}` }]
        : [200, { code_url: `weixin://wxpay/bizpayurl?pr=${body.out_trade_no.slice(0, 8)}` }];
    }
    const query = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)$/.exec(path);
    if (method === 'GET' && query) {
      if (url.searchParams.get('mchid') !== options.mchid) return [400, { code: 'PARAM_ERROR', message: 'mchid' }];
      const trade = trades.get(query[1]!);
      if (!trade) return [404, { code: 'ORDER_NOT_EXIST', message: 'no such order' }];
      return [200, transaction(trade)];
    }
    if (method === 'POST' && path === '/v3/refund/domestic/refunds') {
      const trade = trades.get(body.out_trade_no);
      if (!trade || (trade.trade_state !== 'SUCCESS' && trade.trade_state !== 'REFUND')) return [400, { code: 'INVALID_REQUEST', message: 'not paid' }];
      if (body.amount.total !== trade.total) return [400, { code: 'PARAM_ERROR', message: 'total differs' }];
      let refund = trade.refunds.find((entry) => entry.out_refund_no === body.out_refund_no);
      if (!refund) {
        refund = { out_refund_no: body.out_refund_no, refund: body.amount.refund, total: body.amount.total, status: laterRefunds > 0 ? 'PROCESSING' : 'SUCCESS', notify_url: body.notify_url };
        if (laterRefunds > 0) laterRefunds -= 1;
        trade.refunds.push(refund);
        trade.trade_state = 'REFUND';
      }
      return [
        200,
        {
          refund_id: `5030${refund.out_refund_no.slice(0, 12)}`,
          out_refund_no: refund.out_refund_no,
          out_trade_no: trade.out_trade_no,
          status: refund.status,
          amount: { refund: refund.refund, total: refund.total, currency: 'CNY' },
        },
      ];
    }
    return [404, { code: 'NOT_FOUND', message: path }];
  };

  const transaction = (trade: WechatTrade) => ({
    appid: options.appid,
    mchid: options.mchid,
    out_trade_no: trade.out_trade_no,
    transaction_id: trade.transaction_id,
    trade_type: trade.kind === 'h5' ? 'MWEB' : 'NATIVE',
    trade_state: trade.trade_state,
    trade_state_desc: trade.trade_state,
    attach: trade.attach,
    ...(trade.success_time ? { success_time: trade.success_time } : {}),
    amount: { total: trade.total, payer_total: trade.total, currency: 'CNY', payer_currency: 'CNY' },
  });

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const text = await readBody(request);
    const auth = authorized(request, `${url.pathname}${url.search}`, text);
    calls.push({ method: request.method!, path: url.pathname, body: text ? JSON.parse(text) : {}, signatureValid: auth.valid, skewSeconds: auth.skew });
    const [status, answer] = auth.valid && auth.skew < 300 ? handle(request.method!, url, text ? JSON.parse(text) : {}) : [401, { code: 'SIGN_ERROR', message: 'signature does not verify' }];
    const body = answer === undefined ? '' : JSON.stringify(answer);
    const prefix = [...badSignatures.keys()].find((key) => url.pathname.startsWith(key));
    let key = platform.key;
    if (prefix !== undefined) {
      key = forger.privateKey;
      const left = badSignatures.get(prefix)! - 1;
      if (left <= 0) badSignatures.delete(prefix);
      else badSignatures.set(prefix, left);
    }
    response.writeHead(status, { 'content-type': 'application/json', ...signedHeaders(body, key) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const send = async (notifyUrl: string, eventType: string, resource: Record<string, unknown>, notify: NotifyOptions = {}) => {
    const nonce = randomBytes(6).toString('hex');
    const associatedData = eventType.startsWith('REFUND') ? 'refund' : 'transaction';
    const key = notify.wrongKey ? randomBytes(16).toString('hex') : apiV3Key;
    const envelope = {
      id: `EV-${randomBytes(8).toString('hex')}`,
      create_time: chinaRfc3339(new Date()),
      resource_type: 'encrypt-resource',
      event_type: eventType,
      summary: eventType,
      resource: {
        original_type: associatedData,
        algorithm: 'AEAD_AES_256_GCM',
        ciphertext: Aes.AesGcm.encrypt(notify.plaintext ?? JSON.stringify({ ...resource, ...notify.resource }), key, nonce, associatedData),
        associated_data: associatedData,
        nonce,
      },
    };
    const body = JSON.stringify(envelope);
    const timestamp = notify.timestamp ?? Formatter.timestamp();
    const headerNonce = Formatter.nonce();
    const signature = Rsa.sign(Formatter.response(timestamp, headerNonce, body), notify.signer === 'forged' ? forger.privateKey : platform.key);
    const response = await fetch(notify.to ?? notifyUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'wechatpay-timestamp': String(timestamp),
        'wechatpay-nonce': headerNonce,
        'wechatpay-serial': notify.serial ?? platformSerial,
        'wechatpay-signature': signature,
        'wechatpay-signature-type': 'WECHATPAY2-SHA256-RSA2048',
      },
      body: notify.tamper ? notify.tamper(body) : body,
    });
    return { status: response.status, body: await response.text() };
  };

  const trade = (outTradeNo: string) => {
    const found = trades.get(outTradeNo);
    if (!found) throw new Error(`no trade ${outTradeNo}`);
    return found;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    mchid: options.mchid,
    appid: options.appid,
    apiV3Key,
    platformCertificate: platform.certificate,
    platformSerial,
    trades,
    calls,
    pay(outTradeNo, at = new Date()) {
      const paid = trade(outTradeNo);
      paid.trade_state = 'SUCCESS';
      paid.success_time = chinaRfc3339(at);
      return paid;
    },
    notifyPaid(outTradeNo, notify) {
      const paid = trade(outTradeNo);
      return send(paid.notify_url, 'TRANSACTION.SUCCESS', transaction(paid), notify);
    },
    notifyRefund(outRefundNo, notify) {
      for (const paid of trades.values()) {
        const refund = paid.refunds.find((entry) => entry.out_refund_no === outRefundNo);
        if (!refund) continue;
        refund.status = 'SUCCESS';
        return send(
          refund.notify_url,
          'REFUND.SUCCESS',
          {
            mchid: options.mchid,
            out_trade_no: paid.out_trade_no,
            transaction_id: paid.transaction_id,
            out_refund_no: refund.out_refund_no,
            refund_id: `5030${refund.out_refund_no.slice(0, 12)}`,
            refund_status: 'SUCCESS',
            success_time: chinaRfc3339(new Date()),
            amount: { total: refund.total, refund: refund.refund, payer_total: refund.total, payer_refund: refund.refund },
          },
          notify,
        );
      }
      throw new Error(`no refund ${outRefundNo}`);
    },
    processRefundsLater(times) {
      laterRefunds = times;
    },
    badSignatureNext(pathPrefix, times) {
      badSignatures.set(pathPrefix, times);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
