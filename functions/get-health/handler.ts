import { publicReadHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { healthView } from '#shared/services/health';

/**
 * GET /v1/health (public): every payment source's health, for operators' monitors. Always 200
 * (`healthy` says it); nothing secret in it: no node URL, credential, error text or merchant data.
 */
export const handler = publicReadHandler({}, async ({ now }) => json(200, { status: 200, ...(await healthView(now)) }));
