/**
 * The payments a watcher could not book (`UNMATCHED#<payment key>` in the chain's or source's
 * partition, keys.ts: CHAIN#<name>; booking.ts keeps them): an EOS transfer whose memo names no
 * invoice, a TON transfer whose comment or a Stellar payment whose memo matches no open invoice,
 * and on any chain a payment whose order is gone (ORDER_GONE) or that its invoice refuses
 * (NOT_BOOKABLE: finer than its currency). None can be booked on an order, so each is kept here
 * for an operator, once per payment key.
 *
 * A payment to a merchant's own wallet (TON, Stellar: one account per merchant, told apart by
 * the memo) is the merchant's money: it is kept in the same transaction under each merchant
 * whose wallet it is too (`UNMATCHED#<seen at>#<payment key>` in the merchant's partition),
 * which the portal lists newest first, so the merchant can return it or settle it with the
 * buyer. A payment to the platform's wallet, or to an EOS memo, belongs to no one merchant.
 */
import { PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, queryAll, tableName } from '#shared/store/client';
import { isConditionFailure, isTransactionConflict } from '#shared/store/errors';
import { chainPartition, ENTITY, MERCHANT_UNMATCHED_PREFIX, merchantKey, merchantUnmatchedKey } from '#shared/store/keys';

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
 * Keeps an unmatched payment (and its copy under each of `merchants`, the owners of the wallet
 * it paid); true the first time its key is seen, false when it was already
 * kept (a second run, a restart: nothing changes). The report of the first time is what the
 * watcher logs and counts, so an operator hears of each payment once at most: when the answer
 * to the first write was lost, the retry finds it kept and reports it as not new (it is in the
 * table, and in the merchant's portal, all the same).
 */
export async function saveUnmatchedPayment(payment: UnmatchedPayment, merchants: readonly number[] = []): Promise<boolean> {
  const item = { PK: chainPartition(payment.chain), SK: `${UNMATCHED_PREFIX}${payment.key}`, type: ENTITY.unmatchedPayment, ...payment };
  const condition = 'attribute_not_exists(PK)';
  try {
    if (merchants.length === 0) await db().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: condition }));
    else {
      // A transaction holds 100 writes: the chain's item and 99 owners (one wallet is one merchant's in practice).
      const copies = merchants
        .slice(0, 99)
        .map((userId) => ({ Put: { TableName: tableName(), Item: { ...merchantUnmatchedKey(userId, payment.seen_at, payment.key), type: ENTITY.unmatchedPayment, ...payment } } }));
      await db().send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: tableName(), Item: item, ConditionExpression: condition } }, ...copies] }));
    }
    return true;
  } catch (error) {
    // Cancelled by another transaction on an item: nothing was written, so the step fails and is tried again.
    if (isConditionFailure(error) && !isTransactionConflict(error)) return false;
    throw error;
  }
}

const unmatchedOf = (item: Record<string, unknown>): UnmatchedPayment =>
  Object.fromEntries(UNMATCHED_FIELDS.filter((field) => item[field] !== undefined).map((field) => [field, item[field]])) as unknown as UnmatchedPayment;

/**
 * One page of the payments to the merchant's own wallets that no invoice took, newest first,
 * after `after` (the last one's sort key from the page before); `next` only when more follow.
 */
export async function listMerchantUnmatched(userId: number, limit: number, after?: string): Promise<{ payments: UnmatchedPayment[]; next?: string }> {
  const partition = merchantKey(userId).PK;
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': partition, ':prefix': MERCHANT_UNMATCHED_PREFIX },
      ...(after?.startsWith(MERCHANT_UNMATCHED_PREFIX) ? { ExclusiveStartKey: { PK: partition, SK: after } } : {}),
      ScanIndexForward: false,
      // One more than the page: `next` is given only when a row is left for it.
      Limit: limit + 1,
    }),
  );
  const items = result.Items ?? [];
  const page = items.slice(0, limit);
  return { payments: page.map(unmatchedOf), ...(items.length > limit ? { next: String(page[page.length - 1]!.SK) } : {}) };
}

/** The source's unmatched payments (an operator's list), by payment key. */
export async function listUnmatchedPayments(chain: string): Promise<UnmatchedPayment[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': chainPartition(chain), ':prefix': UNMATCHED_PREFIX },
  });
  return items.map(unmatchedOf);
}
