import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#infra/cdk/paths';

/**
 * Imports run one way (docs/architecture.md): each layer imports only itself and the layers
 * below it. The graph is read from the sources (static, dynamic and type-only imports alike),
 * so a new file or a new import that runs up fails here, naming the file and the import.
 */
const BELOW: Record<string, readonly string[]> = {
  core: [],
  domain: ['core'],
  schemas: ['core', 'domain'],
  store: ['core', 'domain'],
  payments: ['core', 'domain', 'store'],
  callbacks: ['core', 'domain', 'store'],
  services: ['core', 'domain', 'schemas', 'store', 'payments', 'callbacks'],
  watchers: ['core', 'domain', 'store', 'payments', 'services'],
  http: ['core', 'domain', 'schemas', 'store', 'payments', 'callbacks', 'services'],
  functions: ['core', 'domain', 'schemas', 'store', 'payments', 'callbacks', 'services', 'http', 'watchers'],
  tools: ['core', 'domain', 'schemas', 'store', 'payments', 'callbacks', 'services', 'http', 'watchers'],
};

/** The layer of a repository path, or undefined outside the layered code (infra, tests, web, npm). */
function layerOf(path: string): string | undefined {
  const [top, second] = path.split('/');
  if (top === 'functions' || top === 'tools') return top;
  if (top !== 'shared' || !second) return undefined;
  // The Lambda bundles' credential provider stands in for an npm module: below everything.
  if (second === 'aws') return 'core';
  return second in BELOW ? second : `unknown shared folder ${second}`;
}

const SUBPATHS: Record<string, string> = { '#shared/': 'shared/', '#functions/': 'functions/', '#infra/': 'infra/', '#tools/': 'tools/' };

/** The repository path an import names, or undefined for a package. */
function target(from: string, specifier: string): string | undefined {
  for (const [prefix, folder] of Object.entries(SUBPATHS)) {
    if (specifier.startsWith(prefix)) return folder + specifier.slice(prefix.length);
  }
  if (specifier.startsWith('.')) return relative(REPO_ROOT, resolve(REPO_ROOT, dirname(from), specifier));
  return undefined;
}

function sources(folder: string): string[] {
  return readdirSync(join(REPO_ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)));
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

const edges = ['shared', 'functions', 'tools'].flatMap(sources).flatMap((file) =>
  [...readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(IMPORT)].map((match) => ({ file, specifier: match[1]! })),
);

describe('import direction', () => {
  it('reads the import graph (the check sees the code it is meant to check)', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual({ file: 'shared/store/orders.ts', specifier: '#shared/store/client' });
  });

  it('every layered file is in a known layer', () => {
    const unknown = [...new Set(edges.map(({ file }) => file))].filter((file) => !(layerOf(file)! in BELOW));
    expect(unknown).toEqual([]);
  });

  it('no import runs up a layer or sideways between sibling layers', () => {
    const wrong = edges.flatMap(({ file, specifier }) => {
      const to = target(file, specifier);
      if (to === undefined) return [];
      const from = layerOf(file)!;
      const toLayer = layerOf(to);
      if (toLayer === from) return [];
      if (toLayer !== undefined && BELOW[from]!.includes(toLayer)) return [];
      return [`${file} (${from}) imports ${specifier} (${toLayer ?? 'outside the layers'})`];
    });
    expect(wrong).toEqual([]);
  });
});
