import { parse } from 'lossless-json';
import { MalformedJsonError } from '#shared/http/request-errors';
import { formatDecimal, parseDecimal } from '#shared/domain/money';
import { validationError } from '#shared/http/validation';

/**
 * Request bodies as MugglePay's real clients send them, read losslessly.
 *
 * JSON.parse turns every number into a double: `9.999999999999999999999` arrives as 10 and
 * `11111111111111111111` as 11111111111111110000. Here numbers keep the text the client wrote,
 * so an amount too precise for its currency is refused (never rounded) and a numeric
 * merchant_order_id keeps its digits.
 */

/** A JSON number exactly as the request wrote it. Serializes as the number it reads as. */
export class JsonNumber {
  constructor(readonly text: string) {}

  toJSON(): number {
    return Number(this.text);
  }
}

/**
 * How an exact field's JSON number reaches the endpoint: 'decimal' as a plain decimal string
 * (`1e2` -> "100", `19.90` -> "19.9"); 'integer' as its digits (a fraction is refused).
 */
export type ExactField = 'decimal' | 'integer';

/**
 * Parses a request body. Duplicate keys with different values are refused (two readers of
 * the same body must never see two different requests); so is anything that is not JSON.
 */
export function parseJsonBody(text: string): unknown {
  try {
    return parse(text, null, (number) => new JsonNumber(number));
  } catch {
    // SyntaxError for bad JSON; RangeError for nesting deeper than the parser's stack.
    throw new MalformedJsonError();
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);

function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  // An own "__proto__" key stays a key (as JSON.parse makes it), never the object's prototype.
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function exactText(field: string, number: JsonNumber, kind: ExactField): string {
  const refuse = (type: string) => validationError({ instancePath: `/${field}`, schemaPath: '', keyword: 'type', params: { type }, message: `must be ${type}` }, 'body');
  let text: string;
  try {
    text = formatDecimal(parseDecimal(number.text));
  } catch {
    throw refuse(kind === 'integer' ? 'string,integer' : 'number');
  }
  if (kind === 'integer' && text.includes('.')) throw refuse('string,integer');
  return text;
}

/**
 * The leniency MugglePay's published clients need, applied before validation:
 * - `[]` (PHP's `json_encode(array())`) is no parameters, like `{}`;
 * - a top-level `""` or `null` is an absent field (the Go SDK sends every field, empty or not),
 *   except in an exact decimal field (an empty price is not a price);
 * - a JSON number in an `exact` field becomes its exact text (see {@link ExactField}); any
 *   other top-level number becomes a JS number for validation.
 * Unknown fields are left for the schema (the merchant schemas ignore them). Anything that
 * is not an object is returned as is, for the validator to refuse.
 */
export function lenientBody(value: unknown, exact: Readonly<Record<string, ExactField>> = {}): unknown {
  if (Array.isArray(value) && value.length === 0) return {};
  if (!isPlainObject(value)) return value instanceof JsonNumber ? Number(value.text) : value;
  const body: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const kind = Object.hasOwn(exact, key) ? exact[key] : undefined;
    // An empty amount is not an absent one: it is refused as the amount it fails to be.
    if ((field === null || field === '') && kind !== 'decimal') continue;
    if (field instanceof JsonNumber) {
      setKey(body, key, kind ? exactText(key, field, kind) : Number(field.text));
    } else {
      setKey(body, key, field);
    }
  }
  return body;
}
