import { DynamoDBClient, type ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { optionalString, requiredString } from '#shared/core/env';

/** Consumed read/write units, summed over every call this process made (for bench and logs). */
export interface CapacityTotals {
  requests: number;
  readUnits: number;
  writeUnits: number;
}

export const capacityMeter: CapacityTotals = { requests: 0, readUnits: 0, writeUnits: 0 };

export function resetCapacityMeter(): CapacityTotals {
  const snapshot = { ...capacityMeter };
  capacityMeter.requests = 0;
  capacityMeter.readUnits = 0;
  capacityMeter.writeUnits = 0;
  return snapshot;
}

const READ_COMMANDS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

function record(commandName: string, consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): void {
  capacityMeter.requests += 1;
  for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
    const units = entry.CapacityUnits ?? 0;
    if (READ_COMMANDS.has(commandName)) capacityMeter.readUnits += units;
    else capacityMeter.writeUnits += units;
  }
}

export const TABLE_NAME = requiredString(process.env, 'TABLE_NAME');
const endpoint = optionalString(process.env, 'DYNAMODB_ENDPOINT');

const base = new DynamoDBClient({
  ...(endpoint ? { endpoint } : {}),
  // Fail fast when the store is unreachable: the API answers 503 instead of hanging.
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
});

// Ask for consumed capacity on every call (free) so the bench and logs can report units.
base.middlewareStack.add(
  (next, context) => async (args) => {
    const input = args.input as Record<string, unknown>;
    if (input && typeof input === 'object' && !('ReturnConsumedCapacity' in input)) {
      input.ReturnConsumedCapacity = 'TOTAL';
    }
    const result = await next(args);
    const output = result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] };
    record(context.commandName ?? '', output.ConsumedCapacity);
    return result;
  },
  { step: 'initialize', name: 'consumedCapacity' },
);

/** The one document client of the process (module scope: reused across invocations). */
export const db = DynamoDBDocumentClient.from(base, {
  marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
});
