import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

/** Every answer of the API: JSON with the given HTTP status. */
export function json(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}
