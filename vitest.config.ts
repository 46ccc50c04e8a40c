import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirst, { PROJECT } from './tests/setup/sequencer.ts';

/**
 * Test files run in parallel worker processes. Most of a file's time is spent waiting (on
 * DynamoDB Local, the SQS emulator, local chain servers, the browser, delivery retries), not
 * computing, so the suite runs one more worker than there are cores (vitest's default is one
 * fewer: a single worker on a 2-core machine, which ran the files one after another).
 * TEST_WORKERS overrides the count.
 */
const workers = Number(process.env.TEST_WORKERS) || availableParallelism() + 1;

/**
 * Files run one after another in a worker process (`isolate: false`) rather than each in a new
 * one: a process per file cost each file its start and its module loading again (the AWS SDK,
 * the handlers; an infrastructure file's stack modules about 4 s of CPU).
 * - Unit and infrastructure files read no table and set no environment: their modules stay
 *   loaded from one file to the next (`shared-process`).
 * - Integration, end-to-end and compatibility files set the environment their handlers read:
 *   before each, tests/setup/fresh-modules.ts restores the worker's environment and reloads
 *   the repository's modules (`fresh-modules`); packages stay loaded.
 * - The unit files that mock modules or set the environment keep a process of their own.
 */
const OWN_PROCESS = ['metrics', 'pay-currencies', 'security-report', 'token-key', 'validators'].map((name) => `tests/unit/${name}.test.ts`);
const filesIn = (folders: string[]) =>
  folders.flatMap((folder) =>
    readdirSync(folder)
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => `${folder}/${name}`),
  );
const SHARED_PROCESS = filesIn(['tests/unit', 'tests/infra']).filter((file) => !OWN_PROCESS.includes(file));

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: PROJECT.ownProcess, include: OWN_PROCESS } },
      { extends: true, test: { name: PROJECT.sharedProcess, include: SHARED_PROCESS, isolate: false } },
      {
        extends: true,
        test: { name: PROJECT.freshModules, include: filesIn(['tests/integration', 'tests/e2e', 'tests/compat']), isolate: false, setupFiles: ['tests/setup/fresh-modules.ts'] },
      },
    ],
    globalSetup: ['tests/setup/global-setup.ts'],
    // Generous: a test that waits on the work it checks must not fail because the machine was
    // slow (a CI machine whose host takes half its CPU ran files at half speed, and 30 s tests
    // of sequential sends timed out). A test that hangs still fails, later.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A larger young generation: the test processes allocate quickly (the AWS SDK's requests and
    // answers) and V8's default 16 MB semi-space made them collect it over and over (about 3 % of
    // the integration files' CPU: docs/performance.md, "Every file in a reused worker process").
    execArgv: ['--max-semi-space-size=32'],
    maxWorkers: workers,
    // The longest files first, so that they overlap the rest (tests/setup/sequencer.ts).
    sequence: { sequencer: LongestFirst },
  },
});
