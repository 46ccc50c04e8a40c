import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ServiceUnavailableError } from '#shared/domain/errors';
import { MAX_BODY_BYTES } from '#shared/domain/limits';
import { bodyText } from '#shared/http/middlewares/body';
import type { LambdaHandler } from '#shared/http/middlewares/types';
import { logger } from '#shared/core/logger';
import { takeGatewayNotification } from '#shared/services/gateway-payments';

type Result = APIGatewayProxyStructuredResultV2;

/** What a gateway expects back: taken, refused (nothing changed), or "try again later". */
export interface NotifyAnswers {
  accepted: Result;
  rejected: Result;
  unavailable: Result;
}

const text = (statusCode: number, body: string): Result => ({
  statusCode,
  headers: { 'content-type': 'text/plain; charset=utf-8' },
  body,
});

/** Alipay reads the body: exactly `success` stops its retries; anything else (`fail`) is retried. */
export const ALIPAY_ANSWERS: NotifyAnswers = {
  accepted: text(200, 'success'),
  rejected: text(400, 'fail'),
  unavailable: text(503, 'fail'),
};

const fail = (statusCode: number, message: string): Result => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ code: 'FAIL', message }),
});

/** WeChat Pay: 200/204 without a body is taken; 4xx/5xx with `{"code": "FAIL", "message"}` is retried by WeChat. */
export const WECHAT_ANSWERS: NotifyAnswers = {
  accepted: { statusCode: 204 },
  rejected: fail(400, 'notification refused'),
  unavailable: fail(503, 'try again later'),
};

/**
 * A gateway's notification endpoint. No token, no JSON parsing: the raw body and headers go
 * to the gateway adapter, which verifies the signature before anything is read; the answer is
 * the one the gateway expects. Never a 5xx for what a sender controls (a forged, malformed or
 * oversized notification is `rejected`); 503 only when we cannot decide now (the gateway retries).
 */
export function gatewayNotifyHandler(code: string, answers: NotifyAnswers): LambdaHandler {
  return async (event: APIGatewayProxyEventV2) => {
    const body = bodyText(event);
    if (Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) return answers.rejected;
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
    try {
      const verdict = await takeGatewayNotification(code, { headers, body }, new Date());
      return answers[verdict];
    } catch (error) {
      if (!(error instanceof ServiceUnavailableError)) logger.error('gateway notification failed', { gateway: code, error: error as Error });
      else logger.warn('gateway notification deferred', { gateway: code, reason: String((error as Error).cause ?? error) });
      return answers.unavailable;
    }
  };
}
