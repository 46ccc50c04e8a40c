import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The bench's DynamoDB capacity meter. The service's own client asks for no consumed capacity;
 * the bench adds a middleware to the process's one client (`db()` of shared/store/client.ts)
 * that asks for it on every request (it costs nothing) and sums what comes back.
 */
export interface CapacityTotals {
  requests: number;
  readUnits: number;
  writeUnits: number;
}

const READ_COMMANDS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

/** Asks DynamoDB to report the units of a request (unless the caller chose otherwise). */
export function askForCapacity(input: unknown): void {
  if (input && typeof input === 'object' && !('ReturnConsumedCapacity' in input)) {
    (input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
  }
}

/** Adds one answered request and its units to `totals`. */
export function addCapacity(totals: CapacityTotals, commandName: string, output: unknown): void {
  const consumed = (output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
  totals.requests += 1;
  for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
    if (READ_COMMANDS.has(commandName)) totals.readUnits += entry.CapacityUnits ?? 0;
    else totals.writeUnits += entry.CapacityUnits ?? 0;
  }
}

/** One meter per client (the api and watcher groups meter the same process's client). */
const meters = new WeakMap<DynamoDBDocumentClient, { totals: CapacityTotals }>();

/**
 * Meters every request of `client` from now on; `reset` answers the totals since the last
 * reset. Asked again for the same client, it gives the meter already installed.
 */
export function meterCapacity(client: DynamoDBDocumentClient): { reset: () => CapacityTotals } {
  let meter = meters.get(client);
  if (!meter) {
    const installed = { totals: { requests: 0, readUnits: 0, writeUnits: 0 } };
    meter = installed;
    meters.set(client, installed);
    client.middlewareStack.add(
      (next, context) => async (args) => {
        askForCapacity(args.input);
        const result = await next(args);
        addCapacity(installed.totals, context.commandName ?? '', result.output);
        return result;
      },
      { step: 'initialize', name: 'benchCapacityMeter' },
    );
  }
  const current = meter;
  return {
    reset: () => {
      const snapshot = current.totals;
      current.totals = { requests: 0, readUnits: 0, writeUnits: 0 };
      return snapshot;
    },
  };
}
