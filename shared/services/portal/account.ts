import { AppError } from '#shared/domain/errors';
import { walletsOf } from '#shared/domain/merchant';
import { INTEGRATION_MANAGERS, type Role } from '#shared/domain/portal';
import { PortalInputError, PortalNotFoundError, RoleRefusedError } from '#shared/domain/portal-errors';
import { createApiToken, listApiTokens, MerchantNotFoundError, revokeApiToken, TokenNotFoundError } from '#shared/services/api-tokens';
import { auditLog, changeSettings, checkXpubs, rollCallbackSecret, type SettingsChange, showSecret } from '#shared/services/merchants';
import type { PortalAuditLog, PortalSettings, PortalView } from '#shared/schemas/portal-responses';
import type { PortalContext } from '#shared/services/portal/sessions';
import type { AuditActor } from '#shared/domain/audit';

/**
 * The portal's side of the merchant's account: API tokens, the callback secret, payment
 * settings and the audit log. Each runs the operator CLI's own service (the same checks, the
 * same audit entries) with the portal user as the actor; the role is checked first, and the
 * merchant is always the signed-in user's own (no route takes a merchant id).
 */

/** Refuses a user whose role is not among `roles`. */
export function requireRole(context: PortalContext, roles: readonly Role[]): void {
  if (!roles.includes(context.user.role)) throw new RoleRefusedError();
}

/**
 * Runs an account service for the portal: its refusals (RangeError with a reason) become 400
 * INVALID_INPUT with that reason; a missing merchant or token the portal's uniform 404.
 */
async function asPortal<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof MerchantNotFoundError || error instanceof TokenNotFoundError) throw new PortalNotFoundError();
    if (error instanceof AppError) throw error;
    if (error instanceof RangeError) throw new PortalInputError(error.message);
    throw error;
  }
}

const merchantOf = (context: PortalContext): number => {
  requireRole(context, INTEGRATION_MANAGERS);
  return context.user.merchant_id;
};

// --- API tokens --------------------------------------------------------------------------------

export const portalListTokens = (context: PortalContext) => asPortal(() => listApiTokens(merchantOf(context)));

export const portalCreateToken = (context: PortalContext, name: string, actor: AuditActor, now: Date) => asPortal(() => createApiToken(merchantOf(context), name, actor, now));

/** Token ids are `tok_` and 12 hex digits, or `initial`: anything else is a missing token. */
const TOKEN_ID = /^(tok_[0-9a-f]{12}|initial)$/;

export const portalRevokeToken = (context: PortalContext, tokenId: string, actor: AuditActor, now: Date) =>
  asPortal(async () => {
    const merchant = merchantOf(context);
    if (!TOKEN_ID.test(tokenId)) throw new PortalNotFoundError();
    await revokeApiToken(merchant, tokenId, actor, now);
  });

// --- Callback secret ---------------------------------------------------------------------------

export const portalShowSecret = (context: PortalContext) => asPortal(() => showSecret(merchantOf(context)));

export const portalRollSecret = (context: PortalContext, overlapHours: number | undefined, actor: AuditActor, now: Date) =>
  asPortal(() => rollCallbackSecret(merchantOf(context), overlapHours, actor, now));

// --- Payment settings --------------------------------------------------------------------------

/** The settings page: what the merchant's new invoices are made with, and each key's first addresses. */
export async function portalSettings(context: PortalContext): Promise<PortalSettings['settings']> {
  merchantOf(context);
  const { merchant } = context;
  const xpubs = (merchant.xpubs ?? {}) as Record<string, string>;
  return {
    name: merchant.name,
    sandbox: merchant.sandbox,
    receive_currency: merchant.receive_currency,
    callback_statuses: merchant.callback_statuses ?? 'paid',
    gateways: merchant.gateways ?? [],
    payment_tolerance_percent: merchant.payment_tolerance_percent ?? '0',
    xpubs: Object.fromEntries(Object.entries(xpubs).map(([code, key]) => [code, { key, addresses: safePreview(code, key) }])),
    wallets: walletsOf(merchant),
  };
}

function safePreview(code: string, key: string): string[] {
  try {
    return checkXpubs({ [code]: key })[code] ?? [];
  } catch {
    return [];
  }
}

/** The first addresses each key would give, before anything is saved (refused: not a key of that currency's network). */
export function portalPreviewKeys(context: PortalContext, xpubs: Record<string, string>): Record<string, string[]> {
  merchantOf(context);
  return previewKeys(xpubs);
}

function previewKeys(xpubs: Record<string, string>): Record<string, string[]> {
  const previews: Record<string, string[]> = {};
  for (const [code, key] of Object.entries(xpubs)) {
    if (key === '') continue;
    try {
      Object.assign(previews, checkXpubs({ [code]: key }));
    } catch (error) {
      // Any refusal of a key (a private key, another network, a bad checksum) is the merchant's input.
      throw new PortalInputError(`${code}: not an extended public key for this currency (${(error as Error).message})`);
    }
  }
  return previews;
}

/** The settings a portal user may change (the operator alone sets gateways and the tolerance). */
export interface PortalSettingsChange {
  receive_currency?: string;
  callback_statuses?: string;
  /** Keys by currency; an empty string removes one. */
  xpubs?: Record<string, string>;
  /** Wallets by network (SOL, TON, XLM); an empty string removes one. */
  wallets?: Record<string, string>;
}

/**
 * Changes settings after the same checks as the CLI; applies to invoices made from now on.
 * `stellarAccountProblem` asks the network whether a Stellar account can receive USDC_XLM (the
 * watchers' Horizon check, shared/watchers/stellar-account.ts): why not, or undefined.
 */
export async function portalChangeSettings(
  context: PortalContext,
  body: PortalSettingsChange,
  actor: AuditActor,
  now: Date,
  stellarAccountProblem: (account: string) => Promise<string | undefined> = async () => undefined,
) {
  const merchant = merchantOf(context);
  if (body.xpubs) previewKeys(body.xpubs);
  // A Stellar account that cannot receive USDC would fail every payment: refused with why.
  const problem = body.wallets?.XLM ? await stellarAccountProblem(body.wallets.XLM) : undefined;
  if (problem) throw new PortalInputError(problem);
  const change: SettingsChange = {
    ...(body.receive_currency !== undefined ? { receiveCurrency: body.receive_currency } : {}),
    ...(body.callback_statuses !== undefined ? { callbackStatuses: body.callback_statuses } : {}),
    ...(body.xpubs !== undefined ? { xpubs: body.xpubs } : {}),
    ...(body.wallets !== undefined ? { wallets: body.wallets } : {}),
  };
  return asPortal(() => changeSettings(merchant, change, actor, now));
}

// --- Audit log -----------------------------------------------------------------------------------

/** The merchant's audit log, newest first, a page of `limit` before `before` (the last entry's `at`). */
export async function portalAuditLog(context: PortalContext, limit: number, before: string | undefined): Promise<PortalView<PortalAuditLog>> {
  const merchant = merchantOf(context);
  const entries = await asPortal(() => auditLog(merchant, limit + 1, before));
  const page = entries.slice(0, limit);
  return { entries: page, next_before: entries.length > limit ? page[page.length - 1]!.at : null };
}
