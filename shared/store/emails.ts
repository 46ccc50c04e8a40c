import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { EmailPreferences } from '#shared/domain/email';
import { batchGetAll } from '#shared/store/batches';
import { db, queryAll, tableName } from '#shared/store/client';
import { updateIf } from '#shared/store/conditional';
import { isConditionFailure } from '#shared/store/errors';
import { emailKey, ENTITY, paymentDigestKey, paymentDigestPartition, portalUserKey, suppressedAddressKey } from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';

/** Email items are kept a month (a redelivered event is days old at most); digests a week. */
const EMAIL_TTL_SECONDS = 30 * 86_400;
const DIGEST_TTL_SECONDS = 7 * 86_400;

const epoch = (now: Date, plusSeconds: number): number => Math.floor(now.getTime() / 1000) + plusSeconds;

/** An address's key in the suppression list: the SHA-256 of the address, lower-cased. */
export const addressHash = (address: string): string => createHash('sha256').update(address.trim().toLowerCase()).digest('hex');

// --- Preferences (on the portal user's item) ---------------------------------------------------

/** Stores a user's email preferences, if the user is still an active member of the merchant. */
export function saveEmailPreferences(userId: string, merchantId: number, preferences: EmailPreferences): Promise<boolean> {
  return updateIf(portalUserKey(userId), {
    UpdateExpression: 'SET email_preferences = :preferences',
    ConditionExpression: 'merchant_id = :merchant AND attribute_not_exists(removed_at) AND (attribute_not_exists(disabled) OR disabled = :no)',
    ExpressionAttributeValues: { ':preferences': preferences, ':merchant': merchantId, ':no': false },
  });
}

// --- One email of one event to one recipient ---------------------------------------------------

/**
 * Where one email stands: being sent (under a lease), sent, or not sent: a suppressed address, refused by
 * the transport for good, or over one of the mail limits (shared/email/limits.ts; `limited_by` names it).
 */
export type EmailState = 'SENDING' | 'SENT' | 'SUPPRESSED' | 'REFUSED' | 'LIMITED';

/** A claimed email: the lease, and whether an earlier attempt counted it in the mail limits already (its send failed). */
export interface EmailClaim {
  lease: string;
  counted: boolean;
}

/**
 * The email's claim is held, until `heldUntil` (ISO), by another try: one sending it now, or one
 * that failed before it could let go (its claim landed and its answer was lost, or its release
 * failed). Not sent yet, so the caller must try again once the lease is over.
 */
export interface EmailHeld {
  heldUntil: string;
}

/**
 * Claims the email of `eventId` to `recipient` for `leaseSeconds`: written if it was never
 * claimed, or taken over when a worker's lease ran out before it was sent (a crash). Undefined
 * when it ended already (sent, suppressed, refused, over its limit): the caller sends nothing.
 * {@link EmailHeld} while another try's lease lasts.
 */
export async function claimEmail(eventId: string, recipient: string, now: Date, leaseSeconds: number): Promise<EmailClaim | EmailHeld | undefined> {
  const leaseUntil = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
  // This claim's own id: the SDK's retry of a claim whose answer was lost finds it and goes on,
  // where it would otherwise read its own lease as another's and send nothing, the email lost.
  const claim = randomUUID();
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: emailKey(eventId, recipient),
        UpdateExpression: 'SET #type = :type, #state = :sending, lease_until = :lease, claim_id = :claim, #ttl = :ttl ADD attempts :one',
        ConditionExpression: 'attribute_not_exists(PK) OR (#state = :sending AND (lease_until < :now OR claim_id = :claim))',
        ExpressionAttributeNames: { '#type': 'type', '#state': 'state', '#ttl': TABLE_KEYS.ttlAttribute },
        ExpressionAttributeValues: {
          ':type': ENTITY.email,
          ':sending': 'SENDING',
          ':claim': claim,
          ':lease': leaseUntil,
          ':now': now.toISOString(),
          ':ttl': epoch(now, EMAIL_TTL_SECONDS),
          ':one': 1,
        },
        // Only to learn whether a failed attempt counted it already (releaseEmail marks it).
        ReturnValues: 'ALL_NEW',
        // Refused: whether it ended, or another try's lease holds it.
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { lease: leaseUntil, counted: Attributes?.counted === true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const old = (error as { Item?: Record<string, AttributeValue> }).Item;
    const held = old ? unmarshall(old) : undefined;
    return held?.state === 'SENDING' && typeof held.lease_until === 'string' ? { heldUntil: held.lease_until } : undefined;
  }
}

/**
 * Records how a claimed email ended (sent, or not sent: a suppressed address, refused, or over
 * the limit `limitedBy`).
 */
export async function finishEmail(
  eventId: string,
  recipient: string,
  lease: string,
  state: Exclude<EmailState, 'SENDING'>,
  now: Date,
  outcome: { messageId?: string; limitedBy?: string } = {},
): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: emailKey(eventId, recipient),
      UpdateExpression: `SET #state = :state, finished_at = :now, message_id = :id${outcome.limitedBy ? ', limited_by = :limit' : ''} REMOVE lease_until`,
      ConditionExpression: 'lease_until = :lease',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':state': state,
        ':now': now.toISOString(),
        ':lease': lease,
        ':id': outcome.messageId ?? '',
        ...(outcome.limitedBy ? { ':limit': outcome.limitedBy } : {}),
      },
    }),
  );
}

/**
 * A send failed: the lease ends now (the job's retry may claim it again), the error noted, and
 * whether the email was `counted` in the mail limits already: a send fails after the count, and
 * its retries are not counted again (a transport failing for hours would otherwise use up a
 * buyer's day); a count that failed half-way is counted again.
 */
export async function releaseEmail(eventId: string, recipient: string, lease: string, error: string, now: Date, counted: boolean): Promise<void> {
  // Refused: the lease was taken over or the email finished meanwhile; nothing to release.
  await updateIf(emailKey(eventId, recipient), {
    UpdateExpression: 'SET lease_until = :now, last_error = :error, counted = :counted',
    ConditionExpression: 'lease_until = :lease',
    ExpressionAttributeValues: { ':now': now.toISOString(), ':lease': lease, ':error': error.slice(0, 200), ':counted': counted },
  });
}

/** The email of `eventId` to `recipient`, as recorded (tests, the operator). */
export async function findEmail(
  eventId: string,
  recipient: string,
): Promise<{ state: EmailState; attempts: number; message_id?: string; last_error?: string; limited_by?: string; counted?: boolean } | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: emailKey(eventId, recipient), ConsistentRead: true }));
  return result.Item as { state: EmailState; attempts: number; message_id?: string; limited_by?: string; counted?: boolean } | undefined;
}

// --- Suppressed addresses (bounces, complaints) -------------------------------------------------

/** Records that mail to `address` bounced for good or was marked as spam: nothing more is sent there. */
export async function suppressAddress(address: string, reason: string, now: Date): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...suppressedAddressKey(addressHash(address)), type: ENTITY.suppressedAddress, reason: reason.slice(0, 200), at: now.toISOString() },
    }),
  );
}

/** Which of `addresses` are suppressed (one BatchGet: a handful of recipients per event). */
export async function suppressedAmong(addresses: readonly string[]): Promise<Set<string>> {
  const byHash = new Map(addresses.map((address) => [addressHash(address), address]));
  const items = await batchGetAll(
    [...byHash.keys()].map((hash) => suppressedAddressKey(hash)),
    { projection: 'PK' },
  );
  return new Set(items.map((item) => byHash.get(String(item.PK).slice('SUPPRESSED#'.length))).filter((address): address is string => address !== undefined));
}

// --- The daily summary's counts ------------------------------------------------------------------

/** A merchant's payments of one day: how many, and their total in each price currency. */
export interface PaymentDigest {
  merchant_id: number;
  day: string;
  count: number;
  totals: Record<string, string>;
}

/**
 * Counts one paid order in its merchant's digest of `day`, once per event (the event's digest
 * marker is written in the same transaction). False when the event was counted already.
 */
export async function countPaymentOnce(eventId: string, merchantId: number, day: string, currency: string, amount: string, now: Date): Promise<boolean> {
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...emailKey(eventId, 'digest'), type: ENTITY.email, state: 'SENT', [TABLE_KEYS.ttlAttribute]: epoch(now, EMAIL_TTL_SECONDS) },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: paymentDigestKey(day, merchantId),
              UpdateExpression: 'SET #type = :type, merchant_id = :merchant, #day = :day, #ttl = :ttl ADD paid_count :one, #total :amount',
              ExpressionAttributeNames: { '#type': 'type', '#day': 'day', '#ttl': TABLE_KEYS.ttlAttribute, '#total': `total_${currency}` },
              ExpressionAttributeValues: { ':type': ENTITY.paymentDigest, ':merchant': merchantId, ':day': day, ':ttl': epoch(now, DIGEST_TTL_SECONDS), ':one': 1, ':amount': Number(amount) },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

const digestOf = (item: Record<string, unknown>): PaymentDigest => ({
  merchant_id: Number(item.merchant_id),
  day: String(item.day),
  count: Number(item.paid_count ?? 0),
  totals: Object.fromEntries(
    Object.entries(item)
      .filter(([name]) => name.startsWith('total_'))
      .map(([name, value]) => [name.slice('total_'.length), String(value)]),
  ),
});

/** A merchant's digest of `day`, if it was paid that day. */
export async function findPaymentDigest(day: string, merchantId: number): Promise<PaymentDigest | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: paymentDigestKey(day, merchantId), ConsistentRead: true }));
  return result.Item ? digestOf(result.Item) : undefined;
}

/** The merchants paid on `day` (whose users may want its summary). */
export async function merchantsPaidOn(day: string): Promise<number[]> {
  const items = await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': paymentDigestPartition(day) }, ProjectionExpression: 'SK' });
  return items.map((item) => Number(item.SK));
}
