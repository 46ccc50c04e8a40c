/**
 * Watching a refund's address (issue 30): the service holds no keys, so a merchant pays a
 * refund from their own wallet to the address the buyer gave, and the watchers see that
 * payment as they see an invoice's, at the same cost (it grows with blocks and payments, never
 * with what is open):
 *
 * - the address index (address-index.ts) gets an item of the refund kind for the address (and
 *   EOS memo), naming the refund; a booking that looks a transfer up finds it there and books it
 *   on the refund instead of an invoice (shared/watchers/booking.ts dispatches by the kind).
 *   Several refunds may wait on one address (a buyer gives the same one twice): each is an
 *   attribute of the one item, `refund:<refund_id>`, dropped once the refund is sent;
 * - the address goes where its chain's watcher looks: the open-address list of a block chain
 *   (watch-list.ts, its block chain items: BTC, LTC, BCH, every EVM network and token), TRON's
 *   watch list (matched against each range's Transfer events), Solana's watch list as a
 *   wallet (the Solana source reads the wallet's associated token account of the mint: a
 *   refund goes to the buyer's wallet, with no Solana Pay reference). EOS needs no list: the
 *   EOS watcher reads the receiving account's history, which has the account's outgoing
 *   transfers too (a merchant who pays from another account reports the transaction). A
 *   Lightning payment cannot be seen by our node: LBTC is never watched, the merchant reports
 *   the preimage (shared/watchers/refund-check.ts);
 * - the chain is kept in demand (watch-demand.ts) until the window ends, so its watcher scans
 *   every block meanwhile.
 *
 * The window is REFUND_WATCH_SECONDS (30 days) from the watch: past it, the address is no longer
 * on its chain's list and the chain not kept in demand for it; the merchant reports the
 * transaction instead (checked on chain whenever it was made), or {@link watchRefund} is called
 * again (the same refund, a new window).
 */
import { chainOf } from '#shared/domain/currencies';
import { RefundAddressError } from '#shared/domain/errors';
import { watchConfig } from '#shared/core/config';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { putIf, updateIf } from '#shared/store/conditional';
import { addressKey, ENTITY, refundPaymentKey } from '#shared/store/keys';
import { demandWatching } from '#shared/store/watch-demand';
import { BLOCK_CHAIN_ITEMS, endWatch, PER_ADDRESS_ITEMS, watchAddress } from '#shared/store/watch-list';
import { REFUND_ATTRIBUTE, REFUND_KIND, type RefundTarget, refundTargetOf } from '#shared/store/address-index';

/** What the refunds service asks to watch (docs/merchant-guide.md, "How a refund's payment is seen"). */
export interface RefundWatch {
  userId: number;
  orderId: string;
  refundId: string;
  /** The refund's pay currency (BTC, USDT_ERC20, USDT_TRC20, USDC_SOL, EOS, LBTC, ...). */
  currency: string;
  /**
   * In the form the chain's watcher reports it (the canonical form of
   * shared/payments/addresses: bech32 lowercase, CashAddr with its prefix, EIP-55, base58;
   * the EOS account).
   */
  address: string;
  /** EOS: the memo the buyer's account needs. */
  memo?: string;
  /** Exact decimal. */
  amount: string;
  /** ISO: when the address was set; nothing before it can pay the refund. */
  since: string;
}

/** An EOS memo as the EOS watcher reports it: trimmed, an invoice id (UUID) in lower case (indexed-watcher.ts). */
/**
 * The memo a refund's address-index key carries. TON's is none: the TON source reports what a
 * buyer's address receives without its comment (a merchant's own comment, or none, must not
 * stop the match), so the key is the address alone; the comment is still the refund's, shown to
 * the merchant to send with it.
 */
const indexMemo = (currency: string, memo: string | undefined): string | undefined => (currency === 'TON' || currency === 'USDT_TON' ? undefined : refundMemo(memo));

const refundMemo = (memo: string | undefined): string | undefined => {
  const trimmed = memo?.trim();
  return trimmed && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(trimmed) ? trimmed.toLowerCase() : trimmed || undefined;
};

/** The chain a refund in `currency` is seen on, as the demand item names it (a token's chain; LBTC and EOS themselves). */
const sourceChain = (currency: string): string => (currency === 'LBTC' || currency === 'EOS' ? currency : chainOf(currency));

/** The refusal of an address that is one of this service's invoice addresses (a refund there would pay the merchant's own invoice). */
const invoiceAddress = () => new RefundAddressError('This address receives payments to this service: a refund cannot be paid to it.');

/**
 * Refuses an address that is one of this service's invoice addresses, as {@link watchRefund}
 * does, without watching it: for a sandbox refund, which no watcher looks for (the merchant
 * completes it) but whose address is checked as a live one's, so a sandbox never accepts what
 * live would refuse. Only an invoice's item refuses: another refund's (a buyer's own address,
 * given again) does not. Read strongly: an address is indexed before anyone is shown it.
 */
export async function refuseInvoiceAddress(address: Pick<RefundWatch, 'currency' | 'address' | 'memo'>): Promise<void> {
  // As in watchRefund: a Lightning refund is a BOLT11 invoice of the buyer's, not an address.
  if (address.currency === 'LBTC') return;
  const found = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: addressKey(address.currency, address.address, indexMemo(address.currency, address.memo)),
      ConsistentRead: true,
      ProjectionExpression: '#kind',
      ExpressionAttributeNames: { '#kind': 'kind' },
    }),
  );
  if (found.Item && found.Item.kind !== REFUND_KIND) throw invoiceAddress();
}

/**
 * Watches a refund's address until REFUND_WATCH_SECONDS after `now` (see the module's comment).
 * Idempotent: the same refund watched again is the same index attribute, and a later window.
 * An address that is one of this service's invoice addresses is refused (it would pay the
 * merchant's own invoice): RefundAddressError (400).
 */
export async function watchRefund(watch: RefundWatch, now: Date = new Date()): Promise<void> {
  // A Lightning payment is not seen by our node: the merchant reports its preimage.
  if (watch.currency === 'LBTC') return;
  const until = new Date(now.getTime() + watchConfig().refundWatchSeconds * 1000).toISOString();
  const target: RefundTarget = { userId: watch.userId, orderId: watch.orderId, refundId: watch.refundId, amount: watch.amount, since: watch.since };
  const indexed = await updateIf(addressKey(watch.currency, watch.address, indexMemo(watch.currency, watch.memo)), {
    UpdateExpression: 'SET #type = :type, #kind = :kind, #refund = :target',
    ConditionExpression: 'attribute_not_exists(PK) OR #kind = :kind',
    ExpressionAttributeNames: { '#type': 'type', '#kind': 'kind', '#refund': `${REFUND_ATTRIBUTE}${watch.refundId}` },
    ExpressionAttributeValues: { ':type': ENTITY.address, ':kind': REFUND_KIND, ':target': target },
  });
  if (!indexed) throw invoiceAddress();
  const chain = sourceChain(watch.currency);
  if (chain === 'TRON' || chain === 'SOLANA' || chain === 'TON' || chain === 'STELLAR') {
    // Solana: the wallet itself (its token account is read), marked as a refund's (no reference);
    // TON and Stellar: the buyer's account, read as a merchant's is (the refund's memo, if any, is in the index's key).
    await watchAddress(PER_ADDRESS_ITEMS, {
      chain,
      address: watch.address,
      currency: watch.currency,
      since: watch.since,
      open_until: until,
      until,
      ...(chain === 'SOLANA' ? { recipient: watch.address, kind: 'refund' as const } : {}),
      ...(chain === 'TON' || chain === 'STELLAR' ? { kind: 'refund' as const } : {}),
    });
  } else if (chain !== 'EOS') {
    await watchAddress(BLOCK_CHAIN_ITEMS, { chain, currency: watch.currency, address: watch.address, until });
  }
  await demandWatching(chain, new Date(until));
}

/**
 * The refund is sent: its address no longer names it in the index. Once no refund waits on a
 * Solana wallet, its watch ends too (its token account is read every step otherwise); the other
 * lists' entries cost nothing and end with their window.
 */
export async function stopWatchingRefund(watch: Pick<RefundWatch, 'currency' | 'address' | 'memo' | 'refundId'>, now: Date = new Date()): Promise<void> {
  if (watch.currency === 'LBTC') return;
  let left: Record<string, unknown> | undefined;
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: addressKey(watch.currency, watch.address, indexMemo(watch.currency, watch.memo)),
        UpdateExpression: 'REMOVE #refund',
        ConditionExpression: '#kind = :kind',
        ExpressionAttributeNames: { '#kind': 'kind', '#refund': `${REFUND_ATTRIBUTE}${watch.refundId}` },
        ExpressionAttributeValues: { ':kind': REFUND_KIND },
        ReturnValues: 'ALL_NEW',
      }),
    );
    left = result.Attributes;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return;
    throw error;
  }
  const waiting = Object.keys(left ?? {}).some((name) => name.startsWith(REFUND_ATTRIBUTE));
  if (!waiting && sourceChain(watch.currency) === 'SOLANA') await endWatch('SOLANA', watch.address, now);
}

/**
 * Which refund a transfer pays, decided once: the first claim of the transfer's key (in its
 * currency) names `target`; a later one (a block scanned again, a maturing payment re-reported,
 * the merchant reporting the same transaction) gets the refund claimed first. So one transfer
 * never pays two refunds waiting on one address.
 */
export async function claimRefundPayment(currency: string, key: string, target: RefundTarget): Promise<RefundTarget> {
  const outcome = await putIf({ ...refundPaymentKey(currency, key), type: ENTITY.refundPayment, ...target }, { ConditionExpression: 'attribute_not_exists(PK)' });
  return outcome.written || !outcome.existing ? target : refundTargetOf(outcome.existing);
}
