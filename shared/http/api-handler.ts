import { type ApiInput, type ApiOptions, apiStack } from '#shared/http/api-stack';
import { idempotency, requestKeyOf } from '#shared/http/middlewares/idempotency';
import { tokenAuth } from '#shared/http/middlewares/token-auth';
import type { LambdaHandler, Result } from '#shared/http/middlewares/types';
import { rehashApiToken } from '#shared/store/api-tokens';

export type { ApiInput, ApiOptions } from '#shared/http/api-stack';
export type { LambdaHandler, StreamingLambdaHandler } from '#shared/http/middlewares/types';

/**
 * A write route's handler (`access: 'write'` in shared/http/routes.ts): the API's stack
 * (shared/http/api-stack.ts) with the Idempotency-Key middleware, and token auth that upgrades
 * a legacy token to its keyed hash. A read route uses shared/http/read-handler.ts's.
 */
export function apiHandler<TBody = undefined, TQuery = undefined>(options: ApiOptions<TBody, TQuery>, endpoint: (input: ApiInput<TBody, TQuery>) => Promise<Result>): LambdaHandler {
  return apiStack(options, { auth: () => tokenAuth(rehashApiToken), idempotency, requestKey: requestKeyOf }, endpoint);
}
