import { json, portalHandler } from '#shared/http/portal-handler';
import { portalPageQuery as query } from '#shared/http/validators.generated';
import { portalWaitingRefunds } from '#shared/services/portal/refunds';

/** GET /v1/portal/refunds: the merchant's refunds waiting for an address or a payment, oldest first. */
export const handler = portalHandler({ query }, async ({ query, context }) => json(200, { status: 200, ...(await portalWaitingRefunds(context, query.limit ?? 25, query.cursor)) }));
