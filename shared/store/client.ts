import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { storeConfig } from '#shared/core/config';

let client: DynamoDBDocumentClient | undefined;

/** The one document client of the process, built on first use and reused across invocations. */
export function db(): DynamoDBDocumentClient {
  if (!client) {
    const { dynamodbEndpoint: endpoint } = storeConfig();
    const base = new DynamoDBClient({
      ...(endpoint ? { endpoint } : {}),
      // Fail fast when the store is unreachable: the API answers 503 instead of hanging.
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
    });
    client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
    });
  }
  return client;
}

/** The service's table (TABLE_NAME). */
export const tableName = (): string => storeConfig().tableName;

/** One Query of the service's table (one page). */
export function query(input: Omit<QueryCommandInput, 'TableName'>): Promise<QueryCommandOutput> {
  return db().send(new QueryCommand({ TableName: tableName(), ...input }));
}

/** Every item a Query of the service's table finds, page after page. */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await query({ ...input, ExclusiveStartKey: startKey });
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return items;
}
