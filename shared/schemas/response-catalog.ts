import { callbackDeliverySchema, listCallbacksResponseSchema, redeliverCallbackResponseSchema } from '#shared/schemas/callback-responses';
import { errorSchema, merchantOrderIdExistsErrorSchema, orderDoesNotExistErrorSchema, orderNotFoundErrorSchema, priceNotValidErrorSchema } from '#shared/schemas/error-responses';
import {
  checkoutOrderResponseSchema,
  createdOrderSchema,
  createOrderResponseSchema,
  emptyInvoiceSchema,
  getOrderResponseSchema,
  getOrdersResponseSchema,
  invoiceSchema,
  orderSchema,
} from '#shared/schemas/order-responses';
import { healthResponseSchema, sourceHealthSchema } from '#shared/schemas/health-responses';
import { payInvoiceSchema, payOrderResponseSchema, payOrderSchema } from '#shared/schemas/pay-responses';
import { listRefundsResponseSchema, payRefundResponseSchema, refundResponseSchema, refundSchema } from '#shared/schemas/refunds';
import { linkOrderResponseSchema, linkResponseSchema, listLinksResponseSchema, paymentLinkSchema, payLinkResponseSchema, payLinkSchema } from '#shared/schemas/payment-links';
import {
  payPlanResponseSchema,
  payPlanSchema,
  planSubscriptionResponseSchema,
  subscriberAcceptedResponseSchema,
  subscriberPageResponseSchema,
  subscriberPageSchema,
  subscriberPaymentResponseSchema,
  subscriberPeriodSchema,
} from '#shared/schemas/subscriber';
import { listPlansResponseSchema, listSubscriptionsResponseSchema, planResponseSchema, planSchema, subscriptionResponseSchema, subscriptionSchema } from '#shared/schemas/subscriptions';

/** All named response schemas, for one ajv instance (their `$ref`s point at each other). */
export const RESPONSE_SCHEMAS = [
  orderSchema,
  createdOrderSchema,
  invoiceSchema,
  emptyInvoiceSchema,
  createOrderResponseSchema,
  getOrderResponseSchema,
  checkoutOrderResponseSchema,
  getOrdersResponseSchema,
  callbackDeliverySchema,
  listCallbacksResponseSchema,
  redeliverCallbackResponseSchema,
  payOrderSchema,
  payInvoiceSchema,
  payOrderResponseSchema,
  refundSchema,
  refundResponseSchema,
  listRefundsResponseSchema,
  payRefundResponseSchema,
  sourceHealthSchema,
  healthResponseSchema,
  paymentLinkSchema,
  linkResponseSchema,
  listLinksResponseSchema,
  payLinkSchema,
  payLinkResponseSchema,
  linkOrderResponseSchema,
  planSchema,
  planResponseSchema,
  listPlansResponseSchema,
  subscriptionSchema,
  subscriptionResponseSchema,
  listSubscriptionsResponseSchema,
  payPlanSchema,
  payPlanResponseSchema,
  planSubscriptionResponseSchema,
  subscriberAcceptedResponseSchema,
  subscriberPeriodSchema,
  subscriberPageSchema,
  subscriberPageResponseSchema,
  subscriberPaymentResponseSchema,
  orderNotFoundErrorSchema,
  orderDoesNotExistErrorSchema,
  priceNotValidErrorSchema,
  merchantOrderIdExistsErrorSchema,
  errorSchema,
] as const;
