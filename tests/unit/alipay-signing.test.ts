import { createSign, generateKeyPairSync } from 'node:crypto';
import { AlipaySdk } from 'alipay-sdk';
import { describe, expect, it } from 'vitest';
import { chinaTime, parseChinaTime, privateKeyFrom, publicKeyFrom, signRequest, topLevelJsonValue, verifyNotification } from '#shared/payments/gateways/alipay-signing';
import { shanghaiTime } from '../support/alipay-server';

/**
 * Our hand-written Alipay RSA2 code against the official alipay-sdk (an independent
 * implementation) and Intl's time zone data: same signatures, same verdicts, same cut-outs.
 */
const app = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const alipay = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

/** The SDK as the merchant uses it: our app key signs, Alipay's key verifies. */
const merchantSdk = new AlipaySdk({ appId: '2021000000000001', privateKey: app.privateKey, keyType: 'PKCS8', alipayPublicKey: alipay.publicKey });
/** The SDK as Alipay's side: verifying what our app key signed. */
const alipaySdk = new AlipaySdk({ appId: '2021000000000001', privateKey: alipay.privateKey, keyType: 'PKCS8', alipayPublicKey: app.publicKey });

const signAsAlipay = (fields: Record<string, string>): string =>
  createSign('RSA-SHA256')
    .update(
      Object.keys(fields)
        .filter((key) => key !== 'sign' && key !== 'sign_type')
        .sort()
        .map((key) => `${key}=${fields[key]}`)
        .join('&'),
      'utf8',
    )
    .sign(alipay.privateKey, 'base64');

describe('request signatures', () => {
  const params = {
    app_id: '2021000000000001',
    method: 'alipay.trade.precreate',
    charset: 'utf-8',
    sign_type: 'RSA2',
    timestamp: '2025-04-01 08:00:00',
    version: '1.0',
    notify_url: 'https://api.example/v1/gateways/alipay/notify',
    biz_content: JSON.stringify({ out_trade_no: 'a'.repeat(64), total_amount: '72.30', subject: '月度会员 x 1 & more=yes' }),
  };

  it('are byte for byte the signature the official SDK makes for the same parameters', () => {
    const fromSdk = new URLSearchParams(
      merchantSdk.sdkExecute('alipay.trade.precreate', { timestamp: params.timestamp, notify_url: params.notify_url, bizContent: JSON.parse(params.biz_content) }, { bizContentAutoSnakeCase: false }),
    );
    const sdkParams = Object.fromEntries(fromSdk);
    const { sign, ...unsigned } = sdkParams;
    expect(unsigned).toEqual(params);
    expect(signRequest(params, privateKeyFrom(app.privateKey)).sign).toBe(sign);
  });

  it("verify on Alipay's side (the SDK's verifier), and a changed value does not", () => {
    const signed = signRequest(params, privateKeyFrom(app.privateKey));
    expect(alipaySdk.checkNotifySignV2({ ...signed })).toBe(true);
    expect(alipaySdk.checkNotifySignV2({ ...signed, biz_content: signed.biz_content!.replace('72.30', '72.31') })).toBe(false);
  });

  it('accept the key forms Alipay hands out: PEM or bare base64, PKCS#8 or PKCS#1', () => {
    const key = privateKeyFrom(app.privateKey);
    const pkcs1 = key.export({ type: 'pkcs1', format: 'pem' }) as string;
    const bare8 = (key.export({ type: 'pkcs8', format: 'der' }) as Buffer).toString('base64');
    const bare1 = (key.export({ type: 'pkcs1', format: 'der' }) as Buffer).toString('base64');
    const expected = signRequest(params, key).sign;
    for (const form of [pkcs1, bare8, bare1]) expect(signRequest(params, privateKeyFrom(form)).sign).toBe(expected);
    const barePublic = app.publicKey.replace(/-----[^-]+-----/g, '').replace(/\s/g, '');
    expect(publicKeyFrom(barePublic).export({ type: 'spki', format: 'pem' })).toBe(app.publicKey);
  });
});

describe('notification signatures: our verdict is the SDK verdict', () => {
  const fields = {
    notify_time: '2025-04-01 08:10:00',
    notify_type: 'trade_status_sync',
    notify_id: 'ac05099524730693a8b330c5ecf72da978',
    app_id: '2021000000000001',
    charset: 'utf-8',
    version: '1.0',
    trade_no: '2025040122001400000000000001',
    out_trade_no: 'b'.repeat(64),
    trade_status: 'TRADE_SUCCESS',
    total_amount: '72.30',
    subject: '会员 & co = 1%',
    buyer_logon_id: '',
    gmt_payment: '2025-04-01 08:09:59',
  };
  const sign = signAsAlipay(fields);
  const key = publicKeyFrom(alipay.publicKey);

  const cases: [string, Record<string, string>, boolean][] = [
    ['signed by Alipay', { ...fields, sign_type: 'RSA2', sign }, true],
    ['with a changed amount', { ...fields, total_amount: '7230.00', sign_type: 'RSA2', sign }, false],
    ['with a parameter added after signing', { ...fields, refund_fee: '1.00', sign_type: 'RSA2', sign }, false],
    ['with a parameter removed', { ...fields, buyer_logon_id: undefined as unknown as string, sign_type: 'RSA2', sign }, false],
    ['signed by another key', { ...fields, sign_type: 'RSA2', sign: createSign('RSA-SHA256').update('x').sign(app.privateKey, 'base64') }, false],
    ['without a signature', { ...fields, sign_type: 'RSA2' }, false],
  ];
  it.each(cases)('%s', (_name, raw, valid) => {
    const params = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)) as Record<string, string>;
    expect(merchantSdk.checkNotifySignV2({ ...params })).toBe(valid);
    expect(verifyNotification(params, key)).toBe(valid);
  });

  it('refuses a notification that says it is RSA (SHA-1) even where its signature would verify as RSA2', () => {
    expect(verifyNotification({ ...fields, sign_type: 'RSA', sign }, key)).toBe(false);
    expect(verifyNotification({ ...fields, sign_type: 'RSA2', sign }, key)).toBe(true);
  });
});

describe('the signed part of an answer', () => {
  // alipay-sdk 4.14's getSignStr cannot serve as the reference here: it keeps `,"sign":...`
  // in the text it checks (it cuts at an index of the uncut string). JSON itself is the reference.
  const answers: [string, string][] = [
    ['compact', '{"alipay_trade_query_response":{"code":"10000","msg":"Success","total_amount":"72.30"},"sign":"abc"}'],
    ['sign first, spaced', '{ "sign" : "abc",\n  "alipay_trade_query_response" : {"code":"10000","sub":{"a":[1,{"b":"}"}]}} }'],
    ['braces and quotes in strings', '{"alipay_trade_query_response":{"code":"10000","subject":"a } \\" { ] [ , b"},"alipay_cert_sn":"x","sign":"abc"}'],
    ['unicode escapes kept as sent', '{"alipay_trade_query_response":{"code":"10000","subject":"\\u4f1a\\u5458 会员"},"sign":"abc"}'],
  ];
  it.each(answers)('%s: the value exactly as written', (_name, text) => {
    const ours = topLevelJsonValue(text, 'alipay_trade_query_response')!;
    expect(JSON.parse(ours)).toEqual(JSON.parse(text).alipay_trade_query_response);
    // A cut-out, not a re-serialization: it is a substring of the answer, and compact input comes back whole.
    expect(text.includes(ours)).toBe(true);
    if (!/\s"|\\u/.test(text)) expect(ours).toBe(JSON.stringify(JSON.parse(text).alipay_trade_query_response));
  });

  it('finds nothing for a missing name or a name that only appears as a value', () => {
    expect(topLevelJsonValue('{"sign":"alipay_trade_query_response"}', 'alipay_trade_query_response')).toBeUndefined();
    expect(topLevelJsonValue('{"error_response":{"code":"40002"}}', 'alipay_trade_query_response')).toBeUndefined();
    expect(topLevelJsonValue('not json', 'x')).toBeUndefined();
  });
});

describe('China Standard Time, as Alipay writes it', () => {
  it.each(['2025-04-01T00:00:00.000Z', '2025-04-01T15:59:59.999Z', '2025-04-01T16:00:00.000Z', '2024-02-29T23:30:00.000Z', '2025-12-31T16:00:01.000Z'])(
    '%s matches Intl Asia/Shanghai and reads back',
    (iso) => {
      const date = new Date(iso);
      expect(chinaTime(date)).toBe(shanghaiTime(date));
      expect(parseChinaTime(chinaTime(date))?.getTime()).toBe(Math.floor(date.getTime() / 1000) * 1000);
    },
  );

  it('reads nothing from a malformed time', () => {
    expect(parseChinaTime('2025-04-01T08:00:00')).toBeUndefined();
    expect(parseChinaTime(undefined)).toBeUndefined();
  });
});
