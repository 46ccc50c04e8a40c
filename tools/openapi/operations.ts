import type { OperationMeta } from '#tools/openapi/operation';
import { CALLBACK_OPERATIONS } from '#tools/openapi/operations/callbacks';
import { HEALTH_OPERATIONS } from '#tools/openapi/operations/health';
import { ORDER_ACTION_OPERATIONS } from '#tools/openapi/operations/order-actions';
import { ORDER_OPERATIONS } from '#tools/openapi/operations/orders';
import { PAY_PAGE_OPERATIONS } from '#tools/openapi/operations/pay-page';
import { PAYMENT_LINK_OPERATIONS } from '#tools/openapi/operations/payment-links';
import { SANDBOX_OPERATIONS } from '#tools/openapi/operations/sandbox';
import { REFUND_OPERATIONS } from '#tools/openapi/operations/refunds';
import { SUBSCRIBER_OPERATIONS } from '#tools/openapi/operations/subscriber';
import { SUBSCRIPTION_OPERATIONS } from '#tools/openapi/operations/subscriptions';

/**
 * Operation metadata per route function. A route whose function is missing here fails the
 * build, so a new endpoint cannot ship undocumented.
 */
export const OPERATIONS: Readonly<Record<string, OperationMeta>> = {
  ...ORDER_OPERATIONS,
  ...ORDER_ACTION_OPERATIONS,
  ...SANDBOX_OPERATIONS,
  ...CALLBACK_OPERATIONS,
  ...PAY_PAGE_OPERATIONS,
  ...HEALTH_OPERATIONS,
  ...REFUND_OPERATIONS,
  ...PAYMENT_LINK_OPERATIONS,
  ...SUBSCRIPTION_OPERATIONS,
  ...SUBSCRIBER_OPERATIONS,
};
