import type { LambdaHandler, StreamingLambdaHandler } from '#shared/http/api-handler';
import { ROUTES } from '#shared/http/routes';
import { installLambdaStreaming } from '#infra/local/lambda-streaming';

// Streamed handlers (middy's streamifyResponse) need the Lambda runtime's global when they load.
installLambdaStreaming();

type HandlerModule = { handler: LambdaHandler | StreamingLambdaHandler };

/** Loads once, then hands out the same module, as a warm Lambda would (import() per call is slow under tsx). */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

/**
 * The handler module of each route's function (functions/<fn>/handler.ts, as the route table
 * names it), loaded on first use like a Lambda cold start (after the runtime has set the
 * environment the handlers' config reads). The event-driven functions are not here: the local
 * runtime's pollers and timers load those themselves. A relative path with its extension, so
 * that esbuild bundles every handler when the runtime is bundled (the tests' runtimes are).
 */
export const apiFunctions: Record<string, () => Promise<HandlerModule>> = Object.fromEntries(
  [...new Set(ROUTES.map((route) => route.fn))].map((fn) => [fn, once(() => import(`../../functions/${fn}/handler.ts`) as Promise<HandlerModule>)]),
);
