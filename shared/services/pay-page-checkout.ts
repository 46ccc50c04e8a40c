import { OrderDoesNotExistError, UnknownOrderError } from '#shared/domain/errors';
import { checkoutOrder } from '#shared/services/orders';
import { getPayPage, type PayPage } from '#shared/services/pay-page';

/**
 * The buyer's checkout on the hosted page: the one page action that needs the payment methods
 * (HD keys, secp256k1, Lightning), so only its function loads them.
 */

/** The buyer picks (or switches) the currency of a NEW order: Checkout Order as its merchant. */
export async function checkoutPayPage(orderId: unknown, payCurrency: string, now: Date, clientIp?: string): Promise<PayPage> {
  const { merchant } = await getPayPage(orderId);
  try {
    const { order, invoice } = await checkoutOrder(merchant, orderId, payCurrency, now, clientIp);
    return { order, invoice, merchant };
  } catch (error) {
    // Checkout's own not-found is the contract's 422 quirk; the page's endpoints say 404.
    throw error instanceof OrderDoesNotExistError ? new UnknownOrderError() : error;
  }
}
