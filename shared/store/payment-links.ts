import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConcurrentUpdateError } from '#shared/domain/errors';
import type { PaymentLink } from '#shared/domain/payment-link';
import { db, query, queryAll, tableName } from '#shared/store/client';
import { putIf } from '#shared/store/conditional';
import { cancellationReasons, isConditionFailure, isTransactionConflict } from '#shared/store/errors';
import { type Item, stripKeys } from '#shared/store/items';
import {
  ENTITY,
  LINK_HOLD_PREFIX,
  LINK_VISIT_PREFIX,
  linkHoldKey,
  linkPartition,
  linkRequestKey,
  linkVisitKey,
  merchantLinksIndexKey,
  merchantLinksPartition,
  orderKey,
  paymentLinkKey,
} from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';
import { IDEMPOTENCY_TTL_SECONDS as REQUEST_TTL_SECONDS } from '#shared/store/idempotency';

/**
 * Payment links in the table: the link item (its settings and two counters, `order_count` and
 * `reserved`), one visit item per order made from it, and one hold item per unit an unsettled
 * order holds (links with a quantity). Counting is done by the link item's conditional update in
 * the same transaction as the visit and its hold, so concurrent buyers can never take more
 * units than the link has.
 */

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

const TRANSACTION_ATTEMPTS = 4;

/** Runs a transaction, again after a conflict with another one; false when a condition failed. */
async function transact(items: TransactItems): Promise<boolean> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (isConditionFailure(error) && reasons.includes('ConditionalCheckFailed')) return false;
      if (!isTransactionConflict(error)) throw error;
      // Many buyers on one link at once: their transactions meet on the link item. Again, with jitter; then 409, retry.
      if (attempt >= TRANSACTION_ATTEMPTS) throw new ConcurrentUpdateError();
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 30));
    }
  }
}

const linkFromItem = (item: Item): PaymentLink => stripKeys<PaymentLink>(item);

/** Stores a new link (its id is new). */
export async function insertLink(link: PaymentLink): Promise<void> {
  const item = { ...paymentLinkKey(link.link_id), ...merchantLinksIndexKey(link.user_id, link.created_at, link.link_id), type: ENTITY.paymentLink, ...link };
  const outcome = await putIf(item, { ConditionExpression: 'attribute_not_exists(PK)' });
  if (!outcome.written) throw new Error(`payment link ${link.link_id} exists already`);
}

/** The link with this id, or undefined. Strongly consistent: its counters decide what a buyer is told. */
export async function findLink(linkId: string): Promise<PaymentLink | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: paymentLinkKey(linkId), ConsistentRead: true }));
  return result.Item ? linkFromItem(result.Item) : undefined;
}

/** A page of a merchant's links, newest first, after the sort key `after` (the previous page's last). */
export async function listLinks(merchantId: number, limit: number, after?: string): Promise<{ links: PaymentLink[]; last?: string }> {
  const result = await query({
    IndexName: 'GSI1',
    KeyConditionExpression: after ? 'GSI1PK = :pk AND GSI1SK < :after' : 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': merchantLinksPartition(merchantId), ...(after ? { ':after': after } : {}) },
    ScanIndexForward: false,
    Limit: limit,
  });
  const items = result.Items ?? [];
  const lastItem = items.at(-1);
  return { links: items.map(linkFromItem), last: result.LastEvaluatedKey && lastItem ? String(lastItem.GSI1SK) : undefined };
}

/** What a merchant may change on a link: `null` removes an optional field. */
export type LinkChanges = Partial<{
  title: string;
  description: string;
  enabled: boolean;
  success_url: string;
  callback_url: string;
  ask_email: boolean;
  currencies: string[] | null;
  quantity: number | null;
  expires_at: string | null;
}>;

/** Why a change was refused. */
export type LinkChangeRefusal = 'missing' | 'quantity-below-reserved';

/**
 * Applies `changes` to the merchant's link, on the condition that it is theirs and (when the
 * quantity changes) that the new quantity is not below the units already held or sold. The
 * link as it is after, or why not.
 */
export async function updateLink(merchantId: number, linkId: string, changes: LinkChanges, now: Date): Promise<PaymentLink | LinkChangeRefusal> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':uid': merchantId, ':now': now.toISOString() };
  const sets = ['updated_at = :now'];
  const removes: string[] = [];
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    if (value === null) removes.push(`#${field}`);
    else {
      sets.push(`#${field} = :${field}`);
      values[`:${field}`] = value;
    }
  }
  const conditions = ['attribute_exists(PK)', 'user_id = :uid'];
  if (typeof changes.quantity === 'number') conditions.push('reserved <= :quantity');
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: paymentLinkKey(linkId),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return linkFromItem(result.Attributes ?? {});
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    const old = (error as { Item?: Record<string, AttributeValue> }).Item;
    const owned = old !== undefined && unmarshall(old).user_id === merchantId;
    return owned && typeof changes.quantity === 'number' ? 'quantity-below-reserved' : 'missing';
  }
}

/** A buyer's order from a link, as its visit item keeps it. */
export interface LinkVisit {
  visit_id: string;
  link_id: string;
  merchant_order_id: string;
  /** Known at once when the merchant derives order ids from references; else set once the order is stored. */
  order_id?: string;
  created_at: string;
  /** The visit holds one of the link's units (links with a quantity). */
  held: boolean;
}

const visitItem = (visit: LinkVisit) => ({ ...linkVisitKey(visit.link_id, visit.visit_id), type: ENTITY.linkVisit, ...visit });
const holdItem = (visit: LinkVisit) => ({ ...linkHoldKey(visit.link_id, visit.visit_id), type: ENTITY.linkHold, ...visit });

/**
 * Opens a buyer's visit: in one transaction, the link counts one more order (and, with a
 * quantity, one more unit held, on the condition that one is left) on the condition that it is
 * enabled and not expired, and the visit (and, when `visit.held`, its hold) is written. False when the link's
 * condition failed: disabled, expired, full or gone (the caller reads it again to say which).
 */
export async function openVisit(link: Pick<PaymentLink, 'link_id' | 'quantity'>, visit: LinkVisit, now: Date, requestKey?: string): Promise<boolean> {
  const held = visit.held;
  return transact([
    // The request that opened it, for its retries (findRequestVisit); kept a day, as the key.
    ...(requestKey
      ? [
          {
            Put: {
              TableName: tableName(),
              Item: { ...linkRequestKey(link.link_id, requestKey), type: ENTITY.linkRequest, ...visit, held, [TABLE_KEYS.ttlAttribute]: Math.floor(now.getTime() / 1000) + REQUEST_TTL_SECONDS },
            },
          },
        ]
      : []),
    {
      Update: {
        TableName: tableName(),
        Key: paymentLinkKey(link.link_id),
        UpdateExpression: held ? 'ADD order_count :one, reserved :one' : 'ADD order_count :one',
        ConditionExpression: [
          'attribute_exists(PK)',
          'enabled = :true',
          '(attribute_not_exists(expires_at) OR expires_at > :now)',
          held ? 'reserved < quantity' : 'attribute_not_exists(quantity)',
        ].join(' AND '),
        ExpressionAttributeValues: { ':one': 1, ':true': true, ':now': now.toISOString() },
      },
    },
    { Put: { TableName: tableName(), Item: visitItem({ ...visit, held }), ConditionExpression: 'attribute_not_exists(PK)' } },
    ...(held ? [{ Put: { TableName: tableName(), Item: holdItem({ ...visit, held }), ConditionExpression: 'attribute_not_exists(PK)' } }] : []),
  ]);
}

/**
 * The visit an earlier try of the same buyer's request opened (its unit held for it), if any:
 * a try whose visit was written but that could not go on (the store failed after the write)
 * leaves it, and its retry makes that visit's order instead of holding a second unit.
 */
export async function findRequestVisit(linkId: string, requestKey: string): Promise<LinkVisit | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: linkRequestKey(linkId, requestKey), ConsistentRead: true }));
  return result.Item ? (stripKeys<LinkVisit & { type?: string }>(result.Item) as LinkVisit) : undefined;
}

/** Records the order id of a visit once its order is stored (merchants whose order ids are not derived). */
export async function recordVisitOrder(visit: LinkVisit, orderId: string): Promise<void> {
  const keys = [linkVisitKey(visit.link_id, visit.visit_id), ...(visit.held ? [linkHoldKey(visit.link_id, visit.visit_id)] : [])];
  for (const key of keys) {
    try {
      await db().send(
        new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'SET order_id = :id', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':id': orderId } }),
      );
    } catch (error) {
      // A hold already given back or settled has nothing to record.
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    }
  }
}

/**
 * Takes back a visit whose order was never stored (its creation failed): the visit, its hold
 * and the link's counts, in one transaction, on the condition (when the order id is known) that
 * no order has that id. False when something had changed.
 */
export async function undoVisit(visit: LinkVisit, requestKey?: string): Promise<boolean> {
  return transact([
    { Delete: { TableName: tableName(), Key: linkVisitKey(visit.link_id, visit.visit_id), ConditionExpression: 'attribute_exists(PK)' } },
    // Taken back with it: a retry of the request opens a visit of its own.
    ...(requestKey ? [{ Delete: { TableName: tableName(), Key: linkRequestKey(visit.link_id, requestKey) } }] : []),
    ...(visit.held ? [{ Delete: { TableName: tableName(), Key: linkHoldKey(visit.link_id, visit.visit_id), ConditionExpression: 'attribute_exists(PK)' } }] : []),
    {
      Update: {
        TableName: tableName(),
        Key: paymentLinkKey(visit.link_id),
        UpdateExpression: visit.held ? 'ADD order_count :minus, reserved :minus' : 'ADD order_count :minus',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':minus': -1 },
      },
    },
    ...(visit.order_id ? [{ ConditionCheck: { TableName: tableName(), Key: orderKey(visit.order_id), ConditionExpression: 'attribute_not_exists(PK)' } }] : []),
  ]);
}

/** The open holds of a link (units held by orders not yet settled), oldest first. */
export async function listHolds(linkId: string, limit: number): Promise<LinkVisit[]> {
  const result = await query({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': linkPartition(linkId), ':prefix': LINK_HOLD_PREFIX },
    ConsistentRead: true,
    Limit: limit,
  });
  return (result.Items ?? []).map((item) => stripKeys<LinkVisit>(item));
}

/**
 * Gives a held unit back to its link: the hold goes and the link's `reserved` drops by one, in
 * one transaction, on the condition that the order expired or was canceled (or, `orderId`
 * absent or never stored, that no order has the id). False when the condition failed.
 */
export async function releaseHold(visit: LinkVisit, orderStored: boolean): Promise<boolean> {
  return transact([
    { Delete: { TableName: tableName(), Key: linkHoldKey(visit.link_id, visit.visit_id), ConditionExpression: 'attribute_exists(PK)' } },
    {
      Update: {
        TableName: tableName(),
        Key: paymentLinkKey(visit.link_id),
        UpdateExpression: 'ADD reserved :minus',
        ConditionExpression: 'reserved > :zero',
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      },
    },
    ...(visit.order_id
      ? [
          {
            ConditionCheck: {
              TableName: tableName(),
              Key: orderKey(visit.order_id),
              ConditionExpression: orderStored ? '#status IN (:expired, :canceled)' : 'attribute_not_exists(PK)',
              ExpressionAttributeNames: orderStored ? { '#status': 'status' } : undefined,
              ExpressionAttributeValues: orderStored ? { ':expired': 'EXPIRED', ':canceled': 'CANCELED' } : undefined,
            },
          },
        ]
      : []),
  ]);
}

/** Drops the hold of a unit sold for good (its order was paid): the unit stays counted in `reserved`. */
export async function settleHold(visit: LinkVisit): Promise<void> {
  try {
    await db().send(new DeleteCommand({ TableName: tableName(), Key: linkHoldKey(visit.link_id, visit.visit_id), ConditionExpression: 'attribute_exists(PK)' }));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** A page of a link's visits, newest first, after the visit id `after`. */
export async function listVisits(linkId: string, limit: number, after?: string): Promise<{ visits: LinkVisit[]; last?: string }> {
  const result = await query({
    KeyConditionExpression: after ? 'PK = :pk AND SK BETWEEN :prefix AND :after' : 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': linkPartition(linkId), ':prefix': LINK_VISIT_PREFIX, ...(after ? { ':after': `${LINK_VISIT_PREFIX}${after}` } : {}) },
    ScanIndexForward: false,
    Limit: limit,
  });
  const visits = (result.Items ?? []).map((item) => stripKeys<LinkVisit>(item)).filter((visit) => visit.visit_id !== after);
  return { visits, last: result.LastEvaluatedKey ? visits.at(-1)?.visit_id : undefined };
}

/** Every visit of a link (the figures of the portal's list read them all: see docs/performance.md). */
export async function allVisits(linkId: string): Promise<LinkVisit[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': linkPartition(linkId), ':prefix': LINK_VISIT_PREFIX },
    ProjectionExpression: 'visit_id, link_id, merchant_order_id, order_id, created_at',
  });
  return items.map((item) => ({ ...(item as unknown as LinkVisit), held: false }));
}
