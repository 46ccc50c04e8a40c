import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirst from './tests/setup/sequencer.ts';

/**
 * Test files run in parallel worker processes. Most of a file's time is spent waiting (on
 * DynamoDB Local, the SQS emulator, local chain servers, the browser, delivery retries), not
 * computing, so the suite runs one more worker than there are cores (vitest's default is one
 * fewer: a single worker on a 2-core machine, which ran the files one after another).
 * TEST_WORKERS overrides the count.
 */
const workers = Number(process.env.TEST_WORKERS) || availableParallelism() + 1;

/**
 * Unit and infrastructure files run one after another in a shared process per worker
 * (`isolate: false`): they read no table and set no environment, and a fresh process per file
 * cost each of them its module loading again (an infrastructure file's stack modules about 4 s
 * of CPU, 11 of them). The files that set the environment or mock modules keep a process of
 * their own, as every integration and end-to-end file does.
 */
const OWN_PROCESS = new Set(['metrics', 'pay-currencies', 'security-report', 'token-key', 'validators'].map((name) => `tests/unit/${name}.test.ts`));
const SHARED_PROCESS = ['tests/unit', 'tests/infra']
  .flatMap((folder) => readdirSync(folder).filter((name) => name.endsWith('.test.ts')).map((name) => `${folder}/${name}`))
  .filter((file) => !OWN_PROCESS.has(file));

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'own-process', include: ['tests/**/*.test.ts'], exclude: SHARED_PROCESS } },
      { extends: true, test: { name: 'shared-process', include: SHARED_PROCESS, isolate: false } },
    ],
    globalSetup: ['tests/setup/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: workers,
    // The longest files first, so that they overlap the rest (tests/setup/sequencer.ts).
    sequence: { sequencer: LongestFirst },
  },
});
