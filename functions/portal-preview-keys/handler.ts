import { json, portalHandler } from '#shared/http/portal-handler';
import { portalKeyPreviewBody as body } from '#shared/http/validators.generated';
import { portalPreviewKeys } from '#shared/services/portal/account';
import type { PortalKeyPreview } from '#shared/schemas/portal-responses';

/** POST /v1/portal/settings/preview: the first addresses of each key, nothing saved (to compare with the wallet). */
export const handler = portalHandler({ body }, async ({ body, context }) =>
  json(200, { status: 200, addresses: portalPreviewKeys(context, body.xpubs as Record<string, string>) } satisfies PortalKeyPreview),
);
