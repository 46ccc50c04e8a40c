import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#infra/cdk/paths';
import { cycles, importGraph, importsOf, processEnvReads, sourcesUnder } from '../support/import-graph';

/**
 * Imports run one way (docs/architecture.md): each layer imports only itself and the layers
 * below it. The graph of the whole tree (shared/, functions/, tools/, web/, infra/, bench/) is
 * read with TypeScript's parser (tests/support/import-graph.ts): every import form, nothing in
 * comments. So a new file or a new import that runs up fails here, naming the file and the import.
 */
const SHARED = ['core', 'domain', 'schemas', 'store', 'jobs', 'chains', 'payments', 'callbacks', 'email', 'services', 'watchers', 'http'] as const;

const BELOW: Record<string, readonly string[]> = {
  core: [],
  domain: ['core'],
  schemas: ['core', 'domain'],
  store: ['core', 'domain'],
  // The durable delayed jobs on SQS (retries, dead letters) that callbacks and email are kinds of: AWS plumbing and core only.
  jobs: ['core'],
  // Each chain family's settings, identity, confirmations and source limits (docs/architecture.md).
  chains: ['core', 'domain'],
  payments: ['core', 'domain', 'store', 'chains'],
  callbacks: ['core', 'domain', 'store', 'jobs'],
  // Email beside callbacks: events from the table's stream, the queue, the sender and its transports.
  email: ['core', 'domain', 'store', 'jobs'],
  services: ['core', 'domain', 'schemas', 'store', 'jobs', 'chains', 'payments', 'callbacks'],
  watchers: ['core', 'domain', 'store', 'jobs', 'chains', 'payments', 'services'],
  http: ['core', 'domain', 'schemas', 'store', 'jobs', 'chains', 'payments', 'callbacks', 'services'],
  functions: ['core', 'domain', 'schemas', 'store', 'jobs', 'chains', 'payments', 'callbacks', 'email', 'services', 'http', 'watchers'],
  tools: [...SHARED, 'functions'],
  // The payment page runs in the buyer's browser: currencies, statuses and the page's views only.
  web: ['domain', 'schemas'],
  // The AWS stack and the local runtime wire everything; nothing imports them but bench and tests.
  infra: [...SHARED, 'functions', 'tools'],
  // Measurements drive the whole service, with the tests' local servers.
  bench: [...SHARED, 'functions', 'tools', 'infra', 'tests'],
};

/**
 * Sub-folders with stricter rules than their layer. The providers of payments (address
 * derivation, Lightning, gateways) are self-contained: no table, and none imports another. The
 * watchers' source adapters only speak their API: no table, no lifecycle, nothing else of the
 * watchers (docs/architecture.md).
 */
const SUBFOLDERS: Record<string, readonly string[]> = {
  'shared/payments/addresses': ['core', 'domain'],
  'shared/payments/lightning': ['core', 'domain'],
  'shared/payments/gateways': ['core', 'domain'],
  'shared/watchers/sources': ['core', 'domain', 'chains', 'payments'],
};

/**
 * Files a layer may import beyond the layers below it, each with its reason. A chain's settings
 * check addresses in the chain's own format (TRON's USDT contract, Solana's mint and wallet) with
 * the address codecs, which import only core and domain themselves (SUBFOLDERS): so chains/ may
 * import those, and nothing else of payments/.
 */
const ALSO: Record<string, readonly string[]> = {
  chains: ['shared/payments/addresses/'],
};

const FOLDERS = ['shared', 'functions', 'tools', 'web', 'infra', 'bench'];

/** The layer of a repository path, or undefined for a package. */
function layerOf(path: string): string | undefined {
  const [top, second] = path.split('/');
  if (top === 'shared') {
    // The Lambda bundles' credential provider and AWS plumbing stand in for npm modules: below everything.
    if (second === 'aws') return 'core';
    return second !== undefined && second in BELOW ? second : `unknown shared folder ${second}`;
  }
  return top;
}

const subfolderOf = (path: string): string | undefined => Object.keys(SUBFOLDERS).find((folder) => path.startsWith(`${folder}/`));

const edges = importGraph(FOLDERS);

describe('import direction', () => {
  it('reads the import graph (the check sees the code it is meant to check)', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual(expect.objectContaining({ file: 'shared/store/orders.ts', specifier: '#shared/store/client' }));
    for (const folder of FOLDERS) expect(edges.some(({ file }) => file.startsWith(`${folder}/`))).toBe(true);
    // A dynamic import (the local runtime loads the watchers only when a chain is configured).
    expect(edges).toContainEqual(expect.objectContaining({ file: 'infra/local/runtime.ts', specifier: '#shared/watchers/polled' }));
    // Imports resolve to files (what the cycle check walks).
    expect(edges.filter(({ resolved }) => resolved !== undefined).length).toBeGreaterThan(300);
  });

  it('every file is in a known layer', () => {
    const unknown = [...new Set(edges.map(({ file }) => file))].filter((file) => !(layerOf(file)! in BELOW));
    expect(unknown).toEqual([]);
  });

  it('no import runs up a layer or sideways between sibling layers', () => {
    const wrong = edges.flatMap(({ file, specifier, target }) => {
      if (target === undefined) return [];
      const from = layerOf(file)!;
      const to = layerOf(target);
      if (to === from) return [];
      if (to !== undefined && BELOW[from]!.includes(to)) return [];
      if (ALSO[from]?.some((prefix) => target.startsWith(prefix))) return [];
      return [`${file} (${from}) imports ${specifier} (${to ?? 'outside the layers'})`];
    });
    expect(wrong).toEqual([]);
  });

  it('sub-folders with their own rules keep them', () => {
    const wrong = edges.flatMap(({ file, specifier, target }) => {
      const folder = subfolderOf(file);
      if (folder === undefined || target === undefined || target.startsWith(`${folder}/`)) return [];
      if (SUBFOLDERS[folder]!.includes(layerOf(target)!)) return [];
      return [`${file} (${folder}) imports ${specifier}`];
    });
    expect(wrong).toEqual([]);
  });

  it("the portal's services sit on top of the API's: no other service imports them, and in http/ only the portal's request stack", () => {
    const portal = 'shared/services/portal/';
    const importers = [...new Set(edges.filter(({ file, target }) => target?.startsWith(portal) && file.startsWith('shared/') && !file.startsWith(portal)).map(({ file }) => file))];
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((file) => !/^shared\/http\/(middlewares\/)?portal-[a-z-]+\.ts$/.test(file))).toEqual([]);
  });

  it('the HTTP middlewares are units the stacks compose: none imports a stack (a file of shared/http/ that uses the middlewares)', () => {
    const folder = 'shared/http/middlewares/';
    const stacks = new Set(edges.filter(({ file, target }) => file.startsWith('shared/http/') && !file.startsWith(folder) && target?.startsWith(folder)).map(({ file }) => file));
    expect(stacks).toContain('shared/http/api-handler.ts');
    expect(stacks).toContain('shared/http/portal-handler.ts');
    const wrong = edges.filter(({ file, target }) => file.startsWith(folder) && target !== undefined && stacks.has(target));
    expect(wrong.map(({ file, specifier }) => `${file} imports ${specifier}`)).toEqual([]);
  });

  it('the web apps (the payment page, the portal, what they share) never reach the store or any server code, even through what they import', () => {
    const next = new Map<string, string[]>();
    for (const { file, resolved } of edges) if (resolved) next.set(file, [...(next.get(file) ?? []), resolved]);
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const to of next.get(file) ?? []) visit(to);
    };
    // Every web app and what they share (web/build.ts and web/favicon.ts run at build time, in Node).
    for (const file of next.keys()) if (file.startsWith('web/') && !/^web\/[a-z-]+\.ts$/.test(file)) visit(file);
    expect([...reached].some((file) => file.startsWith('web/common/'))).toBe(true);
    expect([...reached].some((file) => file.startsWith('shared/schemas/'))).toBe(true);
    const server = [...reached].filter((file) => !['web', 'core', 'domain', 'schemas'].includes(layerOf(file)!));
    expect(server).toEqual([]);
  });

  it('no import cycles between files', () => {
    expect(cycles(edges)).toEqual([]);
  });
});

describe('configuration', () => {
  const files = ['shared', 'functions'].flatMap(sourcesUnder);
  const text = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
  const architecture = readFileSync(join(REPO_ROOT, 'docs/architecture.md'), 'utf8');

  it('only shared/core/config.ts reads process.env', () => {
    const readers = files.filter((file) => processEnvReads(file, text(file)) > 0);
    expect(readers).toEqual(['shared/core/config.ts']);
  });

  it('docs/architecture.md names every file that defines a configuration section', () => {
    const defining = files.filter((file) => file !== 'shared/core/config.ts' && /\bsection\(/.test(text(file)));
    expect(defining.length).toBeGreaterThan(0);
    expect(defining.filter((file) => !architecture.includes(`\`${file}\``))).toEqual([]);
  });
});

describe('the import reader', () => {
  const source = `
    // import { a } from '#shared/store/commented';
    /* export * from '#shared/store/block-comment'; */
    const text = "import x from '#shared/store/in-a-string'";
    import { b } from '#shared/store/static';
    import type { C } from '#shared/store/type-only';
    export { d } from '#shared/store/re-export';
    import '#shared/store/side-effect';
    type E = import('#shared/store/import-type').E;
    const f = await import('#shared/store/dynamic');
    const g = await import(\`#functions/\${'name'}/handler\`);
    const h = await import(\`#shared/store/template\`);
    const i = require('#shared/store/required');
  `;
  const found = importsOf('fixture.ts', source);

  it('sees every import form', () => {
    expect(found.map(({ specifier }) => specifier)).toEqual([
      '#shared/store/static',
      '#shared/store/type-only',
      '#shared/store/re-export',
      '#shared/store/side-effect',
      '#shared/store/import-type',
      '#shared/store/dynamic',
      '#functions/',
      '#shared/store/template',
      '#shared/store/required',
    ]);
    expect(found.find(({ specifier }) => specifier === '#functions/')?.partial).toBe(true);
    expect(found.find(({ specifier }) => specifier === '#shared/store/type-only')?.typeOnly).toBe(true);
  });

  it('sees nothing in comments or ordinary strings', () => {
    expect(found.map(({ specifier }) => specifier).filter((specifier) => /commented|block-comment|in-a-string/.test(specifier))).toEqual([]);
  });

  it('finds a cycle', () => {
    expect(
      cycles([
        { file: 'a.ts', resolved: 'b.ts' },
        { file: 'b.ts', resolved: 'c.ts' },
        { file: 'c.ts', resolved: 'a.ts' },
        { file: 'c.ts', resolved: 'd.ts' },
      ]),
    ).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
