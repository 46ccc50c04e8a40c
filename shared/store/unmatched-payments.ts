/**
 * The payments an indexed source's watcher found no invoice for (`UNMATCHED#<payment key>` in
 * the source's partition, keys.ts: CHAIN#<name>): an EOS transfer whose memo names no invoice
 * (or a settled Lightning invoice that is not ours) cannot be booked on any order, so it is
 * kept here for an operator, once per payment key.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, queryAll, tableName } from '#shared/store/client';
import { isConditionFailure } from '#shared/store/errors';
import { chainPartition, ENTITY } from '#shared/store/keys';

const UNMATCHED_PREFIX = 'UNMATCHED#';

/** A payment no invoice could take (see the module's comment). */
export interface UnmatchedPayment {
  chain: string;
  key: string;
  txid: string;
  currency: string;
  amount: string;
  /** The receiving address or account, and the memo it carried (EOS). */
  address: string;
  memo?: string;
  /** Why it was not booked. */
  reason: string;
  seen_at: string;
}

const UNMATCHED_FIELDS = ['chain', 'key', 'txid', 'currency', 'amount', 'address', 'memo', 'reason', 'seen_at'] as const;

/**
 * Keeps an unmatched payment; true the first time its key is seen, false when it was already
 * kept (a second run, a restart: nothing changes). The report of the first time is what the
 * watcher logs and counts, so an operator hears of each payment once (twice at worst, when the
 * answer to the first write was lost and it was tried again).
 */
export async function saveUnmatchedPayment(payment: UnmatchedPayment): Promise<boolean> {
  const item = { PK: chainPartition(payment.chain), SK: `${UNMATCHED_PREFIX}${payment.key}`, type: ENTITY.unmatchedPayment, ...payment };
  try {
    await db().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The source's unmatched payments (an operator's list), by payment key. */
export async function listUnmatchedPayments(chain: string): Promise<UnmatchedPayment[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': chainPartition(chain), ':prefix': UNMATCHED_PREFIX },
  });
  return items.map(
    (item) => Object.fromEntries(UNMATCHED_FIELDS.filter((field) => item[field] !== undefined).map((field) => [field, item[field]])) as unknown as UnmatchedPayment,
  );
}
