import type { Dispatcher } from 'undici';
import Agent from 'undici/lib/dispatcher/agent.js';
import dispatchRequest from 'undici/lib/api/api-request.js';
import buildConnector from 'undici/lib/core/connect.js';
import errors from 'undici/lib/core/errors.js';

/**
 * The parts of undici (version pinned in package.json) the callback transport uses, each from
 * its own module. undici's entry point loads all of undici (fetch, WebSocket, caches, mocks:
 * 535 KB minified, and CommonJS, so a bundler cannot drop what is unused); an Agent, its
 * connector, its errors and `request` are 290 KB of that, which keeps deliver-callback's cold
 * start in its goal. Types come from undici's own declarations (undici-modules.d.ts).
 */
export { Agent, buildConnector, errors };

/** undici's `dispatcher.request(options)`: resolves once the status and headers are in. */
export const request = (dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> =>
  dispatchRequest.call(dispatcher, options);
