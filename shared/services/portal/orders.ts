import type { Delivery } from '#shared/domain/delivery';
import { deliveryView } from '#shared/callbacks/views';
import { PAY_CURRENCIES } from '#shared/domain/currencies';
import { explorerUrl } from '#shared/domain/explorers';
import { isId, orderIdFor } from '#shared/domain/ids';
import type { Invoice, Order } from '#shared/domain/order';
import { refundable } from '#shared/domain/refund';
import { isPositive } from '#shared/domain/money';
import { invoiceView, orderView } from '#shared/schemas/order-views';
import { ORDER_ACTORS } from '#shared/domain/portal';
import { PortalNotFoundError } from '#shared/domain/portal-errors';
import type { OrderStatus } from '#shared/domain/statuses';
import type { PortalOrdersQuery } from '#shared/schemas/portal';
import type { PortalOrderAction, PortalOrderPage, PortalOrderRow, PortalOrders, PortalView } from '#shared/schemas/portal-responses';
import type { PortalContext } from '#shared/services/portal/sessions';
import { findMerchant } from '#shared/store/merchants';
import { findOrder, findOrderIdsByAddress, findOrderIdsByTxid, queryOrderPage, readOrderPartition } from '#shared/store/order-search';
import { findOrderIdByGuard } from '#shared/store/orders';
import { refundView } from '#shared/services/refunds/views';

/**
 * The portal's orders: pages, search, an order's whole story, the actions its buttons take and
 * the CSV export. Every read is of the signed-in user's merchant; another merchant's order is
 * answered exactly like a missing one (PortalNotFoundError), whichever route asks.
 */

/** The page size the portal asks for unless it says otherwise. */
export const DEFAULT_PAGE = 25;

const startOfDay = (date: string) => (date.length === 10 ? `${date}T00:00:00.000Z` : new Date(date).toISOString());
const endOfDay = (date: string) => (date.length === 10 ? new Date(Date.parse(`${date}T00:00:00.000Z`) + 86_400_000).toISOString() : new Date(date).toISOString());

/** A row of the orders list (and of the CSV). */
export function orderRow(order: Order): PortalOrderRow {
  return {
    order_id: order.order_id,
    merchant_order_id: order.merchant_order_id,
    title: order.title,
    status: order.status,
    price_amount: order.price_amount,
    price_currency: order.price_currency,
    pay_amount: order.pay_amount,
    pay_currency: order.pay_currency,
    created_at: order.created_at,
    updated_at: order.updated_at,
    sandbox: order.sandbox,
  };
}

/** A cursor is the last sort key of a page (`<ISO time>#<uuid>`): anything else is refused as a bad parameter. */
const CURSOR = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z#[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const decodeCursor = (cursor: string | undefined): string | undefined => {
  if (!cursor) return undefined;
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  return CURSOR.test(key) ? key : undefined;
};

/**
 * The merchant's orders, newest first: one page by cursor (O(page) reads however many orders
 * there are), or with `q` the orders the search finds (order_id, merchant_order_id, payment
 * address or transaction id), still filtered by status and date.
 */
export async function listPortalOrders(context: PortalContext, query: PortalOrdersQuery): Promise<PortalView<PortalOrders>> {
  const merchantId = context.user.merchant_id;
  const from = query.from ? startOfDay(query.from) : undefined;
  const to = query.to ? endOfDay(query.to) : undefined;
  if (query.q) {
    const found = await searchOrders(merchantId, query.q.trim());
    const orders = found.filter((order) => (!query.status || order.status === query.status) && (!from || order.created_at >= from) && (!to || order.created_at < to));
    return { orders: orders.map(orderRow), next_cursor: null };
  }
  const page = await queryOrderPage({
    userId: merchantId,
    status: query.status as OrderStatus | undefined,
    from,
    to,
    limit: query.limit ?? DEFAULT_PAGE,
    after: decodeCursor(query.cursor),
  });
  return { orders: page.orders.map(orderRow), next_cursor: page.next ? Buffer.from(page.next).toString('base64url') : null };
}

/** The merchant's orders the search box's text names, newest first (a handful of point reads). */
async function searchOrders(merchantId: number, text: string): Promise<Order[]> {
  if (text === '' || text.length > 200) return [];
  const candidates = new Set<string>();
  if (isId(text)) candidates.add(text);
  const merchant = await findMerchant(merchantId);
  const [byReference, byTxid, byAddress] = await Promise.all([
    merchant?.order_id_key ? Promise.resolve(orderIdFor(merchant.order_id_key, merchantId, text)) : findOrderIdByGuard(merchantId, text),
    findOrderIdsByTxid(text),
    findOrderIdsByAddress(text, PAY_CURRENCIES),
  ]);
  for (const id of [byReference, ...byTxid, ...byAddress]) if (id) candidates.add(id);
  const orders = await Promise.all([...candidates].map((id) => findOrder(id)));
  return orders.filter((order): order is Order => order !== undefined && order.user_id === merchantId).sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
}

async function ownOrder(context: PortalContext, orderId: unknown) {
  if (!isId(orderId)) throw new PortalNotFoundError();
  const read = await readOrderPartition(orderId);
  if (!read || read.order.user_id !== context.user.merchant_id) throw new PortalNotFoundError();
  return read;
}

function portalInvoice(invoice: Invoice, sandbox: boolean): PortalOrderPage['invoices'][number] {
  return {
    ...invoiceView(invoice),
    payments: (invoice.payments ?? []).map((payment) => ({
      txid: payment.txid,
      amount: payment.amount,
      confirmations: payment.confirmations,
      seen_at: payment.seen_at,
      block_height: payment.block_height ?? null,
      left_chain_at: payment.left_chain_at ?? null,
      explorer_url: explorerUrl(invoice.pay_currency, payment.txid, sandbox),
    })),
    refund_txid: invoice.refund_txid ?? null,
  };
}

/** What the user may do to the order now (the buttons the page shows). */
function actionsFor(context: PortalContext, order: Order, deliveries: readonly Delivery[], invoice: Invoice | undefined): PortalOrderAction[] {
  if (!ORDER_ACTORS.includes(context.user.role)) return [];
  const actions: PortalOrderAction[] = [];
  if (deliveries.length > 0) actions.push('resend_callback');
  if (order.status === 'NEW') actions.push('cancel');
  // Another refund while one waits, only while something is left (a refund of all would offer "all that is left: 0").
  const left = invoice !== undefined && isPositive(refundable(order, invoice).left);
  if (order.status === 'PAID' || order.status === 'UNRESOLVED' || (order.status === 'REFUND_PENDING' && order.refunds && left)) actions.push('refund');
  if (order.status === 'REFUND_PENDING' && order.sandbox) actions.push('complete_refund');
  if (order.status === 'UNRESOLVED') actions.push('resolve');
  return actions;
}

/** An order's page: the order, every invoice with its payments, the status history and the callback log. */
export async function getPortalOrder(context: PortalContext, orderId: unknown): Promise<PortalView<PortalOrderPage>> {
  const { order, invoices, deliveries, refunds } = await ownOrder(context, orderId);
  return {
    order: {
      ...orderView(order),
      sandbox: order.sandbox,
      version: order.version,
      current_invoice_id: order.invoice_id ?? null,
      history: [{ from: null, to: 'NEW', at: order.created_at }, ...(order.history ?? [])],
    },
    invoices: invoices.sort((a, b) => (a.created_at < b.created_at ? 1 : -1)).map((invoice) => portalInvoice(invoice, order.sandbox)),
    callbacks: deliveries.reverse().map(deliveryView),
    // The schema's refund type is the API's `Refund`, which json-schema-to-ts does not derive from its strict object: the view is that shape.
    refunds: (await Promise.all(refunds.map(refundView))) as unknown as PortalOrderPage['refunds'],
    actions: actionsFor(
      context,
      order,
      deliveries,
      invoices.find((invoice) => invoice.invoice_id === order.invoice_id),
    ),
  };
}
