/**
 * The portal's list of payments to the merchant's own wallets that no invoice took (TON,
 * Stellar: a transfer without the invoice's comment or memo, or with another one), newest
 * first, each with its explorer link: money the merchant holds and must return to the buyer or
 * settle by hand. Every role reads it.
 */
import { explorerUrl } from '#shared/domain/explorers';
import type { PortalContext } from '#shared/services/portal/sessions';
import { listMerchantUnmatched } from '#shared/store/unmatched-payments';
import type { PortalUnmatchedPayments, PortalView } from '#shared/schemas/portal-responses';

/** One page after `cursor` (the previous page's `next_cursor`). */
export async function portalUnmatchedPayments(context: PortalContext, limit: number, cursor?: string): Promise<PortalView<PortalUnmatchedPayments>> {
  // The session's merchant as it is now (sessions.ts): read once with the session, not again here.
  const { merchant } = context;
  const page = await listMerchantUnmatched(merchant.user_id, limit, cursor ? Buffer.from(cursor, 'base64url').toString('utf8') : undefined);
  return {
    payments: page.payments.map(({ currency, amount, txid, address, memo, reason, seen_at }) => ({
      currency,
      amount,
      txid,
      address,
      ...(memo !== undefined ? { memo } : {}),
      reason: reason as PortalUnmatchedPayments['payments'][number]['reason'],
      seen_at,
      explorer_url: explorerUrl(currency, txid, merchant.sandbox),
    })),
    next_cursor: page.next ? Buffer.from(page.next, 'utf8').toString('base64url') : null,
  };
}
