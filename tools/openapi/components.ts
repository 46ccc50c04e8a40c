import { ROUTES } from '#shared/http/routes';
import { PORTAL_RESPONSE_SCHEMAS } from '#shared/schemas/portal-responses';
import { RESPONSE_SCHEMAS } from '#shared/schemas/response-catalog';

/** The document's components: every named schema once, its `$id` turned into the component name. */

/** A JSON Schema with an `$id`: it becomes `#/components/schemas/<$id>`. */
export interface NamedSchema {
  readonly $id: string;
}

/**
 * The request bodies the merchant API's and the page's routes declare (shared/http/routes.ts),
 * each once; the portal's are inlined in their operations, and queries become parameters.
 */
const REQUEST_BODIES: readonly NamedSchema[] = [...new Set(ROUTES.flatMap((route) => (route.body && !route.portal ? [route.body] : [])))];

/** Request bodies and responses (the merchant API's, the page's, the portal's). */
export const NAMED_SCHEMAS: readonly NamedSchema[] = [...REQUEST_BODIES, ...RESPONSE_SCHEMAS, ...PORTAL_RESPONSE_SCHEMAS];

export const COMPONENT_NAMES: ReadonlySet<string> = new Set(NAMED_SCHEMAS.map((schema) => schema.$id));

export function componentRef(name: string): string {
  if (!COMPONENT_NAMES.has(name)) throw new Error(`OpenAPI: "${name}" is not a named schema`);
  return `#/components/schemas/${name}`;
}

/** `{$ref}` to a named schema's component. */
export const ref = (schema: NamedSchema) => ({ $ref: componentRef(schema.$id) });

/**
 * A copy of a JSON Schema as an OpenAPI component: `$id` dropped (the component key names it)
 * and relative `$ref`s (`'Order'`) pointed at the components. Our schemas have no property
 * literally named `$id` or `$ref`, so a plain walk is enough.
 */
export function toComponent(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toComponent);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id') continue;
    copy[key] = key === '$ref' ? componentRef(String(value)) : toComponent(value);
  }
  return copy;
}

export function buildComponentSchemas(): Record<string, unknown> {
  if (COMPONENT_NAMES.size !== NAMED_SCHEMAS.length) throw new Error('OpenAPI: two schemas share an $id');
  return Object.fromEntries(NAMED_SCHEMAS.map((schema) => [schema.$id, toComponent(schema)]));
}
