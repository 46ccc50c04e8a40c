/**
 * `npm run validators`: writes shared/http/validators.generated.ts, the request validators as
 * ajv standalone code, so the Lambda bundles neither carry ajv's compiler nor compile schemas
 * at module load. `npm run validators -- --check`: writes nothing; exits 1 when the committed
 * file differs from what would be generated. tests/unit/validators.test.ts checks the same.
 *
 * What to generate is derived, not listed: one validator per request schema a route declares
 * (shared/http/routes.ts `body`/`query`; queries coerce), named after the schema's `$id`
 * ({@link validatorName}) and typed with the type its module declares of it (`FromSchema<typeof
 * ...>`). The handlers import theirs by that name; tests/unit/route-schemas.test.ts checks each
 * handler's bundle uses exactly the validators its route declares.
 *
 * Only this build imports ajv's compiler; the generated code needs nothing of ajv at run time
 * but its small `ajv/dist/runtime/*` helpers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv, { _, type AnySchemaObject, type Options } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { ROUTES, type RequestSchema, type Route } from '#shared/http/routes';
import { SCHEMA_FORMATS } from '#shared/http/validation';

export const VALIDATORS_FILE = fileURLToPath(new URL('../shared/http/validators.generated.ts', import.meta.url));

const SCHEMAS_DIR = fileURLToPath(new URL('../shared/schemas/', import.meta.url));

export interface ValidatorSpec {
  schema: AnySchemaObject & RequestSchema;
  /** The TypeScript type the validator guarantees: the one its schema's module declares of it. */
  type: { name: string; module: string };
  /** Query strings: ajv turns "20" into 20 (and refuses "abc", "1.5"). Bodies are never coerced. */
  coerce?: boolean;
}

/** The generated validator of a request schema: its `$id` in lower camel case (`CreateOrderBody`: `createOrderBody`). */
export const validatorName = (schema: RequestSchema): string => schema.$id.charAt(0).toLowerCase() + schema.$id.slice(1);

/**
 * The type shared/schemas/ declares of the schema whose `$id` is `id`: the module has
 * `export const <name> = { $id: '<id>', ...` and `export type <Type> = FromSchema<typeof <name>...>`
 * (or its own alias of FromSchema). Read from the source, so no list of type names is kept here.
 */
function declaredType(id: string): { name: string; module: string } {
  const found: { name: string; module: string }[] = [];
  for (const file of readdirSync(SCHEMAS_DIR)
    .filter((name) => name.endsWith('.ts'))
    .sort()) {
    const source = readFileSync(`${SCHEMAS_DIR}${file}`, 'utf8');
    const at = source.indexOf(`$id: '${id}'`);
    if (at < 0) continue;
    const constant = [...source.slice(0, at).matchAll(/export const (\w+) = \{/g)].at(-1)?.[1];
    const types = constant ? [...source.matchAll(new RegExp(`export type (\\w+) = \\w+<typeof ${constant}\\b`, 'g'))].map((match) => match[1]!) : [];
    if (types.length !== 1)
      throw new Error(
        `shared/schemas/${file}: the schema ${id} (${constant ?? 'no export const'}) needs exactly one \`export type X = FromSchema<typeof ${constant ?? '...'}>\`, found ${types.length}`,
      );
    found.push({ name: types[0]!, module: `#shared/schemas/${file.slice(0, -'.ts'.length)}` });
  }
  if (found.length !== 1) throw new Error(`the request schema ${id} is declared in ${found.length} modules of shared/schemas/, not one`);
  return found[0]!;
}

/**
 * Every request schema a route declares (shared/http/routes.ts `body` and `query`), by the name
 * the generated module exports, in the route table's order. A schema declared as a body and as a
 * query, or two schemas with one `$id`, fail the build.
 */
export function validatorsOf(routes: readonly Route[]): Record<string, ValidatorSpec> {
  const specs: Record<string, ValidatorSpec> = {};
  for (const route of routes) {
    for (const [schema, coerce] of [
      [route.body, false],
      [route.query, true],
    ] as const) {
      if (!schema) continue;
      const name = validatorName(schema);
      const known = specs[name];
      if (known) {
        if (known.schema !== schema) throw new Error(`two request schemas have the $id ${schema.$id}`);
        if ((known.coerce === true) !== coerce) throw new Error(`${schema.$id} is declared as a body and as a query`);
        continue;
      }
      specs[name] = { schema: schema as ValidatorSpec['schema'], type: declaredType(schema.$id), ...(coerce ? { coerce } : {}) };
    }
  }
  return specs;
}

/** Every request schema a handler validates, by the name the generated module exports. */
export const VALIDATORS: Record<string, ValidatorSpec> = validatorsOf(ROUTES);

/** The validators' types, imported from their schemas' modules (one import per module). */
function typeImports(specs: readonly ValidatorSpec[]): string[] {
  const byModule = new Map<string, Set<string>>();
  for (const { type } of specs) byModule.set(type.module, (byModule.get(type.module) ?? new Set()).add(type.name));
  return [...byModule].sort(([a], [b]) => a.localeCompare(b)).map(([module, names]) => `import type { ${[...names].sort().join(', ')} } from '${module}';`);
}

/**
 * The custom formats (shared/http/validation.ts), for ajv here and, by name, for the generated
 * code (which imports them: `code.formats` is the expression the generated code reads them from).
 */
const FORMAT_IMPORT = "import { SCHEMA_FORMATS as FORMATS } from '#shared/http/validation';";

/** The options the service always validated with (unknown keywords and formats are errors). */
const OPTIONS: Options = {
  allErrors: false,
  strict: true,
  allowUnionTypes: true,
  useDefaults: false,
  code: { source: true, esm: true, lines: true, formats: _`FORMATS` },
};

/**
 * ajv writes its runtime helpers as `require("ajv/dist/runtime/<name>").default`, even for ESM
 * (ajv-validator/ajv#2209). They become imports of the CommonJS module; Node and esbuild give
 * its exports object, vitest its default export, hence the unwrapping.
 */
const RUNTIME_REQUIRE = /require\("ajv\/dist\/runtime\/([a-z0-9]+)"\)\.default/g;

function esmRuntimeHelpers(code: string): { code: string; imports: string[]; consts: string[] } {
  const helpers = new Set<string>();
  const replaced = code.replace(RUNTIME_REQUIRE, (_match, name: string) => {
    helpers.add(name);
    return `runtime_${name}`;
  });
  if (/\brequire\(/.test(replaced)) throw new Error('ajv standalone code requires a module this build does not turn into an import');
  const names = [...helpers].sort();
  return {
    code: replaced,
    imports: names.map((name) => `import runtime_${name}_module from 'ajv/dist/runtime/${name}.js';`),
    consts: names.map((name) => `const runtime_${name} = runtime_${name}_module.default ?? runtime_${name}_module;`),
  };
}

/**
 * One validator's standalone code, scoped in a function of its own: each keeps its ajv names
 * (validate10, schema11, ...) to itself, and a bundle drops the validators it does not import.
 */
function validatorCode(ajv: Ajv, name: string, spec: ValidatorSpec): string {
  const validate = ajv.compile(spec.schema);
  const validateName = validate.source?.validateName;
  if (!validateName) throw new Error(`ajv gave no source for ${spec.schema.$id}`);
  const code = standaloneCode(ajv, validate);
  // What ajv puts before the code of a single validator with code.esm and code.lines.
  const head = `"use strict";\nexport const validate = ${validateName};\nexport default ${validateName};\n`;
  if (!code.startsWith(head)) throw new Error(`ajv standalone code of ${spec.schema.$id} does not start as expected:\n${code.slice(0, 200)}`);
  return [
    `/** The ${spec.schema.$id} schema${spec.coerce ? ' (coerces query strings)' : ''}. */`,
    `export const ${name} = /* @__PURE__ */ (() => {`,
    code.slice(head.length).trimEnd(),
    `return ${validateName};`,
    `})() as ValidateFunction<${spec.type.name}>;`,
  ].join('\n');
}

/** The ajv the validators are compiled with: for bodies, or (coerce) for query strings. */
export function validatorsAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ ...OPTIONS, coerceTypes: coerce });
  for (const [format, validate] of Object.entries(SCHEMA_FORMATS)) ajv.addFormat(format, validate);
  return ajv;
}

/** The text of shared/http/validators.generated.ts as the schemas make it now. */
export function generateValidatorsModule(): string {
  const bodies = validatorsAjv(false);
  const queries = validatorsAjv(true);
  const validators = Object.entries(VALIDATORS).map(([name, spec]) => validatorCode(spec.coerce ? queries : bodies, name, spec));
  const { code, imports, consts } = esmRuntimeHelpers(validators.join('\n\n'));
  return [
    '// Generated by tools/build-validators.ts from the request schemas in shared/schemas/: do not edit.',
    '// Regenerate with `npm run validators` after changing a schema (tests/unit/validators.test.ts fails when stale).',
    '// ajv standalone code: no schema is compiled at module load and ajv itself is not imported.',
    '// The validators have no `schema`/`schemaEnv` properties (nothing reads them).',
    '// @ts-nocheck -- ajv writes plain JavaScript; the exports carry the types.',
    "import type { ValidateFunction } from 'ajv';",
    ...typeImports(Object.values(VALIDATORS)),
    ...imports,
    FORMAT_IMPORT,
    '',
    ...consts,
    '',
    code,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const file = relative(process.cwd(), VALIDATORS_FILE);
  const generated = generateValidatorsModule();
  if (process.argv.includes('--check')) {
    const committed = await readFile(VALIDATORS_FILE, 'utf8').catch(() => undefined);
    if (committed !== generated) {
      console.error(`${file} is out of date: run \`npm run validators\` and commit the result.`);
      process.exit(1);
    }
    console.log(`${file} is up to date.`);
  } else {
    await writeFile(VALIDATORS_FILE, generated);
    console.log(`Wrote ${file}.`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
