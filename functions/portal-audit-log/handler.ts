import { json, portalHandler } from '#shared/http/portal-handler';
import { portalAuditQuery as query } from '#shared/http/validators.generated';
import { portalAuditLog } from '#shared/services/portal/account';
import type { PortalAuditLog } from '#shared/schemas/portal-responses';

/** GET /v1/portal/audit: the merchant's audit log, newest first, by page. */
export const handler = portalHandler({ query }, async ({ query, context }) => json(200, { status: 200, ...(await portalAuditLog(context, query.limit ?? 50, query.before)) } satisfies PortalAuditLog));
