import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Delivery } from '#shared/domain/delivery';
import { type Plan, type Reminder, realTimeOf, type Subscription, type SubscriptionPeriod, type SubscriptionStatus } from '#shared/domain/subscription';
import { batchGetAll } from '#shared/store/batches';
import { db, query, tableName } from '#shared/store/client';
import { type Condition, putIf, updateIf } from '#shared/store/conditional';
import { deliveryToItem } from '#shared/store/deliveries';
import { isConditionFailure, isTransactionConflict } from '#shared/store/errors';
import { type Item, stripKeys } from '#shared/store/items';
import {
  ENTITY,
  merchantPlansIndexKey,
  merchantPlansPartition,
  merchantSubscriptionStatusIndexKey,
  merchantSubscriptionStatusPartition,
  merchantSubscriptionsIndexKey,
  merchantSubscriptionsPartition,
  planKey,
  SUBSCRIPTION_DUE_SHARDS,
  subscriptionDueIndexKey,
  subscriptionDuePartition,
  SUBSCRIPTION_PERIOD_PREFIX,
  subscriptionIdOfPartition,
  subscriptionKey,
  subscriptionPartition,
  subscriptionPeriodKey,
  subscriptionSearchKey,
  subscriptionSearchPartition,
} from '#shared/store/keys';

/**
 * Plans and subscriptions in the table. A subscription changes only by a conditional write on
 * its `version` (the step that read it), so two sweeps, a retried message and a request of the
 * merchant at once never apply two changes to one state: the second finds the version moved,
 * reads again and decides again.
 */

const planItem = (plan: Plan): Item => ({ ...planKey(plan.plan_id), ...merchantPlansIndexKey(plan.user_id, plan.created_at, plan.plan_id), type: ENTITY.plan, ...plan });

/** Stores a new plan (its id is new). */
export async function insertPlan(plan: Plan): Promise<void> {
  const outcome = await putIf(planItem(plan), { ConditionExpression: 'attribute_not_exists(PK)' });
  if (!outcome.written) throw new Error(`plan ${plan.plan_id} exists already`);
}

/** The plan with this id, or undefined. */
export async function findPlan(planId: string): Promise<Plan | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: planKey(planId), ConsistentRead: true }));
  return result.Item ? stripKeys<Plan>(result.Item) : undefined;
}

/** A page of a merchant's plans (or subscriptions), newest first, after the sort key `after` (the previous page's last). */
async function listPage<T>(partition: string, index: 'GSI1' | 'GSI2', limit: number, after?: string): Promise<{ items: T[]; last?: string }> {
  const sortKey = `${index}SK`;
  const result = await query({
    IndexName: index,
    KeyConditionExpression: after ? `${index}PK = :pk AND ${sortKey} < :after` : `${index}PK = :pk`,
    ExpressionAttributeValues: { ':pk': partition, ...(after ? { ':after': after } : {}) },
    ScanIndexForward: false,
    Limit: limit,
  });
  const items = result.Items ?? [];
  const lastItem = items.at(-1);
  return { items: items.map((item) => stripKeys<T>(item)), last: result.LastEvaluatedKey && lastItem ? String(lastItem[sortKey]) : undefined };
}

export function listPlans(merchantId: number, limit: number, after?: string): Promise<{ items: Plan[]; last?: string }> {
  return listPage<Plan>(merchantPlansPartition(merchantId), 'GSI1', limit, after);
}

/**
 * Replaces the merchant's plan with `plan` (its changed fields), on the condition that it is
 * theirs and still the version read (`readUpdatedAt`), so that two changes at once never lose
 * one: 'missing' when no such plan is theirs, 'changed' (with the version that stands) when
 * another change came first.
 */
export async function replacePlan(plan: Plan, readUpdatedAt: string): Promise<{ kind: 'written' } | { kind: 'missing' } | { kind: 'changed'; current: Plan }> {
  const outcome = await putIf(planItem(plan), {
    ConditionExpression: 'attribute_exists(PK) AND user_id = :uid AND updated_at = :read',
    ExpressionAttributeValues: { ':uid': plan.user_id, ':read': readUpdatedAt },
  });
  if (outcome.written) return { kind: 'written' };
  return outcome.existing?.user_id === plan.user_id ? { kind: 'changed', current: stripKeys<Plan>(outcome.existing) } : { kind: 'missing' };
}

/** The item of a subscription: its keys in the merchant's lists and, until canceled, in the due index by its next step's real time. */
function subscriptionItem(subscription: Subscription): Item {
  const { user_id: merchantId, created_at: createdAt, subscription_id: id } = subscription;
  return {
    ...subscriptionKey(id),
    ...merchantSubscriptionsIndexKey(merchantId, createdAt, id),
    ...merchantSubscriptionStatusIndexKey(merchantId, subscription.status, createdAt, id),
    ...(subscription.next_step_at ? subscriptionDueIndexKey(id, realTimeOf(subscription, subscription.next_step_at).toISOString()) : {}),
    type: ENTITY.subscription,
    ...subscription,
  };
}

/**
 * Stores a new subscription (its id is new), and first what the portal's search finds it by:
 * its customer's email and id. Written before it (as a period's item is before its order is
 * named), so a subscription is never stored unfindable; a search item whose subscription never
 * came (the put after it failed) names no subscription and the search skips it.
 */
export async function insertSubscription(subscription: Subscription, delivery?: Delivery): Promise<void> {
  for (const value of new Set([subscription.customer_email, subscription.customer_id].filter((text): text is string => text !== undefined && text !== ''))) {
    const key = subscriptionSearchKey(subscription.user_id, value, subscription.created_at, subscription.subscription_id);
    // The key names the subscription: a second try of this put finds the same item, already there.
    await putIf({ ...key, type: ENTITY.subscriptionSearch, subscription_id: subscription.subscription_id }, { ConditionExpression: 'attribute_not_exists(PK)' });
  }
  if (!(await putSubscription(subscription, { ConditionExpression: 'attribute_not_exists(PK)' }, delivery))) throw new Error(`subscription ${subscription.subscription_id} exists already`);
}

/**
 * The subscription's conditional put and, when its change owes one, its event's delivery in
 * the same transaction (the outbox, as an order's status change writes its callback): false
 * when the condition failed, nothing written.
 */
async function putSubscription(subscription: Subscription, condition: Condition, delivery: Delivery | undefined): Promise<boolean> {
  if (!delivery) return (await putIf(subscriptionItem(subscription), condition)).written;
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName(), Item: subscriptionItem(subscription), ...condition } },
          { Put: { TableName: tableName(), Item: deliveryToItem(delivery), ConditionExpression: 'attribute_not_exists(PK)' } },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error) || isTransactionConflict(error)) return false;
    throw error;
  }
}

/** The subscription with this id, strongly consistent (a step decides on it), or undefined. */
export async function findSubscription(subscriptionId: string): Promise<Subscription | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: subscriptionKey(subscriptionId), ConsistentRead: true }));
  return result.Item ? stripKeys<Subscription>(result.Item) : undefined;
}

/**
 * Writes `next` (whose version is one more than the one read) on the condition that the stored
 * subscription is still at the version read, with the event's delivery it owes. False: another
 * step moved it first.
 */
export function writeSubscription(next: Subscription, delivery?: Delivery): Promise<boolean> {
  return putSubscription(next, { ConditionExpression: 'version = :read', ExpressionAttributeValues: { ':read': next.version - 1 } }, delivery);
}

/** Plans by id (several point reads in one request), the missing ones left out. */
export async function findPlans(planIds: readonly string[]): Promise<Plan[]> {
  if (planIds.length === 0) return [];
  return (await batchGetAll([...new Set(planIds)].map(planKey))).map((item) => stripKeys<Plan>(item));
}

/**
 * The ids of the merchant's subscriptions whose customer email or customer id is `value` (case
 * ignored), newest first: at most `limit`, one Query of its search partition. The search never
 * lists the merchant's subscriptions to filter them: its cost is the matches', not the list's.
 */
export async function findSubscriptionIdsBySearch(merchantId: number, value: string, limit: number): Promise<string[]> {
  const result = await query({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': subscriptionSearchPartition(merchantId, value) },
    ScanIndexForward: false,
    Limit: limit,
  });
  return (result.Items ?? []).map((item) => String(item.subscription_id));
}

/** A page of a merchant's subscriptions (in one status, or all), newest first. */
export function listSubscriptions(merchantId: number, status: SubscriptionStatus | undefined, limit: number, after?: string): Promise<{ items: Subscription[]; last?: string }> {
  return status
    ? listPage<Subscription>(merchantSubscriptionStatusPartition(merchantId, status), 'GSI2', limit, after)
    : listPage<Subscription>(merchantSubscriptionsPartition(merchantId), 'GSI1', limit, after);
}

/** A due index entry: which subscription, and the sort key it was found under (its claim's condition). */
export interface DueSubscription {
  subscriptionId: string;
  sortKey: string;
}

/** Subscriptions whose next step is due at `now` (real time), from one shard of the due index (keys only): at most `limit`, the earliest first. */
export async function findDueSubscriptions(shard: number, now: Date, limit: number, after?: Item): Promise<{ due: DueSubscription[]; next?: Item }> {
  const result = await query({
    IndexName: 'GSI3',
    KeyConditionExpression: 'GSI3PK = :pk AND GSI3SK < :now',
    ExpressionAttributeValues: { ':pk': subscriptionDuePartition(shard), ':now': `${now.toISOString()}#~` },
    Limit: limit,
    ...(after ? { ExclusiveStartKey: after } : {}),
  });
  return {
    due: (result.Items ?? []).map((item) => ({ subscriptionId: subscriptionIdOfPartition(String(item.PK)), sortKey: String(item.GSI3SK) })),
    ...(result.LastEvaluatedKey ? { next: result.LastEvaluatedKey } : {}),
  };
}

export const DUE_SHARDS = SUBSCRIPTION_DUE_SHARDS;

/**
 * Claims a due subscription for one renewal job: its due entry moves to `leaseUntil` on the
 * condition that it is still where the sweep found it. False: another sweep claimed it, or a
 * step moved it. A job that never runs leaves it due again when the lease ends.
 */
export function claimDueSubscription(due: DueSubscription, leaseUntil: Date): Promise<boolean> {
  return updateIf(subscriptionKey(due.subscriptionId), {
    UpdateExpression: 'SET GSI3SK = :lease',
    ConditionExpression: 'GSI3SK = :found',
    ExpressionAttributeValues: { ':found': due.sortKey, ':lease': `${leaseUntil.toISOString()}#${due.subscriptionId}` },
  });
}

/**
 * Records a period's order (written before the subscription names it: a step that fails
 * between the two finds the order again by its reference and writes the same item).
 */
export async function recordPeriod(period: SubscriptionPeriod): Promise<void> {
  const item = { ...subscriptionPeriodKey(period.subscription_id, period.period, period.attempt), type: ENTITY.subscriptionPeriod, reminded: {}, ...period };
  const outcome = await putIf(item, { ConditionExpression: 'attribute_not_exists(PK)' });
  // Written before by another try of the step: the same order (its reference is the period's), with its reminders kept.
  if (!outcome.written && outcome.existing?.order_id !== period.order_id) throw new Error(`period ${period.period} of ${period.subscription_id} names another order`);
}

/** Notes a reminder of a period's order as taken, at `at` (the subscription's clock), once. */
export function recordReminder(subscriptionId: string, period: number, attempt: number, reminder: Reminder, at: string): Promise<boolean> {
  return updateIf(subscriptionPeriodKey(subscriptionId, period, attempt), {
    UpdateExpression: 'SET reminded.#which = :at',
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(reminded.#which)',
    ExpressionAttributeNames: { '#which': reminder },
    ExpressionAttributeValues: { ':at': at },
  });
}

/** A subscription's periods (each attempt's order), newest first: at most `limit`. */
export async function listPeriods(subscriptionId: string, limit: number): Promise<SubscriptionPeriod[]> {
  const result = await query({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': subscriptionPartition(subscriptionId), ':prefix': SUBSCRIPTION_PERIOD_PREFIX },
    ScanIndexForward: false,
    Limit: limit,
  });
  return (result.Items ?? []).map((item) => stripKeys<SubscriptionPeriod>(item));
}
