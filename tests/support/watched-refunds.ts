import { expect } from 'vitest';
import { newMerchant } from './api';
import type { WatchedShop } from './watched-shop';
import { profileOf, type MerchantProfile } from '#shared/domain/merchant';
import type { Refund } from '#shared/domain/refund';
import { askRefund } from '#shared/services/refunds/ask';
import { refundUrl, setRefundAddress } from '#shared/services/refunds/buyer-link';
import { findMerchant } from '#shared/store/merchants';
import { findRefund } from '#shared/store/refunds';
import { watchRefund } from '#shared/store/refund-watches';

/**
 * Refunds whose address a chain watcher watches, for the refund watcher tests: a sandbox
 * merchant's order paid through the sandbox, refunded whole, its address (and memo) set by the
 * buyer through the refund link and watched as setRefundAddress watches a live merchant's.
 */
export function watchedRefunds(shop: WatchedShop, name: string) {
  const actor = { who: 'test', from: '127.0.0.1' };
  let merchant: { token: string; profile: MerchantProfile } | undefined;
  const sandboxMerchant = async () => {
    if (!merchant) {
      const made = await newMerchant(true, name, { callbackStatuses: 'all' });
      merchant = { token: made.api_token, profile: profileOf((await findMerchant(made.user_id))!) };
    }
    return merchant;
  };
  return {
    /** A refund of a new order paid in `currency`, to `address` (and `memo`), watched. */
    async watchedRefund(currency: string, address: string, memo?: string): Promise<Refund> {
      const { token, profile } = await sandboxMerchant();
      const created = await shop.call('POST', '/v1/orders', { token, body: { price_amount: 30, price_currency: 'USD', callback_url: 'https://shop.example/callback' } });
      const id = created.body.order.order_id as string;
      const checkout = await shop.call('POST', `/v1/orders/${id}/checkout`, { token, body: { pay_currency: currency } });
      expect(checkout.status, checkout.text).toBe(200);
      expect((await shop.call('POST', `/v1/sandbox/orders/${id}/pay`, { token, body: {} })).status).toBe(200);
      const asked = await askRefund(profile, id, {}, actor, new Date());
      const secret = new URL(await refundUrl(asked.refund!)).hash.slice('#refund='.length);
      const refund = await setRefundAddress({ secret, address, ...(memo !== undefined ? { memo } : {}), now: new Date() });
      await watchRefund({
        userId: refund.user_id,
        orderId: refund.order_id,
        refundId: refund.refund_id,
        currency,
        address: refund.address!,
        ...(refund.memo ? { memo: refund.memo } : {}),
        amount: refund.amount,
        since: refund.address_set_at!,
      });
      return refund;
    },
    /** The refund as stored now. */
    status: async (refund: Refund) => (await findRefund(refund.order_id, refund.refund_id))!,
    sandboxMerchant,
  };
}

/** Refund checks with no source configured, for a test to give the one it reads. */
export const NO_REFUND_SOURCE = { block: async () => undefined, tron: () => undefined, solana: () => undefined, eos: () => undefined, indexed: () => undefined };
