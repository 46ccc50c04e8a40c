import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '#shared/http/routes';
import { VALIDATORS, validatorName } from '#tools/build-validators';

/**
 * A route's request schemas are declared once, in shared/http/routes.ts (`body`, `query`); the
 * validators are generated from those declarations (tools/build-validators.ts) and the OpenAPI
 * document reads them too. The handler still imports its validator by name from
 * shared/http/validators.generated.ts (so its bundle carries that one only): here each route's
 * function, bundled, must use exactly the validators its routes declare, no other and none less.
 */

const REPO_ROOT = new URL('../../', import.meta.url).pathname;
const GENERATED = '#shared/http/validators.generated';
const MARK = 'route-schemas-validator:';

/**
 * The generated module as marks that tree-shaking keeps only where used: a bundle's text then
 * names the validators its handler (or the shared code it calls) validates with.
 */
const markedValidators: Plugin = {
  name: 'marked-validators',
  setup(builder) {
    builder.onResolve({ filter: /^#shared\/http\/validators\.generated$/ }, () => ({ path: GENERATED, namespace: 'marked' }));
    builder.onLoad({ filter: /.*/, namespace: 'marked' }, () => ({
      contents: Object.keys(VALIDATORS)
        .map((name) => `export const ${name} = /* @__PURE__ */ Symbol.for(${JSON.stringify(MARK + name)});`)
        .join('\n'),
      loader: 'js',
    }));
    // Packages are left out: only the repository's own code can name a validator.
    builder.onResolve({ filter: /^[^.#/]/ }, ({ path }) => ({ path, external: true }));
  },
};

/** The validators each function's bundle names: every function bundled in one build (its project code parsed once). */
async function validatorsUsedBy(fns: readonly string[]): Promise<Record<string, string[]>> {
  const { outputFiles } = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: Object.fromEntries(fns.map((fn) => [fn, `functions/${fn}/handler.ts`])),
    outdir: `${REPO_ROOT}.route-schemas-scan`,
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    plugins: [markedValidators],
    logLevel: 'silent',
  });
  const used: Record<string, string[]> = {};
  for (const file of outputFiles) {
    const fn = /([^/]+)\.js$/.exec(file.path)?.[1];
    if (fn && fns.includes(fn)) used[fn] = [...new Set([...file.text.matchAll(new RegExp(`${MARK}(\\w+)`, 'g'))].map((match) => match[1]!))].sort();
  }
  return used;
}

const FUNCTIONS = [...new Set(ROUTES.map((route) => route.fn))];

/** The validators a function's routes declare. */
function declared(fn: string): string[] {
  const routes = ROUTES.filter((route) => route.fn === fn);
  return [...new Set(routes.flatMap((route) => [route.body, route.query].flatMap((schema) => (schema ? [validatorName(schema)] : []))))].sort();
}

describe('request schemas, declared once by the route', () => {
  it('routes that share a function declare the same schemas', () => {
    for (const fn of FUNCTIONS) {
      const routes = ROUTES.filter((route) => route.fn === fn);
      for (const route of routes) {
        expect([route.body?.$id, route.query?.$id], `${route.method} ${route.path}`).toEqual([routes[0]!.body?.$id, routes[0]!.query?.$id]);
      }
    }
  });

  it('every generated validator is declared by some route', () => {
    expect(Object.keys(VALIDATORS).sort()).toEqual([...new Set(FUNCTIONS.flatMap(declared))].sort());
  });

  it('each handler validates with the validators its route declares, and no other', { timeout: 120_000 }, async () => {
    expect(await validatorsUsedBy(FUNCTIONS)).toEqual(Object.fromEntries(FUNCTIONS.map((fn) => [fn, declared(fn)])));
  });
});
