import type { TestProject } from 'vitest/node';
import { ensureTable, LOCAL_AWS_ENV, startDynamoDbLocal } from '#infra/local/dynamodb';

/**
 * One real DynamoDB Local (in memory) for the whole run, with the service's table. Test files
 * isolate themselves by creating their own merchants. The environment set here is what each
 * Lambda gets from the stack; test workers inherit it.
 */
export default async function setup(project: TestProject) {
  Object.assign(process.env, LOCAL_AWS_ENV);
  const dynamodb = await startDynamoDbLocal();
  const tableName = 'test-orders';
  await ensureTable(dynamodb.endpoint, tableName);
  Object.assign(process.env, LOCAL_AWS_ENV, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamodb.endpoint,
    PAYMENT_PAGE_URL: 'http://pay.test/pay/',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  });
  project.provide('dynamodbEndpoint', dynamodb.endpoint);
  return async () => {
    await dynamodb.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}
