import { errorResponse } from '#shared/http/errors';
import type { Middleware } from '#shared/http/middlewares/types';

/**
 * Last in the chain, so its onError runs first and every failure becomes a JSON answer
 * (shared/http/errors.ts). `translate` lets a stack answer an error as another (the portal's
 * "no such order" is its own 404).
 */
export const errorMapper = (translate: (error: unknown) => unknown = (error) => error): Middleware => ({
  onError: (request) => {
    request.response = errorResponse(translate(request.error));
  },
});
