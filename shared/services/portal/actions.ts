import { randomUUID } from 'node:crypto';
import { redeliverLatest } from '#shared/callbacks/delivery-job';
import { UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import { type MerchantProfile, profileOf } from '#shared/domain/merchant';
import type { Found } from '#shared/domain/order';
import { ORDER_ACTORS } from '#shared/domain/portal';
import { PortalNotFoundError, RoleRefusedError } from '#shared/domain/portal-errors';
import { requestRefund } from '#shared/services/gateway-payments';
import { cancelOrder, resolveOrder } from '#shared/services/order-actions';
import type { PortalOrderPage, PortalView } from '#shared/schemas/portal-responses';
import type { PortalContext } from '#shared/services/portal/sessions';
import { getPortalOrder } from '#shared/services/portal/orders';
import { simulateRefundSent } from '#shared/services/sandbox';
import { findMerchant } from '#shared/store/merchants';

/** The portal's order buttons: each runs the merchant API's own use case (the same rules and answers). */

/** The merchant as the API's services take it (they check the order's owner again). */
export async function actingMerchant(context: PortalContext): Promise<MerchantProfile> {
  if (!ORDER_ACTORS.includes(context.user.role)) throw new RoleRefusedError();
  const merchant = await findMerchant(context.user.merchant_id);
  if (!merchant) throw new PortalNotFoundError();
  return profileOf(merchant);
}

/** The portal's order actions, each the API's own use case (the same rules and answers). */
export const PORTAL_ACTIONS = {
  cancel: (merchant: MerchantProfile, orderId: string, now: Date): Promise<unknown> => cancelOrder(merchant, orderId, now),
  refund: (merchant: MerchantProfile, orderId: string, now: Date): Promise<unknown> => requestRefund(merchant, orderId, now),
  resolve: (merchant: MerchantProfile, orderId: string, now: Date): Promise<unknown> => resolveOrder(merchant, orderId, now),
  complete_refund: (merchant: MerchantProfile, orderId: string, now: Date): Promise<Found> => simulateRefundSent(merchant, orderId, `sandbox-refund-${randomUUID()}`, now),
  resend_callback: (merchant: MerchantProfile, orderId: string, now: Date): Promise<unknown> => redeliverLatest(merchant, orderId, now),
} as const;
export type PortalAction = keyof typeof PORTAL_ACTIONS;

/** Runs one action on the merchant's order and answers the order's page as it is now. */
export async function actOnOrder(context: PortalContext, action: PortalAction, orderId: unknown, now: Date): Promise<PortalView<PortalOrderPage>> {
  if (!isId(orderId)) throw new PortalNotFoundError();
  const merchant = await actingMerchant(context);
  try {
    await PORTAL_ACTIONS[action](merchant, orderId, now);
  } catch (error) {
    // The API's "unknown order" (another merchant's, or none): the portal's uniform 404.
    if (error instanceof UnknownOrderError) throw new PortalNotFoundError();
    throw error;
  }
  return getPortalOrder(context, orderId);
}
