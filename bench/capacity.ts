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
  /** Items the reads went through: a Query's or Scan's scanned items, the items a GetItem or BatchGetItem returned. */
  itemsRead: number;
}

const READ_COMMANDS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

/** Asks DynamoDB to report the units of a request (unless the caller chose otherwise). */
export function askForCapacity(input: unknown): void {
  if (input && typeof input === 'object' && !('ReturnConsumedCapacity' in input)) {
    (input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
  }
}

function itemsReadBy(output: unknown): number {
  const read = output as { ScannedCount?: number; Item?: unknown; Responses?: Record<string, unknown[]> | unknown[] };
  if (typeof read.ScannedCount === 'number') return read.ScannedCount;
  if (read.Item) return 1;
  // BatchGetItem answers per table; TransactGetItems a list.
  if (Array.isArray(read.Responses)) return read.Responses.length;
  return Object.values(read.Responses ?? {}).reduce((sum, items) => sum + (Array.isArray(items) ? items.length : 0), 0);
}

/** Adds one answered request and its units (and the items it read) to `totals`. */
export function addCapacity(totals: Omit<CapacityTotals, 'itemsRead'> & { itemsRead?: number }, commandName: string, output: unknown): void {
  const consumed = (output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
  totals.requests += 1;
  if (totals.itemsRead !== undefined) totals.itemsRead += itemsReadBy(output);
  for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
    if (READ_COMMANDS.has(commandName)) totals.readUnits += entry.CapacityUnits ?? 0;
    else totals.writeUnits += entry.CapacityUnits ?? 0;
  }
}

interface Meter {
  totals: CapacityTotals;
  /** Requests sent and not yet answered, and who waits for there to be none. */
  inFlight: number;
  idle: (() => void)[];
}

/** One meter per client (the api and watcher groups meter the same process's client). */
const meters = new WeakMap<DynamoDBDocumentClient, Meter>();

/**
 * Meters every request of `client` from now on; `reset` answers the totals since the last
 * reset; `idle` resolves once no request is in flight (one a handler left in flight when it
 * answered, such as a request quota's count, included). Asked again for the same client, it gives the
 * meter already installed.
 */
export function meterCapacity(client: DynamoDBDocumentClient): { reset: () => CapacityTotals; idle: () => Promise<void> } {
  let meter = meters.get(client);
  if (!meter) {
    const installed: Meter = { totals: { requests: 0, readUnits: 0, writeUnits: 0, itemsRead: 0 }, inFlight: 0, idle: [] };
    meter = installed;
    meters.set(client, installed);
    client.middlewareStack.add(
      (next, context) => async (args) => {
        askForCapacity(args.input);
        installed.inFlight += 1;
        try {
          const result = await next(args);
          addCapacity(installed.totals, context.commandName ?? '', result.output);
          return result;
        } finally {
          installed.inFlight -= 1;
          if (installed.inFlight === 0) for (const resolve of installed.idle.splice(0)) resolve();
        }
      },
      { step: 'initialize', name: 'benchCapacityMeter' },
    );
  }
  const current = meter;
  return {
    reset: () => {
      const snapshot = current.totals;
      current.totals = { requests: 0, readUnits: 0, writeUnits: 0, itemsRead: 0 };
      return snapshot;
    },
    idle: async () => {
      // A request a handler scheduled with setImmediate has been sent by now.
      await new Promise((resolve) => setImmediate(resolve));
      if (current.inFlight > 0) await new Promise<void>((resolve) => current.idle.push(resolve));
    },
  };
}
