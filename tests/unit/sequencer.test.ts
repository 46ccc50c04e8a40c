import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import LongestFirst, { LONG_FILES, PROJECTS } from '../setup/sequencer';

/**
 * The order test files start in (tests/setup/sequencer.ts): on a clean checkout the longest
 * known files first, then end-to-end, integration and the rest, each the larger first; with a
 * cache that knows every file, vitest's own order (the longest last run first).
 */
const root = resolve('.');
const spec = (path: string) => ({ moduleId: resolve(root, path), project: { name: '', config: { sequence: { groupOrder: 0 }, isolate: true } } }) as unknown as TestSpecification;
const sequencer = (durations: Record<string, number> = {}) =>
  new LongestFirst({
    config: { root },
    cache: {
      getFileTestResults: (key: string) => (key.slice(1) in durations ? { duration: durations[key.slice(1)]!, failed: false } : undefined),
      getFileStats: (key: string) => ({ size: statSync(resolve(root, key.slice(1))).size }),
    },
  } as unknown as Vitest);
const order = async (paths: string[], durations?: Record<string, number>) => (await sequencer(durations).sort(paths.map(spec))).map((file) => file.moduleId.slice(root.length + 1));

describe('the order test files start in', () => {
  it('names only files that exist (a renamed file would lose its place)', () => {
    expect(LONG_FILES.filter((path) => !existsSync(resolve(root, path)))).toEqual([]);
  });

  it('on a clean checkout: the long files in their order, then end-to-end, integration and the rest, each the larger first', async () => {
    const [unitSmall, unitLarge] = ['tests/unit/ids.test.ts', 'tests/unit/layers.test.ts'].sort((a, b) => statSync(a).size - statSync(b).size);
    const files = [unitSmall!, 'tests/integration/pay-api.test.ts', LONG_FILES[1]!, unitLarge!, 'tests/e2e/store-faults.test.ts', 'tests/infra/stack.test.ts', LONG_FILES[0]!];
    const sorted = await order(files);
    expect(sorted.slice(0, 4)).toEqual([LONG_FILES[0], LONG_FILES[1], 'tests/e2e/store-faults.test.ts', 'tests/integration/pay-api.test.ts']);
    const rest = sorted.slice(4);
    expect(rest.map((path) => statSync(path).size)).toEqual(rest.map((path) => statSync(path).size).sort((a, b) => b - a));
    expect(rest.indexOf(unitLarge!)).toBeLessThan(rest.indexOf(unitSmall!));
  });

  it('with every file in the cache: the longest last time first', async () => {
    const durations = { 'tests/unit/ids.test.ts': 9_000, [LONG_FILES[0]!]: 10, 'tests/e2e/page.test.ts': 5_000 };
    expect(await order(Object.keys(durations), durations)).toEqual(['tests/unit/ids.test.ts', 'tests/e2e/page.test.ts', LONG_FILES[0]]);
  });
});

describe('projects', () => {
  const inProject = (path: string, name: string) => ({ ...spec(path), project: { name, config: { sequence: { groupOrder: 0 }, isolate: false } } }) as unknown as TestSpecification;
  const projectsOf = async (files: TestSpecification[], durations?: Record<string, number>) =>
    (await sequencer(durations).sort(files)).map((file) => `${file.project.name} ${file.moduleId.slice(root.length + 1)}`);

  it("keeps each project's files together, in PROJECTS' order, whether or not the cache knows them", async () => {
    const files = [
      inProject('tests/unit/ids.test.ts', 'shared-process'),
      inProject('tests/unit/metrics.test.ts', 'own-process'),
      inProject('tests/integration/pay-api.test.ts', 'fresh-modules'),
      inProject('tests/infra/bundling.test.ts', 'shared-process'),
      inProject(LONG_FILES[0]!, 'fresh-modules'),
    ];
    expect(PROJECTS).toEqual(['fresh-modules', 'shared-process', 'own-process']);
    expect(await projectsOf(files)).toEqual([
      `fresh-modules ${LONG_FILES[0]}`,
      'fresh-modules tests/integration/pay-api.test.ts',
      'shared-process tests/infra/bundling.test.ts',
      'shared-process tests/unit/ids.test.ts',
      'own-process tests/unit/metrics.test.ts',
    ]);
    // With durations in the cache (keyed by project and path): the longest first within each project.
    const known = Object.fromEntries(files.map((file, index) => [`${file.project.name}:${file.moduleId.slice(root.length + 1)}`, (index + 1) * 1000]));
    const cached = new LongestFirst({
      config: { root },
      cache: {
        getFileTestResults: (key: string) => (key in known ? { duration: known[key]!, failed: false } : undefined),
        getFileStats: (key: string) => ({ size: statSync(resolve(root, key.split(':').at(-1)!)).size }),
      },
    } as unknown as Vitest);
    expect((await cached.sort(files)).map((file) => file.project.name)).toEqual(['fresh-modules', 'fresh-modules', 'shared-process', 'shared-process', 'own-process']);
  });
});
