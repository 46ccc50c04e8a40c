import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { addCapacity, askForCapacity } from './capacity';

/** What one function did over a stretch of time: invocations, their durations, its DynamoDB use. */
export interface FunctionUse {
  invocations: number;
  /** Sum of the invocations' durations, ms. */
  durationMs: number;
  requests: number;
  readUnits: number;
  writeUnits: number;
  /**
   * Conditional writes refused by their condition. DynamoDB bills them (write units for the
   * size of the item checked, at least 1) but returns no consumed capacity with the error.
   */
  failedConditionalWrites: number;
}

const zero = (): FunctionUse => ({ invocations: 0, durationMs: 0, requests: 0, readUnits: 0, writeUnits: 0, failedConditionalWrites: 0 });

/**
 * Per-function accounting of handler invocations, as Lambda would bill them: each wrapped call
 * is one invocation whose duration is its wall time; DynamoDB requests made inside it (found
 * through AsyncLocalStorage, so concurrent invocations do not mix) count to its function.
 */
export class Instrument {
  private readonly als = new AsyncLocalStorage<FunctionUse>();
  private readonly uses = new Map<string, FunctionUse>();
  /** Every invocation's duration by function, ms. */
  readonly durations = new Map<string, number[]>();
  private active = 0;

  /** Counts the consumed capacity of every request of this client (one middleware, added once; it asks for the units). */
  attach(db: DynamoDBDocumentClient): void {
    db.middlewareStack.add(
      (next, context) => async (args) => {
        askForCapacity(args.input);
        let result: Awaited<ReturnType<typeof next>>;
        try {
          result = await next(args);
        } catch (error) {
          const use = this.als.getStore();
          if (use) {
            use.requests += 1;
            const name = (error as Error).name;
            if (name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException') use.failedConditionalWrites += 1;
          }
          throw error;
        }
        const use = this.als.getStore();
        if (use) addCapacity(use, context.commandName ?? '', result.output);
        return result;
      },
      { step: 'initialize', name: 'benchFunctionCapacity' },
    );
  }

  private useOf(name: string): FunctionUse {
    let use = this.uses.get(name);
    if (!use) this.uses.set(name, (use = zero()));
    return use;
  }

  wrap<A extends unknown[], R>(name: string, handler: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      const use = this.useOf(name);
      use.invocations += 1;
      this.active += 1;
      const start = performance.now();
      try {
        return await this.als.run(use, () => handler(...args));
      } finally {
        const ms = performance.now() - start;
        use.durationMs += ms;
        let list = this.durations.get(name);
        if (!list) this.durations.set(name, (list = []));
        list.push(ms);
        this.active -= 1;
      }
    };
  }

  /** No wrapped invocation is running. */
  get idle(): boolean {
    return this.active === 0;
  }

  snapshot(): Record<string, FunctionUse> {
    return Object.fromEntries([...this.uses].map(([name, use]) => [name, { ...use }]));
  }

  static diff(after: Record<string, FunctionUse>, before: Record<string, FunctionUse>): Record<string, FunctionUse> {
    const result: Record<string, FunctionUse> = {};
    for (const [name, use] of Object.entries(after)) {
      const was = before[name] ?? zero();
      if (use.invocations === was.invocations) continue;
      result[name] = {
        invocations: use.invocations - was.invocations,
        durationMs: use.durationMs - was.durationMs,
        requests: use.requests - was.requests,
        readUnits: use.readUnits - was.readUnits,
        writeUnits: use.writeUnits - was.writeUnits,
        failedConditionalWrites: use.failedConditionalWrites - was.failedConditionalWrites,
      };
    }
    return result;
  }
}
