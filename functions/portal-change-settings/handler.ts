import { json, portalHandler } from '#shared/http/portal-handler';
import { portalSettingsBody as body } from '#shared/http/validators.generated';
import { portalChangeSettings } from '#shared/services/portal/account';
import { portalActor } from '#shared/services/portal/team';
import type { PortalSettingsChanged } from '#shared/schemas/portal-responses';
import { walletsOf } from '#shared/domain/merchant';
import { stellarAccountProblem } from '#shared/watchers/stellar-account';

/** POST /v1/portal/settings: changes settings after their checks; invoices made from now on use them. */
export const handler = portalHandler({ body }, async ({ body, context, clientIp, now }) => {
  const { merchant, addresses } = await portalChangeSettings(context, body as never, portalActor(context, clientIp), now, stellarAccountProblem);
  return json(200, {
    status: 200,
    sandbox: merchant.sandbox,
    wallets: walletsOf(merchant),
    receive_currency: merchant.receive_currency,
    callback_statuses: merchant.callback_statuses ?? 'paid',
    addresses,
  } satisfies PortalSettingsChanged);
});
