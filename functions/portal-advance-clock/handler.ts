import { json, portalHandler } from '#shared/http/portal-handler';
import { advanceClockBody as body } from '#shared/http/validators.generated';
import { portalAdvanceClock } from '#shared/services/portal/subscriptions';

/** POST /v1/portal/subscriptions/:subscription_id/advance: a sandbox subscription's test clock moved forward (owners and developers); answers its page. */
export const handler = portalHandler({ body }, async ({ body, path, context, now }) => json(200, { status: 200, ...(await portalAdvanceClock(context, path.subscription_id, body, now)) }));
