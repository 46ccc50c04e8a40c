import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order test files start in: the longest first, so that they run beside the many short
 * files instead of after them (the run ends when its last file does). Vitest's own order is
 * the longest first only when its cache (node_modules/.vite) holds the last run's durations;
 * on a clean checkout (CI after `npm ci`) it runs the largest files first, and the two
 * Lighthouse files, the smallest of all and among the longest, ran last.
 *
 * Here, when the cache knows every file: vitest's order (failed first, then the longest).
 * Otherwise: the files named in `LONG_FILES` first, in that order (the longest in CI's last
 * run, 2026-12-04 at f3b9b3a: docs/performance.md, "The test suite's time"); then the
 * end-to-end files (each starts processes or a browser), the integration files, and the rest,
 * each the larger file first.
 *
 * Either way, a project's files come together, in `PROJECTS`' order (vitest.config.ts): the pool
 * keeps a worker process for the next file only when that file is of the same project, so files
 * of two projects taking turns cost a process and its module loading at each turn (an
 * infrastructure file's first stack about 6 CPU s).
 */
export const PROJECT = { freshModules: 'fresh-modules', sharedProcess: 'shared-process', ownProcess: 'own-process' } as const;
export const PROJECTS: readonly string[] = [PROJECT.freshModules, PROJECT.sharedProcess, PROJECT.ownProcess];
export const LONG_FILES = [
  'tests/e2e/aws-faults.test.ts',
  'tests/e2e/payment-links.test.ts',
  'tests/e2e/portal-lighthouse.test.ts',
  'tests/e2e/layout.test.ts',
  'tests/e2e/portal-subscriptions.test.ts',
  'tests/e2e/refund-chains.test.ts',
  'tests/e2e/portal.test.ts',
  'tests/e2e/portal-account.test.ts',
  'tests/integration/fuzz.test.ts',
  'tests/integration/watch-steps-faults.test.ts',
  'tests/e2e/merchant-cli.test.ts',
  'tests/e2e/subscriber-page.test.ts',
  'tests/e2e/page.test.ts',
  'tests/e2e/callbacks.test.ts',
  'tests/e2e/callback-retries.test.ts',
  'tests/e2e/devnet.test.ts',
  'tests/e2e/page-edges.test.ts',
  'tests/integration/order-numbers.test.ts',
  'tests/integration/portal-export-stream.test.ts',
  'tests/e2e/local-runtime-recovery.test.ts',
  'tests/integration/portal-account.test.ts',
  'tests/integration/merchant-admin.test.ts',
  'tests/e2e/local-runtime.test.ts',
  'tests/e2e/page-ton-stellar.test.ts',
  'tests/integration/portal-orders.test.ts',
  'tests/e2e/portal-refunds.test.ts',
  // The first of the shared-process files: the deploy guide's commands (a `cdk synth` child),
  // every function's bundle with esbuild, and the permissions proof (which reads the bundles).
  'tests/infra/deploy-guide.test.ts',
  'tests/infra/permissions.test.ts',
  'tests/infra/bundling.test.ts',
];

const FOLDERS = ['tests/e2e/', 'tests/integration/'];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const path = (file: TestSpecification) => relative(this.ctx.config.root, file.moduleId).split('\\').join('/');
    const project = (file: TestSpecification) => {
      const index = PROJECTS.indexOf(file.project.name);
      return index >= 0 ? index : PROJECTS.length;
    };
    const byProject = (sorted: TestSpecification[]) => [...sorted].sort((a, b) => project(a) - project(b));
    if (files.every((file) => this.ctx.cache.getFileTestResults(`${file.project.name}:${path(file)}`))) return byProject(await super.sort(files));
    const rank = (file: TestSpecification) => {
      const listed = LONG_FILES.indexOf(path(file));
      if (listed >= 0) return listed;
      const folder = FOLDERS.findIndex((prefix) => path(file).startsWith(prefix));
      return LONG_FILES.length + (folder >= 0 ? folder : FOLDERS.length);
    };
    return byProject([...files].sort((a, b) => rank(a) - rank(b) || statSync(b.moduleId).size - statSync(a.moduleId).size));
  }
}
