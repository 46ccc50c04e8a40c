import { type ApiInput, type ApiOptions, apiStack } from '#shared/http/api-stack';
import { tokenAuth } from '#shared/http/middlewares/token-auth';
import type { LambdaHandler, Result } from '#shared/http/middlewares/types';

/**
 * A read route's handler (`access: 'read'` in shared/http/routes.ts, whose role may read the
 * table and write only its quota and token-use counters): the API's stack
 * (shared/http/api-stack.ts) without the Idempotency-Key (a read makes nothing a retry could
 * make twice, so a key sent is ignored) and without the legacy token upgrade, so that the
 * function's bundle carries no write its role refuses. tests/infra/permissions.test.ts holds
 * every read function to it.
 */
export function readApiHandler<TBody = undefined, TQuery = undefined>(options: ApiOptions<TBody, TQuery>, endpoint: (input: ApiInput<TBody, TQuery>) => Promise<Result>): LambdaHandler {
  return apiStack(options, { auth: () => tokenAuth() }, endpoint);
}
