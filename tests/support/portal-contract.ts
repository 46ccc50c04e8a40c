import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ROUTES, type Route } from '#shared/http/routes';
import { SCHEMA_FORMATS } from '#shared/http/validation';
import { PORTAL_RESPONSE_SCHEMAS, PORTAL_RESPONSES } from '#shared/schemas/portal-responses';

/**
 * The portal's contract in the tests: every JSON answer of a portal route is held against the
 * schema its route declares (shared/schemas/portal-responses.ts), the one the portal's client
 * reads. PortalBrowser (tests/support/portal.ts) checks each 200 it gets, so every portal
 * integration test checks the answers it sees.
 */
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats(ajv);
for (const [name, validate] of Object.entries(SCHEMA_FORMATS)) ajv.addFormat(name, validate);
for (const schema of PORTAL_RESPONSE_SCHEMAS) ajv.addSchema(schema);

const PORTAL_ROUTES = ROUTES.filter((route) => route.portal).map((route) => ({
  route,
  pattern: new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** The portal route a request is for (a literal path wins over a parameter: /orders/export). */
export function portalRouteOf(method: string, path: string): Route | undefined {
  const bare = path.split('?')[0]!;
  const matches = PORTAL_ROUTES.filter(({ route, pattern }) => route.method === method && pattern.test(bare)).map(({ route }) => route);
  return matches.find((route) => !route.path.includes('{')) ?? matches[0];
}

/** Why a 200 answer of a portal route does not match its schema ([] when it does, or when the route streams CSV). */
export function portalAnswerProblems(method: string, path: string, body: unknown): string[] {
  const route = portalRouteOf(method, path);
  if (!route) return [`${method} ${path} is no portal route`];
  if (route.stream) return [];
  const schema = (PORTAL_RESPONSES as Readonly<Record<string, { $id: string }>>)[route.fn];
  if (!schema) return [`${route.fn} declares no answer schema in PORTAL_RESPONSES`];
  const validate = ajv.getSchema(schema.$id)!;
  if (validate(body)) return [];
  return (validate.errors ?? []).map((error) => `${schema.$id}${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`);
}
