import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { RouteNotFoundError } from '#shared/http/request-errors';
import { errorResponse } from '#shared/http/errors';

/** The API's `$default` route: any unknown path or method gets the service's JSON 404, not API Gateway's. */
export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> => errorResponse(new RouteNotFoundError());
