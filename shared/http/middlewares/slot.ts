import type { Event } from '#shared/http/middlewares/types';

/**
 * A value a middleware learns of a request and hands on (to the middlewares after it and to the
 * endpoint), kept off the event's public shape. Each middleware owns its slot: the one that
 * writes it is the one module that defines it.
 */
export function requestSlot<T>(): { get: (event: Event) => T | undefined; set: (event: Event, value: T) => void } {
  const values = new WeakMap<Event, T>();
  return { get: (event) => values.get(event), set: (event, value) => void values.set(event, value) };
}
