import { json, portalHandler } from '#shared/http/portal-handler';
import { portalEmailPreferencesBody as body } from '#shared/http/validators.generated';
import { changeEmailPreferences } from '#shared/services/portal/email-preferences';

/** POST /v1/portal/email-preferences: saves the signed-in user's email preferences (an empty address: no email). */
export const handler = portalHandler({ body }, async ({ body, context }) => json(200, { status: 200, preferences: await changeEmailPreferences(context, body) }));
