import { json, portalHandler } from '#shared/http/portal-handler';
import { portalSettings } from '#shared/services/portal/account';
import type { PortalSettings } from '#shared/schemas/portal-responses';

/** GET /v1/portal/settings: the payment settings new invoices are made with, each key with its first addresses. */
export const handler = portalHandler({}, async ({ context }) => json(200, { status: 200, settings: await portalSettings(context) } satisfies PortalSettings));
