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

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/setup/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: workers,
    // The longest files first, so that they overlap the rest (tests/setup/sequencer.ts).
    sequence: { sequencer: LongestFirst },
  },
});
