import type { ErrorObject, ValidateFunction } from 'ajv';
import { isMailbox } from '#shared/domain/email-address';
import { InvalidParameterError, InvalidPriceError, ParametersMissingError } from '#shared/domain/errors';

/** The `email-address-or-empty` format: an address as {@link isMailbox} takes one, or '' for none. */
export const isMailboxOrEmpty = (value: string): boolean => value === '' || isMailbox(value);

/**
 * The schemas' own formats, declared once: the generated validators read them, and every ajv
 * that compiles the schemas elsewhere (the OpenAPI document's, the tests') adds them.
 */
export const SCHEMA_FORMATS = { 'http-url': isHttpUrl, 'email-address': isMailbox, 'email-address-or-empty': isMailboxOrEmpty } as const;

/** The `http-url` format of the schemas: an absolute http(s) URL, or '' for none. */
export function isHttpUrl(value: string): boolean {
  if (value === '') return true;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A query integer as people write one: optional minus, at most 15 digits (no "Infinity", "1e3", "0x10"). */
const INTEGER_TEXT = /^-?\d{1,15}$/;

/**
 * Wraps a precompiled query validator (shared/http/validators.generated.ts, compiled with
 * `coerceTypes`). ajv's coercion turns "Infinity" into a number that passes `integer` and
 * `maximum`, and reads "0x10" as 16; the schema's integer parameters are therefore checked as
 * text first, then coerced.
 */
export function queryValidator<T>(coerced: ValidateFunction<T>, schema: { properties?: Record<string, { type?: unknown }> }): ValidateFunction<T> {
  const integers = Object.entries(schema.properties ?? {})
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
  const validate = ((data: Record<string, unknown>) => {
    const bad = integers.find((name) => data[name] !== undefined && !INTEGER_TEXT.test(String(data[name])));
    if (bad !== undefined) {
      validate.errors = [{ instancePath: `/${bad}`, schemaPath: '', keyword: 'type', params: { type: 'integer' }, message: 'must be integer' }];
      return false;
    }
    const valid = coerced(data);
    validate.errors = coerced.errors;
    return valid;
  }) as ValidateFunction<T>;
  return validate;
}

function fieldOf(error: ErrorObject): string {
  return error.instancePath.replace(/^\//, '').replaceAll('/', '.');
}

/** Turns ajv's first error into the API's error, naming the field. */
export function validationError(error: ErrorObject | undefined, where: 'body' | 'query'): Error {
  if (!error) return new InvalidParameterError(`Invalid ${where}`);
  const field = fieldOf(error);
  if (field === 'price_amount') return new InvalidPriceError(error.message);
  switch (error.keyword) {
    case 'required':
      return new ParametersMissingError(String(error.params.missingProperty));
    case 'additionalProperties':
      return new InvalidParameterError(`Unknown parameter: ${String(error.params.additionalProperty)}`);
    case 'enum':
      return new InvalidParameterError(`${field} must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`);
    case 'maxLength':
      return new InvalidParameterError(`${field} must be at most ${String(error.params.limit)} characters`);
    case 'format':
      if (error.params.format === 'http-url') return new InvalidParameterError(`${field} must be an absolute http or https URL`);
      // The reason of shared/domain/email-address.ts is the service's (orders, preferences); here the shape.
      return new InvalidParameterError(`${field} must be one email address, local@domain (no name, list, group, quotes or encoded word)`);
    case 'type':
      if (field === '') return new InvalidParameterError(`Request ${where} must be a JSON object`);
      return new InvalidParameterError(`${field} must be ${String(error.params.type).replace(',', ' or ')}`);
    default:
      return new InvalidParameterError(`${field || where} ${error.message ?? 'is not valid'}`);
  }
}
