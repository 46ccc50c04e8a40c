import { createDecipheriv, createSign, createVerify, type KeyObject, randomBytes } from 'node:crypto';

/**
 * WeChat Pay API v3 cryptography with node:crypto:
 * - requests: `Authorization: WECHATPAY2-SHA256-RSA2048 mchid=..,nonce_str=..,signature=..,timestamp=..,serial_no=..`,
 *   SHA256withRSA over `METHOD\nPATH?QUERY\nTIMESTAMP\nNONCE\nBODY\n` with the merchant's key;
 * - answers and notifications: SHA256withRSA over `TIMESTAMP\nNONCE\nBODY\n`, checked with the
 *   WeChat Pay platform key named by `Wechatpay-Serial`;
 * - a notification's `resource`: AEAD_AES_256_GCM with the API v3 key (32 bytes), the
 *   resource's nonce and associated_data; the last 16 bytes of the ciphertext are the tag.
 */

export const AUTH_SCHEME = 'WECHATPAY2-SHA256-RSA2048';

export function requestMessage(method: string, pathWithQuery: string, timestamp: string, nonce: string, body: string): string {
  return `${method}\n${pathWithQuery}\n${timestamp}\n${nonce}\n${body}\n`;
}

export function responseMessage(timestamp: string, nonce: string, body: string): string {
  return `${timestamp}\n${nonce}\n${body}\n`;
}

/** The Authorization header of one request. */
export function authorization(options: { mchid: string; serialNo: string; key: KeyObject; method: string; pathWithQuery: string; body: string; timestamp?: string; nonce?: string }): string {
  const timestamp = options.timestamp ?? String(Math.floor(Date.now() / 1000));
  const nonce = options.nonce ?? randomBytes(16).toString('hex').toUpperCase();
  const signature = createSign('RSA-SHA256')
    .update(requestMessage(options.method, options.pathWithQuery, timestamp, nonce, options.body), 'utf8')
    .sign(options.key, 'base64');
  return `${AUTH_SCHEME} mchid="${options.mchid}",nonce_str="${nonce}",signature="${signature}",timestamp="${timestamp}",serial_no="${options.serialNo}"`;
}

export function verifySignature(message: string, signature: string, key: KeyObject): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
  try {
    return createVerify('RSA-SHA256').update(message, 'utf8').verify(key, signature, 'base64');
  } catch {
    return false;
  }
}

/** Decrypts an AEAD_AES_256_GCM resource; undefined when it does not authenticate. */
export function decryptResource(resource: { ciphertext: string; nonce: string; associated_data?: string }, apiV3Key: string): string | undefined {
  const key = Buffer.from(apiV3Key, 'utf8');
  if (key.length !== 32) return undefined;
  const data = Buffer.from(resource.ciphertext, 'base64');
  if (data.length < 17) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(resource.nonce, 'utf8'));
    decipher.setAuthTag(data.subarray(data.length - 16));
    decipher.setAAD(Buffer.from(resource.associated_data ?? '', 'utf8'));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** WeChat Pay's `time_expire`: RFC 3339 in China Standard Time (`2025-04-01T10:34:56+08:00`). */
export function rfc3339China(date: Date): string {
  return `${new Date(date.getTime() + 8 * 3600_000).toISOString().slice(0, 19)}+08:00`;
}
