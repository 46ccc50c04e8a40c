import type { OperationMeta } from '#tools/openapi/operation';
import { CALLBACK_OPERATIONS } from '#tools/openapi/operations/callbacks';
import { HEALTH_OPERATIONS } from '#tools/openapi/operations/health';
import { ORDER_ACTION_OPERATIONS } from '#tools/openapi/operations/order-actions';
import { ORDER_OPERATIONS } from '#tools/openapi/operations/orders';
import { PAY_PAGE_OPERATIONS } from '#tools/openapi/operations/pay-page';
import { PAYMENT_LINK_OPERATIONS } from '#tools/openapi/operations/payment-links';
import { SANDBOX_OPERATIONS } from '#tools/openapi/operations/sandbox';

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
  ...PAYMENT_LINK_OPERATIONS,
};
