import { defineConfig } from 'vitest/config';

/**
 * The unit tests alone, for mutation testing (`npm run mutation`): pure code, no DynamoDB
 * Local or SQS emulator, so Stryker can run them hundreds of times.
 */
export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts'],
    testTimeout: 300_000,
    pool: 'forks',
    // Modules read these at load; unit tests never reach the table or the queue.
    env: {
      TABLE_NAME: 'mutation-unit-tests',
      PAYMENT_PAGE_URL: 'http://pay.test/pay/',
      CALLBACK_QUEUE_URL: 'http://127.0.0.1:9/queue/callbacks',
      CALLBACK_DLQ_URL: 'http://127.0.0.1:9/queue/callbacks-dlq',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'unit',
      AWS_SECRET_ACCESS_KEY: 'unit',
      // Stryker instruments the mutated sources in its sandbox (money.ts among them), and the
      // validators' generator embeds what it reads of them: its output there is not the
      // committed module's, which says nothing of either. tests/unit/validators.test.ts skips
      // that one freshness check here (it checks generated code, not the mutated files); every
      // other run, npm test included, keeps it.
      MUTATION_SANDBOX: '1',
    },
  },
});
