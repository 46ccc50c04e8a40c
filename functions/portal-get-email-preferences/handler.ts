import { json, portalHandler } from '#shared/http/portal-handler';
import { portalEmailPreferences } from '#shared/services/portal/email-preferences';

/** GET /v1/portal/email-preferences: the signed-in user's email address, language and the events emailed. */
export const handler = portalHandler({}, async ({ context }) => json(200, { status: 200, preferences: portalEmailPreferences(context) }));
