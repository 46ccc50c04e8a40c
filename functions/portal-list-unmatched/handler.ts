import { json, portalHandler } from '#shared/http/portal-handler';
import { portalPageQuery as query } from '#shared/http/validators.generated';
import { portalUnmatchedPayments } from '#shared/services/portal/unmatched-payments';

/** GET /v1/portal/unmatched-payments: payments to the merchant's own wallets no invoice took, newest first (a page by cursor). */
export const handler = portalHandler({ query }, async ({ query, context }) => json(200, { status: 200, ...(await portalUnmatchedPayments(context, query.limit ?? 25, query.cursor)) }));
