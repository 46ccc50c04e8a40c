/** The expiry sweep: due NEW and PENDING orders expired, from the due-order index. */
import { apiConfig } from '#shared/core/config';
import { ConcurrentUpdateError, UnknownOrderError } from '#shared/domain/errors';
import { countingPayments, type Found, moveTo, touch } from '#shared/domain/order';
import { changeOrder, unknownOrder } from '#shared/services/order-changes';
import { type DueCursor, findDueOrders } from '#shared/store/due-orders';
import { hasMaturingPayment } from '#shared/store/maturing-payments';
import { chainOf, isGateway } from '#shared/domain/currencies';

/** How the expiry sweep walks the due orders. */
export interface ExpirySweep {
  /** Due orders read per page (over all shards of the index). */
  pageSize: number;
  /** Orders expired at once. */
  concurrency: number;
  /** At most this many orders per run; the next run continues (it runs every minute). */
  maxOrders: number;
}

const EXPIRY_SWEEP: ExpirySweep = { pageSize: 100, concurrency: 8, maxOrders: 2_000 };

/** Asked before an order is expired; `keep` leaves it NEW for the next run. */
export type BeforeExpiry = (found: Found, now: Date) => Promise<'expire' | 'keep'>;

/** Expires one due order; true if this call expired it. */
async function expireOrder(orderId: string, now: Date, beforeExpiry?: BeforeExpiry): Promise<boolean> {
  const result = await changeOrder(orderId, undefined, unknownOrder, async (found) => {
    const due = found.order.due_at;
    if (!due || Date.parse(due) > now.getTime()) return undefined;
    if (found.order.status === 'PENDING') return expirePending(found, now);
    if (found.order.status !== 'NEW') return undefined;
    if (beforeExpiry && (await beforeExpiry(found, now)) === 'keep') return undefined;
    return moveTo(found, 'EXPIRED', now);
  });
  return result.order.status === 'EXPIRED' && result.order.updated_at === now.toISOString();
}

/**
 * A due PENDING order. A payment keeps the due time the order had while NEW (its invoice's
 * expiry): moving it would rewrite the order's expiry index entry in the PENDING transaction
 * (4 WRU), and most payments are final before then. Still PENDING at that time, it is due again
 * UNCONFIRMED_TIMEOUT_SECONDS after its invoice expired. Past that: EXPIRED when none of its
 * payments ever reached a block (dropped from the mempool, or double-spent); with one in a block
 * (recorded on the invoice, or maturing on its chain: watchers/maturing.ts) it is only short of
 * confirmations (the watcher completes it, or takes it back in a reorganisation): looked at
 * again after another timeout.
 */
async function expirePending(found: Found, now: Date) {
  const timeoutMs = apiConfig().unconfirmedTimeoutSeconds * 1000;
  const deadline = found.invoice ? Date.parse(found.invoice.expired_at) + timeoutMs : 0;
  if (now.getTime() < deadline) return { order: { ...touch(found.order, now), due_at: new Date(deadline).toISOString() } };
  const inBlock =
    countingPayments(found.invoice?.payments ?? []).some((payment) => payment.block_height !== undefined || payment.confirmations > 0) ||
    // A block watcher records a payment it first saw unconfirmed only once it is final; until then its block is in the maturing payments.
    (found.invoice !== undefined && !isGateway(found.invoice.pay_currency) && (await hasMaturingPayment(chainOf(found.invoice.pay_currency), found.order.order_id)));
  if (!inBlock) return moveTo(found, 'EXPIRED', now);
  const order = { ...touch(found.order, now), due_at: new Date(now.getTime() + timeoutMs).toISOString() };
  return { order };
}

/**
 * Expires NEW orders whose due time has passed (their invoice's expired_at, or the window
 * for orders never checked out), from the sparse expiry index, page after page, several at a
 * time. Each expiry is conditional, so a payment or checkout that lands at the same moment
 * wins cleanly. One order that cannot be expired now (another write keeps winning, the store
 * fails) does not hold back the rest: the others are tried, then the first store error is
 * thrown (the next run tries it again). Returns the count.
 */
export async function expireDueOrders(
  now: Date,
  sweep: Partial<ExpirySweep> = {},
  /** Asked before each expiry (a gateway may know of a payment whose notification is late); `keep` skips it. */
  beforeExpiry?: BeforeExpiry,
): Promise<number> {
  const { pageSize, concurrency, maxOrders } = { ...EXPIRY_SWEEP, ...sweep };
  let expired = 0;
  let seen = 0;
  let failure: unknown;
  let cursor: DueCursor | undefined = [];
  while (cursor && seen < maxOrders) {
    const page = await findDueOrders(now, Math.min(pageSize, maxOrders - seen), cursor);
    seen += page.due.length;
    cursor = page.next;
    const queue = page.due.map(({ orderId }) => orderId);
    const worker = async () => {
      for (let orderId = queue.shift(); orderId !== undefined; orderId = queue.shift()) {
        try {
          if (await expireOrder(orderId, now, beforeExpiry)) expired += 1;
        } catch (error) {
          // Gone, or busy with other writes (it stays due): the next run sees it again.
          if (error instanceof UnknownOrderError || error instanceof ConcurrentUpdateError) continue;
          failure ??= error;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }
  if (failure !== undefined) throw failure;
  return expired;
}
