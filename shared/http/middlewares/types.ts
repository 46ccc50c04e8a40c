import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

/** What every middleware of the HTTP stack sees: an API Gateway v2 (HTTP API) request and its answer. */
export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;
export type Request = middy.Request<Event, Result, Error, Context>;
export type Middleware = middy.MiddlewareObj<Event, Result>;

/** An API Gateway v2 (HTTP API) Lambda handler. */
export type LambdaHandler = (event: Event, context: Context) => Promise<Result>;

/**
 * A Lambda response-streaming handler (`awslambda.streamifyResponse`): it writes its answer to
 * the response stream (a function URL in RESPONSE_STREAM mode reads the status and headers from
 * the stream's prelude). Routes with `stream: true` (shared/http/routes.ts) have one.
 */
export type StreamingLambdaHandler = (event: Event, responseStream: NodeJS.WritableStream, context: Context) => Promise<void>;
