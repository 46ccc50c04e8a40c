import { json, portalHandler } from '#shared/http/portal-handler';
import { portalSubscriptionFigures } from '#shared/services/portal/subscriptions';

/** GET /v1/portal/subscriptions/figures: monthly recurring revenue per currency and the last 30 days' churn. */
export const handler = portalHandler({}, async ({ context, now }) => json(200, { status: 200, ...(await portalSubscriptionFigures(context, now)) }));
