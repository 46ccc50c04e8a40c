/**
 * The buyer's one-time refund link (docs/merchant-guide.md, "Refunds"): the refund its secret
 * opens, the buyer's address set through it (checked for the refund's currency and network,
 * watched on chain before anyone is shown it), and the merchant's new link that replaces it.
 * Its secret and URL are made in shared/core/server-key.ts, shared with the email sender.
 */
import { refundLinkHash as linkHash, refundUrl } from '#shared/core/server-key';
import type { AuditActor } from '#shared/domain/audit';
import { RefundAddressError, RefundFailedError, RefundLinkInvalidError, RefundNotFoundError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { touch } from '#shared/domain/order';
import type { Refund } from '#shared/domain/refund';
import { checkRefundAddress } from '#shared/payments/refund-addresses';
import { changeOrder } from '#shared/services/order-changes';
import { auditEntry } from '#shared/services/refunds/audit';
import { merchantRefund } from '#shared/services/refunds/views';
import { findRefund, findRefundByLinkHash } from '#shared/store/refunds';
import { refuseInvoiceAddress, stopWatchingRefund, watchRefund } from '#shared/store/refund-watches';

/** The link's hash and URL, from shared/core/server-key.ts (where the email sender reads them too). */
export { linkHash, refundUrl };

/** The buyer's actor in the audit log (the refund link's holder). */
const buyer = (clientIp: string | undefined): AuditActor => ({ who: 'buyer', from: clientIp ?? 'unknown' });

/** The refund a link's secret opens, while it may still be used; anything else is an invalid link. */
export async function refundOfLink(secret: unknown): Promise<Refund> {
  if (typeof secret !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(secret)) throw new RefundLinkInvalidError();
  const hash = linkHash(secret);
  const refund = await findRefundByLinkHash(hash);
  if (!refund || refund.link_hash !== hash || refund.status !== 'AWAITING_ADDRESS') throw new RefundLinkInvalidError();
  return refund;
}

/**
 * The buyer sets the refund's address through its one-time link: checked for the refund's
 * currency and network (a wrong one is refused with its reason), then the refund waits for
 * its payment and the link stops working (changing the address needs the merchant: a new link).
 */
export async function setRefundAddress(input: { secret: unknown; address: unknown; memo?: unknown; clientIp?: string; now: Date }): Promise<Refund> {
  const opened = await refundOfLink(input.secret);
  const checked = checkRefundAddress(opened, input.address, input.memo, input.now);
  if (!checked.ok) throw new RefundAddressError(checked.reason);
  // A live refund's address is watched before anyone is shown it (store/refund-watches.ts): its
  // payment is seen as an invoice's. An address this service receives payments on is refused,
  // in the sandbox too (not watched there: the merchant completes it), so that a sandbox never
  // takes what live would refuse.
  const address = { currency: opened.currency, address: checked.address, ...(checked.memo !== undefined ? { memo: checked.memo } : {}) };
  if (opened.sandbox) {
    await refuseInvoiceAddress(address);
  } else {
    await watchRefund({ userId: opened.user_id, orderId: opened.order_id, refundId: opened.refund_id, ...address, amount: opened.amount, since: input.now.toISOString() }, input.now);
  }
  let addressed: Refund | undefined;
  await changeOrder(
    opened.order_id,
    undefined,
    () => new RefundLinkInvalidError(),
    async (found) => {
      const refund = await findRefund(opened.order_id, opened.refund_id);
      // Used (or replaced by a new link) since it was opened: the link no longer works.
      if (!refund || refund.status !== 'AWAITING_ADDRESS' || refund.link_hash !== opened.link_hash) throw new RefundLinkInvalidError();
      const { link_hash: _used, ...rest } = refund;
      addressed = {
        ...rest,
        status: 'AWAITING_PAYMENT',
        address: checked.address,
        ...(checked.memo !== undefined ? { memo: checked.memo } : {}),
        address_set_at: input.now.toISOString(),
      };
      return {
        order: touch(found.order, input.now),
        refunds: [addressed],
        audit: auditEntry('refund.address_set', buyer(input.clientIp), addressed, input.now, { address: checked.address }),
      };
    },
  );
  return addressed!;
}

/**
 * The merchant replaces a refund's link (the buyer lost it, or the address must change): the
 * old link and any address set through it stop counting; the refund waits for an address again.
 */
export async function newRefundLink(owner: MerchantProfile, orderId: unknown, refundId: unknown, actor: AuditActor, now: Date): Promise<Refund> {
  const current = await merchantRefund(owner, orderId, refundId);
  if (current.status === 'SENT') throw new RefundFailedError('The refund is sent already: its address cannot change.');
  let renewed: Refund | undefined;
  const url = await refundUrl({ ...current, link_version: current.link_version + 1 });
  await changeOrder(
    current.order_id,
    owner,
    () => new RefundNotFoundError(),
    async (found) => {
      const refund = await findRefund(current.order_id, current.refund_id);
      if (!refund || refund.status === 'SENT') throw new RefundFailedError('The refund is sent already: its address cannot change.');
      if (refund.link_version !== current.link_version) throw new RefundFailedError('Another new link was made at the same time: reload the refund.');
      const { address: _address, memo: _memo, address_set_at: _at, ...rest } = refund;
      renewed = { ...rest, status: 'AWAITING_ADDRESS', link_version: refund.link_version + 1, link_hash: linkHash(new URL(url).hash.slice('#refund='.length)) };
      return { order: touch(found.order, now), refunds: [renewed], audit: auditEntry('refund.link_renewed', actor, renewed, now) };
    },
  );
  // The old address no longer pays it (a payment there is the buyer's and the merchant's to settle).
  if (current.address !== undefined && !current.sandbox) {
    await stopWatchingRefund({ currency: current.currency, address: current.address, ...(current.memo !== undefined ? { memo: current.memo } : {}), refundId: current.refund_id });
  }
  return renewed!;
}
