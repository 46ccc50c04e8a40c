import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { build } from 'esbuild';
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { queryValidator } from '#shared/http/validation';
import * as generated from '#shared/http/validators.generated';
import { listOrdersQuerySchema } from '#shared/schemas/orders';
import { generateValidatorsModule, VALIDATORS, VALIDATORS_FILE, validatorsAjv } from '#tools/build-validators';

/**
 * The request validators are ajv standalone code generated at build time
 * (tools/build-validators.ts): the committed module is current, it validates exactly
 * as ajv compiling the schemas at run time did (same answers, same error objects), and no
 * function bundle carries ajv's compiler.
 */

const REPO_ROOT = new URL('../../', import.meta.url).pathname;

describe('shared/http/validators.generated.ts', () => {
  // Not in mutation runs (vitest.mutation.config.ts sets MUTATION_SANDBOX): the generator reads
  // Stryker's instrumented sources there, not the ones the committed module was made from.
  it.skipIf(process.env.MUTATION_SANDBOX === '1')('is exactly what the generator makes of the schemas now (run `npm run validators` after a change)', () => {
    expect(readFileSync(VALIDATORS_FILE, 'utf8') === generateValidatorsModule(), 'shared/http/validators.generated.ts is out of date: run `npm run validators` and commit the result').toBe(true);
  });

  it('exports one typed validator per schema of the generator', () => {
    expect(Object.keys(generated).sort()).toEqual(Object.keys(VALIDATORS).sort());
    // A type the generated module names but cannot resolve would be `any` (the file is @ts-nocheck).
    type Data<V> = V extends ValidateFunction<infer T> ? T : never;
    type Untyped = { [K in keyof typeof generated]: 0 extends 1 & Data<(typeof generated)[K]> ? K : never }[keyof typeof generated];
    expectTypeOf<Untyped>().toBeNever();
  });
});

/** Values of every JSON kind and the edge cases the schemas care about. */
const value = fc.oneof(
  fc.constantFrom('', 'USD', 'BTC', 'PAID', 'NEW', 'https://shop.example/cb', 'ftp://x', 'not a url', 'a'.repeat(256), '😀'.repeat(200), 'tx-1:2.3_4'),
  fc.constantFrom('20', '0', '-1', '1.5', 'Infinity', '1e3', '0x10', ' 7', 'abc', 'true'),
  fc.string(),
  fc.integer({ min: -5, max: 2000 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);

/** Objects with the schema's own keys (and sometimes an unknown one), or anything else. */
function requestOf(properties: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = [...Object.keys(properties), 'unknown_key'];
  return fc.oneof({ weight: 8, arbitrary: fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: keys.length }) }, { weight: 1, arbitrary: value });
}

describe('the generated validators validate as runtime-compiled ajv did', () => {
  it.each(Object.entries(VALIDATORS))('%s: same verdict, same errors, same coercion', (name, spec) => {
    const runtime = validatorsAjv(spec.coerce === true).compile(spec.schema);
    const precompiled = generated[name as keyof typeof generated] as ValidateFunction;
    fc.assert(
      fc.property(requestOf(spec.schema.properties as Record<string, unknown>), (request) => {
        const [a, b] = [structuredClone(request), structuredClone(request)];
        const valid = runtime(a);
        expect(precompiled(b)).toBe(valid);
        expect(precompiled.errors ?? null).toEqual(runtime.errors ?? null);
        // Coercion (the query) changes the data the same way.
        expect(b).toEqual(a);
      }),
      { numRuns: 300 },
    );
  });

  it('the list-orders query still checks integers as text before coercing', () => {
    const query = queryValidator(generated.getOrdersQuery, listOrdersQuerySchema);
    for (const text of ['Infinity', '1e3', '0x10', '1.0', ' 7', '']) {
      expect(query({ limit: text }), text).toBe(false);
      expect(query.errors).toEqual([{ instancePath: '/limit', schemaPath: '', keyword: 'type', params: { type: 'integer' }, message: 'must be integer' }]);
    }
    const data: Record<string, unknown> = { limit: '20', offset: '0', status: 'PAID' };
    expect(query(data)).toBe(true);
    expect(data).toEqual({ limit: 20, offset: 0, status: 'PAID' });
    expect(query({ limit: '51' })).toBe(false);
    expect(query.errors?.[0]).toMatchObject({ instancePath: '/limit', keyword: 'maximum' });
  });
});

describe('no function bundle carries ajv', () => {
  it("every handler bundles only ajv's runtime helpers, never its compiler", async () => {
    // One graph of every handler (one build, not one per function).
    const handlers = readdirSync(join(REPO_ROOT, 'functions'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `import './functions/${entry.name}/handler.ts';`);
    const { metafile } = await build({
      absWorkingDir: REPO_ROOT,
      stdin: { contents: handlers.join('\n'), resolveDir: REPO_ROOT, sourcefile: 'handlers.ts', loader: 'ts' },
      outfile: 'bundle.mjs',
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      mainFields: ['module', 'main'],
      metafile: true,
      logLevel: 'silent',
    });
    // From node_modules on: esbuild names an input by its real path, which leaves the repository
    // where node_modules is a link (a git worktree's, Stryker's sandbox's).
    const ajvInputs = Object.keys(metafile.inputs)
      .filter((path) => path.includes('node_modules/ajv/'))
      .map((path) => path.slice(path.indexOf('node_modules/ajv/')));
    expect(ajvInputs.filter((path) => !path.includes('node_modules/ajv/dist/runtime/'))).toEqual([]);
    // The generated code is in the bundles, with the one helper it needs.
    expect(ajvInputs).toEqual(['node_modules/ajv/dist/runtime/ucs2length.js']);
  });
});
