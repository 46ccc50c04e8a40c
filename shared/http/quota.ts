import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { quotaConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { clientAddressKey } from '#shared/core/token-bucket';
import { AuthenticationError, RateLimitedError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { takeFromWindow, windowLimit } from '#shared/store/quotas';

type Event = APIGatewayProxyEventV2;

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
 * after authentication, so a merchant's quota counts only its own requests. If the table cannot
 * count (down, not throttling), the request goes on: API Gateway's route limits still hold,
 * and a quota outage must not become a service outage.
 */
export const quota = (
  kind: 'merchant' | 'public',
  merchantOf: (event: Event) => MerchantProfile | undefined,
): middy.MiddlewareObj<Event, APIGatewayProxyStructuredResultV2> => ({
  before: async (request) => {
    const config = quotaConfig();
    const { rate, burst } = config[kind];
    if (config.store !== 'table' || rate === 0) return;
    let taken;
    try {
      taken = await takeFromWindow(quotaClient(request.event, merchantOf(request.event)), windowLimit(rate, burst));
    } catch (error) {
      logger.warn('request quota not counted; the request goes on', { error: String(error) });
      return;
    }
    if (!taken.allowed) throw new RateLimitedError(taken.retryAfterSeconds);
  },
});

/** The quota key of a client address's failed authentications. */
export const authFailureClient = (address: string): string => `A${clientAddressKey(address)}`;

/**
 * Counts a failed authentication against its client address (QUOTA_STORE=table: in the table,
 * one conditional write per failure, none for a success) and answers the error to throw: the
 * 401 while the address is within its budget, a 429 with Retry-After past it. Only failures are
 * counted and only failures are refused, so a good token from the same address (a shop behind
 * the same NAT as an attacker) always goes through. If the table cannot count, the 401 stands.
 */
export async function failedAuthentication(event: Event, error: unknown): Promise<unknown> {
  const config = quotaConfig();
  if (!(error instanceof AuthenticationError) || config.store !== 'table' || config.authFailures.limit === 0) return error;
  try {
    const taken = await takeFromWindow(authFailureClient(event.requestContext?.http?.sourceIp ?? 'unknown'), config.authFailures);
    return taken.allowed ? error : new RateLimitedError(taken.retryAfterSeconds);
  } catch (storeError) {
    logger.warn('failed authentication not counted', { error: String(storeError) });
    return error;
  }
}
