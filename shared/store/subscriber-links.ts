import { createHash, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { apiConfig } from '#shared/core/config';
import { serverSecret } from '#shared/core/server-key';
import type { SubscriptionPeriod } from '#shared/domain/subscription';
import { db, query, tableName } from '#shared/store/client';
import { cancellationReasons, isConditionFailure } from '#shared/store/errors';
import { type Item, stripKeys } from '#shared/store/items';
import { ENTITY, subscriberLinkKey, subscriberLinkRequestKey, subscriberLinkStateKey, subscriberMailboxKey, subscriberMailboxPartition, subscriptionPeriodKey } from '#shared/store/keys';

/**
 * The subscriber's page link (no account: the link is the subscriber's only capability). Its
 * secret is made again from the subscription and the link's version with the server's key, as a
 * refund link's is, so every email can carry it while the table holds only its SHA-256: a
 * pointer item by that hash, and the state item in the subscription's partition that says which
 * version works now. A new version replaces the pointer in one transaction, so an old secret
 * finds nothing. Here, below the services and the email sender, because both make the link: the
 * subscriber's page opens it, every subscriber email carries it.
 */

/** How a subscription came to be: the plan's public link (anyone may have typed the address) or the merchant's API. */
export type SubscriberVia = 'plan_link' | 'api';

/** Which of a subscription's links works now, and what the subscriber emails need to know of it. */
export interface SubscriberLinkState {
  subscription_id: string;
  user_id: number;
  plan_id: string;
  version: number;
  via: SubscriberVia;
  created_at: string;
  updated_at: string;
}

const LINK_PURPOSE = 'subscriber-link';

/** A write refused by its condition (not one that met another transaction: that is thrown, and retried by the caller's request). */
const refused = (error: unknown): boolean =>
  (error as { name?: string }).name === 'ConditionalCheckFailedException' || (isConditionFailure(error) && cancellationReasons(error).includes('ConditionalCheckFailed'));

/** The secret of version `version` of a subscription's page link: 43 base64url characters, never stored. */
export const subscriberSecret = (subscriptionId: string, version: number): Promise<string> => serverSecret(LINK_PURPOSE, `${subscriptionId}\n${version}`);

/** What the table keeps of a link's secret. */
export const subscriberLinkHash = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** The subscriber's page on the payment site: the secret in the fragment, so no server or CDN log holds it (the page sends it in a POST body). */
export async function subscriberUrl(subscriptionId: string, version: number): Promise<string> {
  const url = new URL(apiConfig().paymentPageUrl);
  url.hash = `subscription=${await subscriberSecret(subscriptionId, version)}`;
  return url.toString();
}

/** The SHA-256 of an address, lower-cased: the mailbox index's key part (the address itself is never a key). */
export const subscriberAddressHash = (address: string): string => createHash('sha256').update(address.trim().toLowerCase(), 'utf8').digest('hex');

/** The subscription's link state, strongly consistent, or undefined before its first link. */
export async function findSubscriberLinkState(subscriptionId: string): Promise<SubscriberLinkState | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: subscriberLinkStateKey(subscriptionId), ConsistentRead: true }));
  return result.Item ? stripKeys<SubscriberLinkState>(result.Item) : undefined;
}

const pointerItem = async (subscriptionId: string, version: number): Promise<Item> => ({
  ...subscriberLinkKey(subscriberLinkHash(await subscriberSecret(subscriptionId, version))),
  type: ENTITY.subscriberLink,
  subscription_id: subscriptionId,
  version,
});

/**
 * The subscription's first link, made once (the state, the pointer by its hash and, with an
 * address, the mailbox index entry, in one transaction); a second call, or a concurrent one,
 * finds the state the first wrote. Made when the subscription is started from its plan's link,
 * else by the email sender before the subscriber's first email.
 */
export async function ensureSubscriberLink(
  subscription: { subscription_id: string; user_id: number; plan_id: string; customer_email?: string },
  via: SubscriberVia,
  now: Date,
): Promise<SubscriberLinkState> {
  const existing = await findSubscriberLinkState(subscription.subscription_id);
  if (existing) return existing;
  const state: SubscriberLinkState = {
    subscription_id: subscription.subscription_id,
    user_id: subscription.user_id,
    plan_id: subscription.plan_id,
    version: 1,
    via,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  const mailbox = subscription.customer_email
    ? [
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...subscriberMailboxKey(subscription.plan_id, subscriberAddressHash(subscription.customer_email), subscription.subscription_id),
              type: ENTITY.subscriberMailbox,
              subscription_id: subscription.subscription_id,
            },
          },
        },
      ]
    : [];
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName(), Item: { ...subscriberLinkStateKey(state.subscription_id), type: ENTITY.subscriberLinkState, ...state }, ConditionExpression: 'attribute_not_exists(PK)' } },
          { Put: { TableName: tableName(), Item: await pointerItem(state.subscription_id, 1) } },
          ...mailbox,
        ],
      }),
    );
    return state;
  } catch (error) {
    // Another call made it first: its state stands.
    const made = refused(error) ? await findSubscriberLinkState(subscription.subscription_id) : undefined;
    if (!made) throw error;
    return made;
  }
}

/**
 * Replaces the subscription's link with the next version, on the condition that `from` is still
 * the current one: the old pointer is deleted and the new one written with the state, in one
 * transaction. Undefined when another change moved it first (the caller's secret is then old).
 */
export async function renewSubscriberLink(from: SubscriberLinkState, now: Date): Promise<SubscriberLinkState | undefined> {
  const next: SubscriberLinkState = { ...from, version: from.version + 1, updated_at: now.toISOString() };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...subscriberLinkStateKey(next.subscription_id), type: ENTITY.subscriberLinkState, ...next },
              ConditionExpression: 'version = :read',
              ExpressionAttributeValues: { ':read': from.version },
            },
          },
          { Delete: { TableName: tableName(), Key: subscriberLinkKey(subscriberLinkHash(await subscriberSecret(from.subscription_id, from.version))) } },
          { Put: { TableName: tableName(), Item: await pointerItem(next.subscription_id, next.version) } },
        ],
      }),
    );
    return next;
  } catch (error) {
    if (refused(error)) return undefined;
    throw error;
  }
}

/** The subscription and link version a secret's hash points at, or undefined (a wrong or replaced secret). */
export async function findSubscriberLink(secretHash: string): Promise<{ subscription_id: string; version: number } | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: subscriberLinkKey(secretHash), ConsistentRead: true }));
  if (!result.Item) return undefined;
  return { subscription_id: String(result.Item.subscription_id), version: Number(result.Item.version) };
}

/** The most subscriptions of one address to one plan that "email me my link" answers for. */
export const MAILBOX_SUBSCRIPTIONS = 10;

/** The subscriptions to `planId` started with `address` (lower-cased), at most {@link MAILBOX_SUBSCRIPTIONS}. */
export async function subscriptionsOfAddress(planId: string, address: string): Promise<string[]> {
  const result = await query({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': subscriberMailboxPartition(planId, subscriberAddressHash(address)) },
    Limit: MAILBOX_SUBSCRIPTIONS,
  });
  return (result.Items ?? []).map((item) => String(item.subscription_id));
}

/** A request for a subscriber's page link by email, as stored until its email is sent (a day at most). */
export interface SubscriberLinkRequest {
  request_id: string;
  user_id: number;
  plan_id: string;
  email: string;
  created_at: string;
}

const REQUEST_TTL_SECONDS = 86_400;

/**
 * Stores a request for the page links of `email`'s subscriptions to a plan: the same one write
 * whether the address has any or not, so neither the answer nor its time tells (the email
 * sender looks them up from the stream's record, and mails only the address they were started with).
 */
export async function insertSubscriberLinkRequest(request: Omit<SubscriberLinkRequest, 'request_id'>, now: Date): Promise<SubscriberLinkRequest> {
  const stored: SubscriberLinkRequest = { request_id: randomUUID(), ...request };
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...subscriberLinkRequestKey(stored.request_id), type: ENTITY.subscriberLinkRequest, ...stored, expires_at_epoch: Math.floor(now.getTime() / 1000) + REQUEST_TTL_SECONDS },
    }),
  );
  return stored;
}

/** One period item (an attempt's order) of a subscription, or undefined. */
export async function findPeriod(subscriptionId: string, period: number, attempt: number): Promise<SubscriptionPeriod | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: subscriptionPeriodKey(subscriptionId, period, attempt) }));
  return result.Item ? stripKeys<SubscriptionPeriod>(result.Item) : undefined;
}
