import type { DeliveryState } from '#shared/domain/delivery';
import type { LinkState } from '#shared/domain/payment-link';
import type { Role } from '#shared/domain/portal';
import type { RefundStatus } from '#shared/domain/refund';
import type { OrderStatus } from '#shared/domain/statuses';
import type { UnresolvedReason } from '#shared/domain/status-machine';
import type { CancelReason, SubscriptionStatus } from '#shared/domain/subscription';

/**
 * A subscription plan's state as a person reads it: available (new subscribers may start it) or
 * archived (existing subscriptions go on, no new one starts). The plan itself keeps a boolean.
 */
export const PLAN_STATES = ['available', 'archived'] as const;
export type PlanState = (typeof PLAN_STATES)[number];
export const planStateOf = (plan: { archived: boolean }): PlanState => (plan.archived ? 'archived' : 'available');

/**
 * The one label of each state a person reads, in English and Chinese: an order's status, why an
 * order is UNRESOLVED, a callback delivery's state, a refund's status, a payment link's state, a
 * team member's role, a subscription's status and why it ended, and a plan's state. The portal's screens and the emails take their words from here, so a
 * state reads the same wherever it is shown, and no two states of one kind share a label
 * (tests/unit/state-labels.test.ts holds every value of each kind to that, in both languages).
 *
 * Order statuses, refund statuses, link states, roles, subscription statuses and plan states are
 * capitalised (they stand alone, in a table cell or a pill); the reasons and delivery states are
 * lower case, because they are read inside a sentence ("PAID callback: delivered", "A payment
 * did not match its order (underpaid)", "Reason: canceled by the subscriber").
 *
 * A canceled subscription reads "Ended", not "Canceled": that is an order's status, and one word
 * for two states would make a subscriber's end read like an order's cancellation.
 */
export interface StateLabels {
  orderStatus: Record<OrderStatus, string>;
  unresolvedReason: Record<UnresolvedReason, string>;
  deliveryState: Record<DeliveryState, string>;
  refundStatus: Record<RefundStatus, string>;
  linkState: Record<LinkState, string>;
  role: Record<Role, string>;
  subscriptionStatus: Record<SubscriptionStatus, string>;
  cancelReason: Record<CancelReason, string>;
  planState: Record<PlanState, string>;
}

/** The languages every screen and email is written in. */
export type LabelLanguage = 'en' | 'zh';

export const STATE_LABELS: Record<LabelLanguage, StateLabels> = {
  en: {
    orderStatus: {
      NEW: 'New',
      PENDING: 'Pending',
      PAID: 'Paid',
      UNRESOLVED: 'Unresolved',
      RESOLVED: 'Resolved',
      EXPIRED: 'Expired',
      CANCELED: 'Canceled',
      REFUND_PENDING: 'Refund pending',
      REFUNDED: 'Refunded',
    },
    unresolvedReason: {
      UNDERPAID: 'underpaid',
      OVERPAID: 'overpaid',
      PAID_LATE: 'paid after the invoice expired',
      PAID_TO_REPLACED_INVOICE: 'paid to a replaced invoice',
    },
    deliveryState: { PENDING: 'being delivered', DELIVERED: 'delivered', FAILED: 'failed (given up)', STOPPED: 'stopped' },
    refundStatus: { AWAITING_ADDRESS: "Waiting for the buyer's address", AWAITING_PAYMENT: 'Waiting for your payment', SENT: 'Sent' },
    linkState: { OPEN: 'Open', DISABLED: 'Disabled', EXPIRED: 'Expired', SOLD_OUT: 'Sold out' },
    role: { owner: 'Owner', developer: 'Developer', viewer: 'Viewer' },
    subscriptionStatus: { incomplete: 'Incomplete', trialing: 'Trial', active: 'Active', past_due: 'Past due', canceled: 'Ended' },
    cancelReason: { grace_ended: 'not paid by the end of the grace period', subscriber: 'canceled by the subscriber', merchant: 'canceled by the merchant' },
    planState: { available: 'Available', archived: 'Archived' },
  },
  zh: {
    orderStatus: {
      NEW: '新建',
      PENDING: '待确认',
      PAID: '已支付',
      UNRESOLVED: '待处理',
      RESOLVED: '已处理',
      EXPIRED: '已过期',
      CANCELED: '已取消',
      REFUND_PENDING: '退款中',
      REFUNDED: '已退款',
    },
    // The portal calls an order's invoice 账单 (发票 is a Lightning invoice, or a tax receipt).
    unresolvedReason: {
      UNDERPAID: '少付',
      OVERPAID: '多付',
      PAID_LATE: '账单过期后付款',
      PAID_TO_REPLACED_INVOICE: '付款至已被替换的账单',
    },
    deliveryState: { PENDING: '投递中', DELIVERED: '已送达', FAILED: '失败（已放弃）', STOPPED: '已停止' },
    refundStatus: { AWAITING_ADDRESS: '等待买家提供地址', AWAITING_PAYMENT: '等待您付款', SENT: '已发送' },
    linkState: { OPEN: '开放', DISABLED: '已停用', EXPIRED: '已过期', SOLD_OUT: '已售罄' },
    role: { owner: '所有者', developer: '开发者', viewer: '查看者' },
    subscriptionStatus: { incomplete: '未完成', trialing: '试用中', active: '生效中', past_due: '逾期', canceled: '已终止' },
    cancelReason: { grace_ended: '宽限期结束时仍未付款', subscriber: '订阅者取消', merchant: '商户取消' },
    planState: { available: '可订阅', archived: '已归档' },
  },
};
