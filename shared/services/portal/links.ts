import { InvalidParameterError, LinkNotFoundError, ParametersMissingError } from '#shared/domain/errors';
import { ORDER_ACTORS } from '#shared/domain/portal';
import { PortalInputError, PortalNotFoundError } from '#shared/domain/portal-errors';
import type { CreateLinkBody, ListLinksQuery, UpdateLinkBody } from '#shared/schemas/payment-links';
import { changeLink, createLink, getLink, linkFigures, linkOrders, listMerchantLinks, merchantLinkView } from '#shared/services/payment-links';
import { requireRole } from '#shared/services/portal/account';
import { orderRow } from '#shared/services/portal/orders';
import type { PortalContext } from '#shared/services/portal/sessions';
import type { PaymentLink } from '#shared/domain/payment-link';

/**
 * The portal's payment links: every role reads them with their orders and figures; owners and
 * developers create, change, disable and enable them (the API's services, with the signed-in
 * user's merchant). A refusal names the field as the portal's INVALID_INPUT; another merchant's
 * link is the portal's uniform 404.
 */

/** Orders of a link shown on its portal page (the newest). */
const LINK_ORDERS_SHOWN = 50;

async function asPortal<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof LinkNotFoundError) throw new PortalNotFoundError();
    if (error instanceof InvalidParameterError || error instanceof ParametersMissingError) throw new PortalInputError(error.message);
    throw error;
  }
}

const withFigures = async (link: PaymentLink, now: Date) => ({ ...merchantLinkView(link, now), ...(await linkFigures(link)) });

/** A page of the merchant's links, each with its paid count and total. */
export const portalListLinks = (context: PortalContext, query: ListLinksQuery, now: Date) =>
  asPortal(async () => {
    const page = await listMerchantLinks(context.merchant, query);
    return { links: await Promise.all(page.links.map((link) => withFigures(link, now))), next_cursor: page.nextCursor };
  });

/** One link with its figures and its newest orders. */
export const portalGetLink = (context: PortalContext, linkId: unknown, now: Date) =>
  asPortal(async () => {
    const link = await getLink(context.merchant, linkId);
    return { link: await withFigures(link, now), orders: (await linkOrders(link, LINK_ORDERS_SHOWN)).map(orderRow) };
  });

export const portalCreateLink = (context: PortalContext, body: CreateLinkBody, now: Date) =>
  asPortal(async () => {
    requireRole(context, ORDER_ACTORS);
    return withFigures(await createLink(context.merchant, body, now), now);
  });

export const portalUpdateLink = (context: PortalContext, linkId: unknown, body: UpdateLinkBody, now: Date) =>
  asPortal(async () => {
    requireRole(context, ORDER_ACTORS);
    return withFigures(await changeLink(context.merchant, linkId, body, now), now);
  });
