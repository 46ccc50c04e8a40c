import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { LambdaHandler, StreamingLambdaHandler } from '#shared/http/api-handler';

/**
 * Lambda response streaming, locally, as AWS does it. In Lambda the runtime provides the global
 * `awslambda`: `streamifyResponse` marks a handler as streaming, and `HttpResponseStream.from`
 * makes the first write of the response stream a prelude (the JSON status, headers and cookies,
 * then 8 NUL bytes) that the function URL turns into the HTTP answer's head before it passes the
 * rest on as it comes. The local runtime installs the same global (middy reads it when a
 * streamed handler module loads) and, in place of the function URL, {@link FunctionUrlResponse}
 * reads the prelude and writes the body to the client chunk by chunk, backpressure included.
 */

const HANDLER_STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const STREAM_RESPONSE = 'response';
const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const DELIMITER = Buffer.alloc(8);

type WriteHook = (write: (chunk: string | Uint8Array) => void) => void;
interface PreludeStream extends Writable {
  setContentType(type: string): void;
  _onBeforeFirstWrite?: WriteHook;
}

/**
 * Installs the Lambda runtime's streaming members of the `awslambda` global where no runtime
 * did (call before loading handlers). The object may exist already: the AWS SDK's invoke store
 * creates it for its own member.
 */
export function installLambdaStreaming(): void {
  const scope = globalThis as { awslambda?: Record<string, unknown> };
  const runtime = (scope.awslambda ??= {});
  runtime.streamifyResponse ??= <T extends object>(handler: T): T => Object.assign(handler, { [HANDLER_STREAMING]: STREAM_RESPONSE });
  runtime.HttpResponseStream ??= {
    from(stream: PreludeStream, prelude: Record<string, unknown>): PreludeStream {
      stream.setContentType(PRELUDE_CONTENT_TYPE);
      const metadata = JSON.stringify(prelude);
      stream._onBeforeFirstWrite = (write) => {
        write(metadata);
        write(new Uint8Array(DELIMITER.length));
      };
      return stream;
    },
  };
}

/**
 * The same global as source code, for a bundle loaded in a fresh `node` the way a Lambda cold
 * start loads it (the bundling test, the bundle bench): the Lambda runtime defines it before
 * loading any handler, and a streamed route's handler needs it at load.
 */
export const LAMBDA_RUNTIME_GLOBAL_SOURCE =
  "globalThis.awslambda ??= {}; globalThis.awslambda.streamifyResponse ??= (handler) => Object.assign(handler, { [Symbol.for('aws.lambda.runtime.handler.streaming')]: 'response' });";

/** Whether a handler is a streaming one: the mark the Lambda runtime itself looks for. */
export function isStreamingHandler(handler: LambdaHandler | StreamingLambdaHandler): handler is StreamingLambdaHandler {
  return (handler as unknown as Record<symbol, unknown>)[HANDLER_STREAMING] === STREAM_RESPONSE;
}

/**
 * The response stream a streaming handler writes to, read as a function URL reads it: the
 * prelude becomes the status and headers (no content-length, so Node answers chunked), every
 * later chunk is written to the client when it comes, and a write waits for the client's
 * 'drain' when its buffer is full. Destroyed with an error after the head went out, it ends
 * the connection without the last chunk: the client sees a cut transfer, not a whole file.
 */
export class FunctionUrlResponse extends Writable implements PreludeStream {
  _onBeforeFirstWrite?: WriteHook;
  private contentType = 'application/octet-stream';
  private started = false;
  private pending = Buffer.alloc(0);

  constructor(private readonly response: ServerResponse) {
    super();
  }

  setContentType(type: string): void {
    this.contentType = type;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.forward(Buffer.concat([...this.begin(), chunk]), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.forward(Buffer.concat(this.begin()), (error) => {
      if (error) return callback(error);
      if (!this.response.headersSent) this.writeHead({ statusCode: 200, headers: { 'content-type': this.contentType } });
      this.response.end(() => callback());
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Ending the socket (not destroying it) lets what was written go out first.
    if (error && this.response.headersSent && !this.response.writableFinished) this.response.socket?.end();
    callback(error);
  }

  /** The bytes the prelude hook writes before the first write (once). */
  private begin(): Buffer[] {
    if (this.started) return [];
    this.started = true;
    const early: Buffer[] = [];
    this._onBeforeFirstWrite?.((chunk) => early.push(Buffer.from(chunk)));
    return early;
  }

  private forward(bytes: Buffer, callback: (error?: Error | null) => void): void {
    let body = bytes;
    if (!this.response.headersSent) {
      if (this.contentType !== PRELUDE_CONTENT_TYPE) this.writeHead({ statusCode: 200, headers: { 'content-type': this.contentType } });
      else {
        this.pending = Buffer.concat([this.pending, bytes]);
        const end = this.pending.indexOf(DELIMITER);
        if (end < 0) return callback();
        try {
          this.writeHead(JSON.parse(this.pending.subarray(0, end).toString('utf8')) as Prelude);
        } catch (error) {
          return callback(error as Error);
        }
        body = this.pending.subarray(end + DELIMITER.length);
        this.pending = Buffer.alloc(0);
      }
    }
    if (body.length === 0 || this.response.write(body)) return callback();
    this.response.once('drain', () => callback());
  }

  private writeHead(prelude: Prelude): void {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(prelude.headers ?? {})) headers[name.toLowerCase()] = String(value);
    if (prelude.cookies?.length) headers['set-cookie'] = prelude.cookies;
    this.response.writeHead(prelude.statusCode ?? 200, headers);
  }
}

interface Prelude {
  statusCode?: number;
  headers?: Record<string, string | number | boolean>;
  cookies?: string[];
}

/**
 * Runs a streaming handler for one request, as Lambda and its function URL would. An error
 * before the head went out is thrown (the adapter answers its JSON error, as for any handler);
 * after it, the answer is already cut (see {@link FunctionUrlResponse}) and the error is dropped
 * here: the handler has logged it.
 */
export async function streamAnswer(handler: StreamingLambdaHandler, event: APIGatewayProxyEventV2, context: Context, response: ServerResponse): Promise<void> {
  const stream = new FunctionUrlResponse(response);
  // The client went away: the handler's pipeline sees its stream fail and stops reading pages.
  response.on('close', () => {
    if (!response.writableFinished) stream.destroy(new Error('the client closed the connection'));
  });
  try {
    await handler(event, stream, context);
    // Lambda ends the response when the handler's promise settles.
    if (!stream.writableEnded && !stream.destroyed) await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
  } catch (error) {
    if (!response.headersSent) throw error;
    if (!stream.destroyed) stream.destroy(error as Error);
  }
}
