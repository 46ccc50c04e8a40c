import type { ValidateFunction } from 'ajv';
import { validationError } from '#shared/http/validation';
import { requestSlot } from '#shared/http/middlewares/slot';
import type { Middleware } from '#shared/http/middlewares/types';

/** The compiled schemas of a route's input (shared/http/validators.generated.ts). */
export interface InputSchemas<TBody, TQuery> {
  /** The body's schema; routes without one read no body. */
  body?: ValidateFunction<TBody>;
  query?: ValidateFunction<TQuery>;
}

const inputs = requestSlot<{ body?: unknown; query?: unknown }>();

/** The request's validated body and query, as {@link validator} left them. */
export const validatedInput = inputs.get;

/**
 * Validates the parsed body (shared/http/middlewares/body.ts) and a copy of the query string
 * with the route's precompiled schemas; the first error becomes the API's 400 naming the field
 * (shared/http/validation.ts).
 */
export const validator = <TBody, TQuery>(schemas: InputSchemas<TBody, TQuery>): Middleware => ({
  before: ({ event }) => {
    const valid: { body?: unknown; query?: unknown } = {};
    if (schemas.body) {
      const body: unknown = event.body;
      if (!schemas.body(body)) throw validationError(schemas.body.errors?.[0], 'body');
      valid.body = body;
    }
    if (schemas.query) {
      // Coercion mutates its input: validate a copy, never the event.
      const query = { ...(event.queryStringParameters ?? {}) };
      if (!schemas.query(query)) throw validationError(schemas.query.errors?.[0], 'query');
      valid.query = query;
    }
    inputs.set(event, valid);
  },
});
