import { quotaConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { clientAddressKey } from '#shared/core/token-bucket';
import { RateLimitedError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { merchantOf } from '#shared/http/middlewares/token-auth';
import type { Event, Middleware } from '#shared/http/middlewares/types';
import { takeFromWindow, windowLimit } from '#shared/store/quotas';

/**
 * The quota key of a request: its merchant (`M<user_id>`), or for the payment page's routes its
 * source address as API Gateway saw the connection (`P<address>`, IPv6 by /64). Never a header:
 * X-Forwarded-For is whatever the client wrote, and would let it pick a fresh quota per request.
 */
export function quotaClient(event: Event, merchant: MerchantProfile | undefined): string {
  return merchant ? `M${merchant.user_id}` : `P${clientAddressKey(event.requestContext?.http?.sourceIp ?? 'unknown')}`;
}

/**
 * Counts the request against its client's quota in the table (QUOTA_STORE=table, as the AWS
 * stack sets it) and refuses it with 429 and Retry-After when the quota is used up. It runs
 * after authentication (shared/http/middlewares/token-auth.ts), so a merchant's quota counts
 * only its own requests. If the table cannot count (down, not throttling), the request goes on:
 * API Gateway's route limits still hold, and a quota outage must not become a service outage.
 */
export const quota = (kind: 'merchant' | 'public'): Middleware => ({
  before: async ({ event }) => {
    const config = quotaConfig();
    const { rate, burst } = config[kind];
    if (config.store !== 'table' || rate === 0) return;
    let taken;
    try {
      taken = await takeFromWindow(quotaClient(event, merchantOf(event)), windowLimit(rate, burst));
    } catch (error) {
      logger.warn('request quota not counted; the request goes on', { error: String(error) });
      return;
    }
    if (!taken.allowed) throw new RateLimitedError(taken.retryAfterSeconds);
  },
});
