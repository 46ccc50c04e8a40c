import { createPrivateKey, createPublicKey, createSign, createVerify, type KeyObject } from 'node:crypto';

/**
 * Alipay OpenAPI (gateway.do) RSA2 signatures: SHA256withRSA over the parameters sorted by
 * name, `name=value` joined with `&`, values as sent (not URL-encoded).
 *
 * - A request is signed over every parameter except `sign` itself, empty ones left out.
 * - An asynchronous notification is signed over every parameter except `sign` and
 *   `sign_type` (what Alipay's Java SDK calls rsaCheckV1).
 * - A response is signed over the exact text of its `<method>_response` JSON value.
 */

/** A PEM key, or the bare base64 body Alipay's key tool prints (PKCS#8 or PKCS#1 private keys). */
export function privateKeyFrom(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) return createPrivateKey(trimmed);
  const der = Buffer.from(trimmed.replace(/\s+/g, ''), 'base64');
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs1' });
  }
}

/** Alipay's public key as PEM, or the bare base64 (SubjectPublicKeyInfo) its console shows. */
export function publicKeyFrom(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) return createPublicKey(trimmed);
  return createPublicKey({ key: Buffer.from(trimmed.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'spki' });
}

/** The string a request is signed over. */
export function requestSignContent(params: Readonly<Record<string, string>>): string {
  return Object.keys(params)
    .filter((key) => key !== 'sign' && params[key] !== '')
    .sort()
    .map((key) => `${key}=${params[key]}`)
    .join('&');
}

/** The string a notification is signed over. */
export function notificationSignContent(params: Readonly<Record<string, string>>): string {
  return Object.keys(params)
    .filter((key) => key !== 'sign' && key !== 'sign_type')
    .sort()
    .map((key) => `${key}=${params[key]}`)
    .join('&');
}

export function rsa2Sign(content: string, key: KeyObject): string {
  return createSign('RSA-SHA256').update(content, 'utf8').sign(key, 'base64');
}

export function rsa2Verify(content: string, signature: string, key: KeyObject): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
  try {
    return createVerify('RSA-SHA256').update(content, 'utf8').verify(key, signature, 'base64');
  } catch {
    return false;
  }
}

/** Signs request parameters: the same parameters with `sign` added. */
export function signRequest(params: Readonly<Record<string, string>>, key: KeyObject): Record<string, string> {
  return { ...params, sign: rsa2Sign(requestSignContent(params), key) };
}

/**
 * Whether a notification carries a valid RSA2 signature of Alipay's key. Only RSA2 is
 * accepted: a notification claiming the older RSA (SHA-1) type is refused outright.
 */
export function verifyNotification(params: Readonly<Record<string, string>>, key: KeyObject): boolean {
  const signature = params.sign;
  if (!signature || params.sign_type !== 'RSA2') return false;
  return rsa2Verify(notificationSignContent(params), signature, key);
}

/**
 * The exact text of the JSON value named `name` at the top level of `text` (Alipay signs
 * the response object as it wrote it, so it must be cut out, never re-serialized).
 */
export function topLevelJsonValue(text: string, name: string): string | undefined {
  const skipString = (from: number): number => {
    let at = from + 1;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    return at + 1;
  };
  const skipSpace = (from: number): number => {
    let at = from;
    while (at < text.length && /\s/.test(text[at]!)) at += 1;
    return at;
  };
  /** The end (exclusive) of the JSON value starting at `start`. */
  const valueEnd = (start: number): number => {
    if (text[start] === '"') return skipString(start);
    let nested = 0;
    for (let at = start; at < text.length; at += 1) {
      const char = text[at]!;
      if (char === '"') at = skipString(at) - 1;
      else if (char === '{' || char === '[') nested += 1;
      else if (char === '}' || char === ']') {
        if (nested === 0) return at;
        nested -= 1;
        if (nested === 0) return at + 1;
      } else if (char === ',' && nested === 0) return at;
    }
    return text.length;
  };
  let at = skipSpace(0);
  if (text[at] !== '{') return undefined;
  at = skipSpace(at + 1);
  while (at < text.length && text[at] === '"') {
    const keyEnd = skipString(at);
    let key: unknown;
    try {
      key = JSON.parse(text.slice(at, keyEnd));
    } catch {
      return undefined;
    }
    const colon = skipSpace(keyEnd);
    if (text[colon] !== ':') return undefined;
    const start = skipSpace(colon + 1);
    const end = valueEnd(start);
    if (key === name) return text.slice(start, end).trim();
    at = skipSpace(end);
    if (text[at] !== ',') return undefined;
    at = skipSpace(at + 1);
  }
  return undefined;
}

/** Alipay's request timestamp: `yyyy-MM-dd HH:mm:ss` in China Standard Time (UTC+8, no DST). */
export function chinaTime(date: Date): string {
  return new Date(date.getTime() + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** Parses Alipay's `yyyy-MM-dd HH:mm:ss` (China Standard Time). */
export function parseChinaTime(text: string | undefined): Date | undefined {
  if (!text || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text)) return undefined;
  const date = new Date(`${text.replace(' ', 'T')}+08:00`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
