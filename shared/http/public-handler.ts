import { type ApiInput, type ApiOptions, apiStack } from '#shared/http/api-stack';
import { idempotency, requestKeyOf } from '#shared/http/middlewares/idempotency';
import type { LambdaHandler, Result } from '#shared/http/middlewares/types';

/**
 * The buyer's pages' routes (`public: true` in shared/http/routes.ts): the API's stack
 * (shared/http/api-stack.ts) with no token authentication, so that a public function's bundle,
 * and so its role, carries none of it (the token key's parameter, the token items): the
 * unguessable id in the path (an order's, a link's, a plan's) or the secret in the body is the
 * only capability. A write route keeps the Idempotency-Key (its keys scoped to the buyer's
 * resource); a read route has none. tests/infra/permissions.test.ts holds every public function
 * to it.
 */
export function publicHandler<TBody = undefined, TQuery = undefined>(options: ApiOptions<TBody, TQuery>, endpoint: (input: ApiInput<TBody, TQuery>) => Promise<Result>): LambdaHandler {
  return apiStack(options, { idempotency, requestKey: requestKeyOf }, endpoint);
}

/** A public read route's handler ({@link publicHandler} without the Idempotency-Key: a read makes nothing a retry could make twice). */
export function publicReadHandler<TBody = undefined, TQuery = undefined>(options: ApiOptions<TBody, TQuery>, endpoint: (input: ApiInput<TBody, TQuery>) => Promise<Result>): LambdaHandler {
  return apiStack(options, {}, endpoint);
}
