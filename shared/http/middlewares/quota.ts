import { quotaConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { RateLimitedError } from '#shared/domain/errors';
import { errorResponse } from '#shared/http/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { merchantOf } from '#shared/http/middlewares/token-auth';
import type { Event, Middleware } from '#shared/http/middlewares/types';
import { clientAddressKey, type Take, takeFromWindow, windowLimit, WindowHeadroom } from '#shared/store/quotas';

/**
 * The quota key of a request: its merchant (`M<user_id>`), or for the payment page's routes its
 * source address as API Gateway saw the connection (`P<address>`, IPv6 by /64). Never a header:
 * X-Forwarded-For is whatever the client wrote, and would let it pick a fresh quota per request.
 */
export function quotaClient(event: Event, merchant: MerchantProfile | undefined): string {
  return merchant ? `M${merchant.user_id}` : `P${clientAddressKey(event.requestContext?.http?.sourceIp ?? 'unknown')}`;
}

/** This container's view of its clients' windows: one for every route, as a container serves one. */
const headroom = new WindowHeadroom();

/**
 * Counts the request against its client's quota in the table (QUOTA_STORE=table, as the AWS
 * stack and the local runtime set it) and refuses it with 429 and Retry-After when the quota is used up. It runs
 * after authentication (shared/http/middlewares/token-auth.ts), so a merchant's quota counts
 * only its own requests. A request well inside its client's quota, as this container last heard
 * it, is answered without waiting for its count (`WindowHeadroom`): the count is still made, and
 * its answer decides whether the next requests wait for theirs. If the table cannot count (down,
 * not throttling), the request goes on: API Gateway's route limits still hold, and a quota outage
 * must not become a service outage.
 *
 * A GET route only reads (each is declared `access: 'read'`: its role may write nothing but
 * its quota), so its count runs beside the endpoint's own reads instead of a round trip before
 * them, and a refused request's answer is replaced by the 429 (whatever the endpoint answered,
 * an error too). The refused read is the price: docs/security.md, "Request quotas".
 */
export const quota = (kind: 'merchant' | 'public'): Middleware => {
  const counting = new WeakMap<Event, Promise<Take | undefined>>();
  const refusal = (taken: Take | undefined) => (taken && !taken.allowed ? new RateLimitedError(taken.retryAfterSeconds) : undefined);
  /** The count of a GET begun in `before`, awaited once. */
  const counted = async (event: Event) => {
    const taking = counting.get(event);
    counting.delete(event);
    return taking ? refusal(await taking) : undefined;
  };
  return {
    before: async ({ event }) => {
      const config = quotaConfig();
      const { rate, burst } = config[kind];
      if (config.store !== 'table' || rate === 0) return;
      const client = quotaClient(event, merchantOf(event));
      const limit = windowLimit(rate, burst);
      const now = Date.now();
      const { ahead, answered } = headroom.begin(client, limit, now);
      const count = () =>
        takeFromWindow(client, limit, now).then(
          (taken) => (answered(taken), taken),
          (error: unknown) => {
            logger.warn('request quota not counted; the request goes on', { error: String(error) });
            answered(undefined);
            return undefined;
          },
        );
      // Ahead of its count, the request's own work goes first: the count is sent once that waits on I/O.
      if (ahead) return void setImmediate(count);
      const taking = count();
      if (event.requestContext?.http?.method === 'GET') {
        counting.set(event, taking);
        return;
      }
      const refused = refusal(await taking);
      if (refused) throw refused;
    },
    after: async ({ event }) => {
      const refused = await counted(event);
      if (refused) throw refused;
    },
    // After the error mapper's (middy runs onError last-used first): a refused GET answers 429 whatever failed.
    onError: async (request) => {
      const refused = await counted(request.event);
      if (refused) request.response = errorResponse(refused);
    },
  };
};
