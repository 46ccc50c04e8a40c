import { randomUUID } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Order and invoice ids: random UUIDs (122 random bits; the order id is the payment page's only capability). */
export const newId = (): string => randomUUID();

/** Ids we issued have this shape; anything else is answered as "not found" without a read. */
export const isId = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
