import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Ids of orders without a merchant_order_id: random UUIDs (122 random bits; the order id is the
 * payment page's only capability). Orders with one get orderIdFor's, invoices newTimeOrderedId's.
 */
export const newId = (): string => randomUUID();

/**
 * Invoice ids: UUID version 7 (48-bit millisecond time, then 74 random bits), so an order's
 * invoices sort by creation and its latest one is read first. Not a capability (the order id is).
 */
export function newTimeOrderedId(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return formatUuid(bytes);
}

function formatUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Ids we issued have this shape; anything else is answered as "not found" without a read. */
export const isId = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/**
 * The id of a merchant's order with `merchantOrderId`: a UUID (version 8) made of the first
 * 122 bits of HMAC-SHA256 under the merchant's own secret `key`. The same reference always
 * gives the same id, so the order item itself makes the reference unique (one conditional
 * PutItem, no guard item or transaction); without the key the id is as unguessable as a
 * random one (the reference is often a guessable number, the id is a capability).
 */
export function orderIdFor(key: string, userId: number, merchantOrderId: string): string {
  const bytes = createHmac('sha256', Buffer.from(key, 'hex')).update(`${userId}\n${merchantOrderId}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return formatUuid(bytes);
}

/**
 * The id a request makes, the same on every try of it: a UUID (version 8) of SHA-256 over
 * `parts` (a kind, what it belongs to, the request's Idempotency-Key hashed with its merchant),
 * so a retry whose first try wrote its item and then failed finds that item instead of making
 * a second one.
 */
export function requestIdFor(...parts: readonly string[]): string {
  const bytes = createHash('sha256').update(parts.join('\n')).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return formatUuid(bytes);
}
