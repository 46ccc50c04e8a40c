import { json, portalHandler } from '#shared/http/portal-handler';
import { portalSettingsBody as body } from '#shared/http/validators.generated';
import { portalChangeSettings } from '#shared/services/portal/account';
import { portalActor } from '#shared/services/portal/team';
import type { PortalSettingsChanged } from '#shared/schemas/portal-responses';
import { walletsOf } from '#shared/domain/merchant';
import { PortalInputError } from '#shared/domain/portal-errors';
import { stellarAccountProblem } from '#shared/watchers/stellar-account';

/** POST /v1/portal/settings: changes settings after their checks; invoices made from now on use them. */
export const handler = portalHandler({ body }, async ({ body, context, clientIp, now }) => {
  // A Stellar account that cannot receive USDC would fail every payment: refused with why.
  const xlm = (body as { wallets?: Record<string, string> }).wallets?.XLM;
  const problem = xlm ? await stellarAccountProblem(xlm) : undefined;
  if (problem) throw new PortalInputError(problem);
  const { merchant, addresses } = await portalChangeSettings(context, body as never, portalActor(context, clientIp), now);
  return json(200, { status: 200, sandbox: merchant.sandbox, wallets: walletsOf(merchant), receive_currency: merchant.receive_currency, callback_statuses: merchant.callback_statuses ?? 'paid', addresses } satisfies PortalSettingsChanged);
});
