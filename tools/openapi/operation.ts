import type { Route } from '#shared/http/routes';
import { listOrdersQuerySchema } from '#shared/schemas/orders';
import { getOrderResponseSchema } from '#shared/schemas/order-responses';
import type { NamedSchema } from '#tools/openapi/components';
import { type ErrorCase, orderActionErrors } from '#tools/openapi/errors';
import { type Examples, ORDER_ACTION_REQUEST_EXAMPLES } from '#tools/openapi/examples';

/** What the document says about the operation behind one route function, and the parts several share. */

/** What the document says about the operation behind one route function. */
export interface OperationMeta {
  operationId: string;
  /** Defaults to Orders. */
  tag?: 'Orders' | 'Callbacks' | 'Sandbox' | 'Payment page' | 'Health' | 'Payment links' | 'Subscriptions';
  summary: string;
  description: string;
  /** Description of each `{param}` of the route's path; must name exactly those params. */
  pathParameters?: Record<string, string>;
  /**
   * The query parameters' descriptions where they say more than their schema's (the route's
   * `query`, shared/http/routes.ts, whose properties become the `in: query` parameters).
   */
  queryDescriptions?: Readonly<Record<string, string>>;
  /** Examples of the request body; its schema is the route's `body` (shared/http/routes.ts). */
  requestExamples?: Examples;
  /** The success answer; `status` is its HTTP status when it is not 200 (a route that answers 201 Created). */
  success: { status?: 201; description: string; schema: NamedSchema; examples: Examples };
  errors: readonly ErrorCase[];
}

/**
 * A merchant's action on one order (cancel, refund, resolve): POST with the optional
 * `order_id` body, answered with the order and its invoice, refused with `refused` when the
 * order is not in the status the action needs.
 */
export function orderAction(action: { operationId: string; summary: string; description: readonly string[]; success: string; examples: Examples; refused: ErrorCase }): OperationMeta {
  return {
    operationId: action.operationId,
    summary: action.summary,
    description: action.description.join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestExamples: ORDER_ACTION_REQUEST_EXAMPLES,
    success: { description: action.success, schema: getOrderResponseSchema, examples: action.examples },
    errors: orderActionErrors(action.refused),
  };
}

const { limit, offset } = listOrdersQuerySchema.properties;

/** Get Orders' query parameters documented with the rules their schema enforces. */
export const GET_ORDERS_QUERY_DESCRIPTIONS: Readonly<Record<keyof typeof listOrdersQuerySchema.properties, string>> = {
  status: 'Only orders in this status. Default: every status.',
  limit: `Orders per page, ${limit.minimum}..${limit.maximum}. Default ${limit.default}.`,
  offset: `Orders to skip, ${offset.minimum}..${offset.maximum}. Default ${offset.default}. Deeper pages are refused so a request's cost stays bounded.`,
};

export const ORDER_ID_PARAMETER = 'The order_id returned by Create Order. Any other value is answered as a missing order.';

/** The `in: query` parameters of the route's query schema (shared/http/routes.ts), each described by its schema or by `descriptions`. */
export function queryParameters(route: Route, descriptions: Readonly<Record<string, string>> = {}): unknown[] {
  return Object.entries(route.query?.properties ?? {}).map(([name, property]) => {
    const { description, ...schema } = property as { description?: string };
    return { name, in: 'query', required: false, description: descriptions[name] ?? description, schema };
  });
}
