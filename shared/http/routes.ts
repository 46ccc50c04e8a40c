/**
 * Every HTTP route of the service and the function that serves it. The CDK stack and the
 * local runtime both build their routing from this list, so they cannot drift apart.
 * Paths use API Gateway's `{param}` syntax.
 */
export interface Route {
  method: 'GET' | 'POST';
  path: string;
  /** Folder under functions/ holding `handler.ts`. */
  fn: string;
  /** Read-only functions get read-only grants in AWS. */
  access: 'read' | 'write';
}

export const ROUTES: readonly Route[] = [
  { method: 'POST', path: '/v1/orders', fn: 'create-order', access: 'write' },
  { method: 'GET', path: '/v1/orders', fn: 'list-orders', access: 'read' },
  // The contract's path has a trailing slash; both spellings answer.
  { method: 'GET', path: '/v1/orders/', fn: 'list-orders', access: 'read' },
  { method: 'GET', path: '/v1/orders/{order_id}', fn: 'get-order', access: 'read' },
  { method: 'POST', path: '/v1/orders/{order_id}/checkout', fn: 'checkout-order', access: 'write' },
  { method: 'POST', path: '/v1/orders/{order_id}/cancel', fn: 'cancel-order', access: 'write' },
  { method: 'POST', path: '/v1/orders/{order_id}/refund', fn: 'refund-order', access: 'write' },
  { method: 'POST', path: '/v1/orders/{order_id}/resolve', fn: 'resolve-order', access: 'write' },
  { method: 'POST', path: '/v1/sandbox/orders/{order_id}/pay', fn: 'sandbox-pay', access: 'write' },
  { method: 'POST', path: '/v1/sandbox/orders/{order_id}/complete-refund', fn: 'sandbox-complete-refund', access: 'write' },
  { method: 'GET', path: '/v1/orders/{order_id}/callbacks', fn: 'list-callbacks', access: 'read' },
  { method: 'POST', path: '/v1/orders/{order_id}/callbacks/redeliver', fn: 'redeliver-callback', access: 'write' },
];
