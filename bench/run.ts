/**
 * `npm run bench`: every figure in one run. Prints a human table, then one JSON line last.
 * It measures and reports; it never fails because the machine was slow.
 * BENCH_ITERATIONS (default 300) sets the samples per endpoint.
 */
import { ensureTable, LOCAL_AWS_ENV, startDynamoDbLocal } from '#infra/local/dynamodb';
import { positiveInteger } from '#shared/env';

Object.assign(process.env, LOCAL_AWS_ENV, { POWERTOOLS_LOG_LEVEL: 'ERROR' });
const iterations = positiveInteger(process.env, 'BENCH_ITERATIONS', 300);

const dynamodb = await startDynamoDbLocal();
try {
  const tableName = 'bench-orders';
  await ensureTable(dynamodb.endpoint, tableName);
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamodb.endpoint,
    PAYMENT_PAGE_URL: 'http://127.0.0.1/pay/',
  });
  const { measureApiLatency } = await import('./api-latency');
  const endpoints = await measureApiLatency(iterations);

  console.log(`Endpoint latency through the local runtime (n=${iterations}, ms) vs the same DynamoDB calls made directly`);
  console.log(['endpoint'.padEnd(30), 'api p50', 'api p99', 'raw p50', 'raw p99', 'ratio', 'ddb req', 'RCU', 'WCU'].join('\t'));
  for (const e of endpoints) {
    console.log(
      [e.endpoint.padEnd(30), e.api.p50, e.api.p99, e.raw.p50, e.raw.p99, `${e.overheadP50}x`, e.dynamodb.requests, e.dynamodb.readUnits, e.dynamodb.writeUnits].join('\t'),
    );
  }
  const result = {
    generated_at: new Date().toISOString(),
    node: process.version,
    iterations,
    endpoints,
    goals: { overhead_p50_max: 1.5 },
  };
  console.log(JSON.stringify(result));
} finally {
  await dynamodb.stop();
}
