import { createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { Aes, Formatter, Rsa } from 'wechatpay-axios-plugin';
import { describe, expect, it } from 'vitest';
import { authorization, decryptResource, responseMessage, rfc3339China, verifySignature } from '#shared/payments/gateways/wechat-signing';

/** Our WeChat Pay v3 crypto against wechatpay-axios-plugin's (an independent implementation). */
const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

describe('request signatures', () => {
  it('verify with the library over its own request message, and are its signature byte for byte', () => {
    const body = JSON.stringify({ appid: 'wxd678efh567hg6787', amount: { total: 7230, currency: 'CNY' }, description: '会员' });
    const header = authorization({
      mchid: '1900000109',
      serialNo: 'ABC123',
      key: createPrivateKey(keys.privateKey),
      method: 'POST',
      pathWithQuery: '/v3/pay/transactions/native',
      body,
      timestamp: '1743465600',
      nonce: 'N0NCE',
    });
    const fields = Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    expect(header.startsWith('WECHATPAY2-SHA256-RSA2048 ')).toBe(true);
    expect(fields).toMatchObject({ mchid: '1900000109', serial_no: 'ABC123', timestamp: '1743465600', nonce_str: 'N0NCE' });
    const message = Formatter.request('POST', '/v3/pay/transactions/native', '1743465600', 'N0NCE', body);
    expect(Rsa.verify(message, fields.signature!, keys.publicKey)).toBe(true);
    expect(fields.signature).toBe(Rsa.sign(message, keys.privateKey));
    expect(Rsa.verify(message.replace('7230', '7231'), fields.signature!, keys.publicKey)).toBe(false);
  });
});

describe('answer and notification signatures', () => {
  it('accept what the library signs over its response message, and nothing changed', () => {
    const body = '{"code_url":"weixin://wxpay/bizpayurl?pr=abc"}';
    const signature = Rsa.sign(Formatter.response('1743465600', 'n1', body), keys.privateKey);
    const key = createPrivateKey(keys.privateKey);
    expect(verifySignature(responseMessage('1743465600', 'n1', body), signature, key)).toBe(true);
    expect(verifySignature(responseMessage('1743465601', 'n1', body), signature, key)).toBe(false);
    expect(verifySignature(responseMessage('1743465600', 'n1', `${body} `), signature, key)).toBe(false);
    expect(verifySignature(responseMessage('1743465600', 'n1', body), 'not base64!', key)).toBe(false);
  });
});

describe('AEAD_AES_256_GCM resources', () => {
  const apiV3Key = randomBytes(16).toString('hex');
  const plaintext = JSON.stringify({ mchid: '1900000109', out_trade_no: 'a'.repeat(32), trade_state: 'SUCCESS' });
  const ciphertext = Aes.AesGcm.encrypt(plaintext, apiV3Key, 'nonce123456x', 'transaction');

  it('decrypt what the library encrypts', () => {
    expect(decryptResource({ ciphertext, nonce: 'nonce123456x', associated_data: 'transaction' }, apiV3Key)).toBe(plaintext);
  });

  it('refuse another key, nonce, associated data or a flipped bit', () => {
    const flipped = Buffer.from(ciphertext, 'base64');
    flipped[3] = flipped[3]! ^ 1;
    expect(decryptResource({ ciphertext, nonce: 'nonce123456x', associated_data: 'transaction' }, randomBytes(16).toString('hex'))).toBeUndefined();
    expect(decryptResource({ ciphertext, nonce: 'nonce123456y', associated_data: 'transaction' }, apiV3Key)).toBeUndefined();
    expect(decryptResource({ ciphertext, nonce: 'nonce123456x', associated_data: 'refund' }, apiV3Key)).toBeUndefined();
    expect(decryptResource({ ciphertext: flipped.toString('base64'), nonce: 'nonce123456x', associated_data: 'transaction' }, apiV3Key)).toBeUndefined();
  });
});

describe('time_expire', () => {
  it.each([
    ['2025-04-01T00:00:00.000Z', '2025-04-01T08:00:00+08:00'],
    ['2025-04-01T16:30:05.000Z', '2025-04-02T00:30:05+08:00'],
  ])('%s is %s', (iso, expected) => {
    expect(rfc3339China(new Date(iso))).toBe(expected);
    expect(new Date(expected).getTime()).toBe(new Date(iso).getTime());
  });
});
