import type middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '#shared/core/logger';
import type { Event, Result } from '#shared/http/middlewares/types';

/**
 * The first middlewares of every stack, on a new middy instance: the log lines of a request
 * carry its Lambda context (keys reset between requests), absent collections of the event read
 * as empty, header names are lower case.
 */
export function normalized(stack: middy.MiddyfiedHandler<Event, Result>): middy.MiddyfiedHandler<Event, Result> {
  // middy widens the event type with each of these (to API Gateway v1's and v2's together): the stack keeps v2's.
  stack.use(injectLambdaContext(logger, { resetKeys: true }));
  stack.use(httpEventNormalizer());
  stack.use(httpHeaderNormalizer());
  return stack;
}
