/**
 * The payments a block chain watcher booked from blocks that have not reached their
 * confirmations yet: re-reported as blocks arrive, taken back if their block leaves the chain.
 * They live in the chain's own partition (keys.ts: CHAIN#<chain>), by block height.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, queryAll, tableName } from '#shared/store/client';
import { chainPartition, ENTITY, heightSortKey, MATURING_PREFIX, maturingPaymentKey } from '#shared/store/keys';
import type { RefundTarget } from '#shared/store/address-index';

/** A payment booked from a block short of its confirmations (see the module's comment). */
export interface MaturingPayment {
  chain: string;
  height: number;
  block_hash: string;
  /** The payment's chain key (txid:vout). */
  key: string;
  txid: string;
  currency: string;
  amount: string;
  order_id: string;
  /** Empty for a refund's payment. */
  invoice_id: string;
  /** A payment to a buyer's refund address (refund-watches.ts): the refund it pays. */
  refund?: RefundTarget;
  /** The address it paid (an invoice's or a refund's; absent on items written before 2026-12-02), kept if it matures unbookable. */
  address?: string;
}

const MATURING_FIELDS = ['chain', 'height', 'block_hash', 'key', 'txid', 'currency', 'amount', 'order_id', 'invoice_id', 'refund', 'address'] as const;

/** Records (or re-records: same key, same item) a maturing payment. */
export async function saveMaturingPayment(payment: MaturingPayment): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...maturingPaymentKey(payment.chain, payment.height, payment.key), type: ENTITY.maturingPayment, ...payment },
    }),
  );
}

/** The chain's maturing payments, lowest block first; with `above`, only those in blocks higher than it. */
export async function listMaturingPayments(chain: string, above?: number): Promise<MaturingPayment[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': chainPartition(chain),
      // '#' sorts below every digit: PAYMENT#<above+1>... is the first key above `above`.
      ':from': `${MATURING_PREFIX}${above === undefined ? '' : heightSortKey(above + 1)}`,
      ':to': `${MATURING_PREFIX}~`,
    },
    ConsistentRead: true,
  });
  return items.map((item) => Object.fromEntries(MATURING_FIELDS.filter((field) => item[field] !== undefined).map((field) => [field, item[field]])) as unknown as MaturingPayment);
}

/**
 * Whether a payment to `orderId` waits for its confirmations on `chain` (it is in a block):
 * one Query of the chain's maturing payments (few: those of the last blocks), filtered by order.
 */
export async function hasMaturingPayment(chain: string, orderId: string): Promise<boolean> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    FilterExpression: 'order_id = :order',
    ExpressionAttributeValues: { ':pk': chainPartition(chain), ':prefix': MATURING_PREFIX, ':order': orderId },
    ProjectionExpression: 'order_id',
    ConsistentRead: true,
  });
  return items.length > 0;
}

/** Done with a maturing payment (it reached its confirmations, or its block left the chain). */
export async function deleteMaturingPayment(payment: Pick<MaturingPayment, 'chain' | 'height' | 'key'>): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: maturingPaymentKey(payment.chain, payment.height, payment.key) }));
}
