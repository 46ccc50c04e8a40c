import type { Grant } from '#shared/http/routes';

/** What a function may do with the table: a route's `access` ('read' or 'write'), or 'none': no table at all. */
export type TableAccess = 'none' | 'read' | 'write';

/**
 * A function not behind a route, declared as a route's is: its table access, grants and
 * timeout, and what starts it (`trigger`, and for a schedule `everyMinutes`, which the stack
 * schedules it by). docs/reference.md's table of them is generated from this list.
 */
export interface EventFunction {
  /** Folder under functions/ holding `handler.ts`. */
  readonly fn: string;
  readonly access: TableAccess;
  readonly grants?: readonly Grant[];
  readonly timeoutSeconds?: number;
  /** Its timeout when the stack sets it from a setting instead (the table of docs/reference.md says which). */
  readonly timeoutFrom?: string;
  /** What starts it, as the table of docs/reference.md says it. */
  readonly trigger: string;
  /** A scheduled function's interval (EventBridge `rate(...)`). */
  readonly everyMinutes?: number;
}

/**
 * Functions not behind a route. Their triggers are wired in infra/cdk/stack.ts (schedules, the
 * table stream, the queues, whose wiring grants what the trigger needs); everything else they
 * may touch is declared here, as routes declare theirs. Email's and the chain watchers'
 * functions are declared by their constructs (infra/cdk/constructs/email.ts, chain-watchers.ts).
 */
export const EVENT_FUNCTIONS = {
  /**
   * Expires due NEW orders (asking the gateway before expiring a gateway invoice), numbers new
   * orders (Get Orders' deep offsets) and queues the subscriptions due; each expiry and each
   * cursor move is a conditional write, so overlapping runs are harmless. Numbering runs here
   * rather than in a function of its own: an event function is about five more resources in the
   * main stack (docs/deploy.md "Stack size").
   */
  expireOrders: { fn: 'expire-orders', access: 'write', grants: ['gateways'], timeoutSeconds: 50, trigger: 'EventBridge schedule', everyMinutes: 1 },
  /** Re-queues deliveries whose queue message was lost (due more than the grace time ago). */
  sweepCallbacks: { fn: 'sweep-callbacks', access: 'write', grants: ['callback-queue'], timeoutSeconds: 50, trigger: 'EventBridge schedule', everyMinutes: 5 },
  /** Table stream (filtered to delivery inserts) -> the delivery's first queue job: it reads only its stream (the event source grants that and the queue). */
  orderEvents: { fn: 'order-events', access: 'none', timeoutSeconds: 30, trigger: "the table's stream, filtered to callback deliveries" },
  /** Callback queue -> signed POST to the merchant (the queue's wiring grants it the queues; its timeout follows CALLBACK_TIMEOUT_MS). */
  deliverCallback: { fn: 'deliver-callback', access: 'write', trigger: 'the callback queue', timeoutFrom: '`CALLBACK_TIMEOUT_MS` + 5 s (15 s by default)' },
  /** Renewal queue -> a subscription's steps (its period's order, reminders, past_due, canceled: shared/services/subscription-renewals.ts). */
  renewSubscriptions: { fn: 'renew-subscriptions', access: 'write', timeoutSeconds: 60, trigger: 'the subscription renewal queue' },
  /** The API's $default route: the JSON 404 for unknown paths (no table access). */
  notFound: { fn: 'not-found', access: 'none', trigger: "the HTTP API's `$default` route (unknown paths)" },
} as const satisfies Record<string, EventFunction>;
