import { randomBytes } from 'node:crypto';
import type { AuditActor, AuditEntry } from '#shared/domain/audit';
import { isGateway, RECEIVE_CURRENCIES } from '#shared/domain/currencies';
import { CALLBACK_STATUSES, type CallbackStatuses, type Merchant, type MerchantProfile, profileOf, TOKEN_PATTERN } from '#shared/domain/merchant';
import { WALLET_NETWORKS } from '#shared/domain/networks';
import { deriveAddress, type AddressCurrency } from '#shared/payments/addresses/index';
import { isSolanaAddress } from '#shared/payments/addresses/solana';
import { canonicalTonAddress, knownTonContract } from '#shared/payments/addresses/ton';
import { isStellarAccount } from '#shared/payments/addresses/stellar';
import { generateApiToken, MerchantNotFoundError, newStoredToken } from '#shared/services/api-tokens';
import { listAuditEntries } from '#shared/store/audit';
import { findMerchant, insertMerchant, listMerchants, type MerchantChanges, updateMerchant } from '#shared/store/merchants';

const ADDRESS_CURRENCIES: readonly AddressCurrency[] = ['BTC', 'LTC', 'BCH', 'ETH', 'TRX'];

export interface NewMerchant {
  name: string;
  sandbox: boolean;
  /** Use this API token instead of a generated one (e.g. the local demo's DEMO_API_TOKEN). */
  apiToken?: string;
  receiveCurrency?: string;
  gateways?: string[];
  /** Accepted deviation of a payment from the invoice amount, in percent. */
  tolerancePercent?: string;
  /** The merchant's own account-level extended public keys, by currency (BTC, LTC, BCH, ETH). */
  xpubs?: Record<string, string>;
  /** The merchant's own receiving wallets, by network (SOL: USDC_SOL and PYUSD; TON: TON and USDT_TON; XLM: USDC_XLM). */
  wallets?: Record<string, string>;
  /** Which status changes are called back: 'paid' (default) or 'all'. */
  callbackStatuses?: string;
}

/** Credentials shown once, at creation. Only the token's keyed hash is stored. */
export interface MerchantCredentials {
  user_id: number;
  api_token: string;
  callback_secret: string;
}

/** A Standard Webhooks secret: `whsec_` and base64 of 32 random bytes. */
export const generateCallbackSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The key of the merchant's order ids for its references (see orderIdFor): 32 random bytes, hex. */
export const generateOrderIdKey = (): string => randomBytes(32).toString('hex');

/** Who made a change when nobody said: the operator at this machine's CLI. */
export const CLI_ACTOR: AuditActor = { who: 'operator', from: 'cli' };

export async function createMerchant(input: NewMerchant, now = new Date(), actor: AuditActor = CLI_ACTOR): Promise<MerchantCredentials> {
  const receiveCurrency = input.receiveCurrency ?? 'USD';
  checkReceiveCurrency(receiveCurrency);
  if (input.apiToken !== undefined && !TOKEN_PATTERN.test(input.apiToken)) {
    throw new RangeError('an API token must be 16 to 256 printable ASCII characters');
  }
  const tolerance = input.tolerancePercent ?? '0';
  checkTolerance(tolerance);
  checkXpubs(input.xpubs ?? {});
  const wallets = checkWallets(input.wallets ?? {});
  checkGateways(input.gateways ?? []);
  const callbackStatuses = (input.callbackStatuses ?? 'paid') as CallbackStatuses;
  checkCallbackStatuses(callbackStatuses);
  const apiToken = input.apiToken ?? generateApiToken();
  const callbackSecret = generateCallbackSecret();
  const token = await newStoredToken('default', apiToken, now);
  const merchant: Omit<Merchant, 'user_id'> = {
    name: input.name,
    sandbox: input.sandbox,
    receive_currency: receiveCurrency,
    gateways: input.gateways ?? [],
    payment_tolerance_percent: tolerance,
    callback_statuses: callbackStatuses,
    xpubs: input.xpubs ?? {},
    ...(Object.keys(wallets).length > 0 ? { wallets } : {}),
    created_at: now.toISOString(),
    order_id_key: generateOrderIdKey(),
    token_hash: token.token_hash,
    callback_secret: callbackSecret,
  };
  const audit: AuditEntry = {
    at: now.toISOString(),
    action: 'merchant.created',
    ...actor,
    details: { name: input.name, sandbox: input.sandbox, token_id: token.token_id },
  };
  const stored = await insertMerchant(merchant, { token, audit });
  return { user_id: stored.user_id, api_token: apiToken, callback_secret: callbackSecret };
}

function checkReceiveCurrency(code: string): void {
  if (!RECEIVE_CURRENCIES.includes(code)) throw new RangeError(`receive currency must be one of ${RECEIVE_CURRENCIES.join(', ')}`);
}

function checkTolerance(percent: string): void {
  if (!/^\d{1,2}(\.\d{1,2})?$/.test(percent)) throw new RangeError('tolerance must be a percent from 0 to 99.99');
}

/**
 * The merchant's receiving wallets, each in the one form the service keeps (what invoices show
 * and watchers report): Solana's (USDC_SOL, PYUSD) a base58 32-byte address; TON's (TON,
 * USDT_TON) a mainnet basechain address, kept in its non-bounceable form, not a known contract
 * (a jetton master keeps what it is sent); Stellar's (USDC_XLM) a `G...` account (a muxed `M...`
 * address is an invoice's, not the account).
 */
export function checkWallets(wallets: Readonly<Record<string, string>>): Record<string, string> {
  const checked: Record<string, string> = {};
  for (const [network, wallet] of Object.entries(wallets)) {
    if (network === 'SOL') {
      if (!isSolanaAddress(wallet)) throw new RangeError(`the SOL wallet must be a Solana address (base58, 32 bytes), got "${wallet}"`);
      checked.SOL = wallet;
    } else if (network === 'TON') {
      const canonical = canonicalTonAddress(wallet);
      if (canonical === undefined) throw new RangeError(`the TON wallet must be a TON mainnet address (UQ... or EQ..., or 0:<hex>), got "${wallet}"`);
      const contract = knownTonContract(canonical);
      if (contract) throw new RangeError(`the TON wallet "${wallet}" is ${contract}, not a wallet: funds sent there are lost`);
      checked.TON = canonical;
    } else if (network === 'XLM') {
      if (!isStellarAccount(wallet)) throw new RangeError(`the XLM wallet must be a Stellar account (G..., 56 characters), got "${wallet}"`);
      checked.XLM = wallet;
    } else {
      throw new RangeError(`no wallet is taken for ${network} (only ${WALLET_NETWORKS.join(', ')})`);
    }
  }
  return checked;
}

function checkGateways(gateways: readonly string[]): void {
  for (const gateway of gateways) {
    if (!isGateway(gateway)) throw new RangeError(`${gateway} is not a gateway currency`);
  }
}

function checkCallbackStatuses(value: string): void {
  if (!CALLBACK_STATUSES.includes(value as CallbackStatuses)) {
    throw new RangeError(`callback statuses must be one of ${CALLBACK_STATUSES.join(', ')}`);
  }
}

/** How many derived addresses a key's check shows, to compare with the merchant's own wallet. */
export const PREVIEW_ADDRESSES = 3;

/**
 * The first receive addresses each extended public key gives (index 0, 1, 2), as the invoices
 * will get them: refuses private keys, malformed keys and keys of another network before
 * anything is stored.
 */
export function checkXpubs(xpubs: Readonly<Record<string, string>>): Record<string, string[]> {
  const previews: Record<string, string[]> = {};
  for (const [code, key] of Object.entries(xpubs)) {
    if (!ADDRESS_CURRENCIES.includes(code as AddressCurrency)) throw new RangeError(`no addresses are derived for ${code}`);
    previews[code] = Array.from({ length: PREVIEW_ADDRESSES }, (_, index) => deriveAddress(code as AddressCurrency, key, index));
  }
  return previews;
}

/** A merchant's settings an operator (or, later, the portal) may change. */
export interface SettingsChange {
  name?: string;
  receiveCurrency?: string;
  gateways?: string[];
  tolerancePercent?: string;
  callbackStatuses?: string;
  /** Keys to set, by currency; an empty string removes that currency's key. */
  xpubs?: Record<string, string>;
  /** Receiving wallets to set, by network (SOL, TON, XLM); an empty string removes that network's wallet. */
  wallets?: Record<string, string>;
}

/**
 * Changes a merchant's settings after checking each one. A change applies to invoices made
 * after it: existing invoices keep the address, amount and rate they were made with. Returns
 * the merchant's profile as it is now and, for each key set, its first addresses.
 */
export async function changeSettings(
  userId: number,
  change: SettingsChange,
  actor: AuditActor = CLI_ACTOR,
  now = new Date(),
): Promise<{ merchant: MerchantProfile; addresses: Record<string, string[]> }> {
  const merchant = await existingMerchant(userId);
  const changes: MerchantChanges = {};
  if (change.name !== undefined) {
    if (change.name.trim() === '' || change.name.length > 200) throw new RangeError('a name is 1 to 200 characters');
    changes.name = change.name;
  }
  if (change.receiveCurrency !== undefined) {
    checkReceiveCurrency(change.receiveCurrency);
    changes.receive_currency = change.receiveCurrency;
  }
  if (change.gateways !== undefined) {
    checkGateways(change.gateways);
    changes.gateways = [...new Set(change.gateways)];
  }
  if (change.tolerancePercent !== undefined) {
    checkTolerance(change.tolerancePercent);
    changes.payment_tolerance_percent = change.tolerancePercent;
  }
  if (change.callbackStatuses !== undefined) {
    checkCallbackStatuses(change.callbackStatuses);
    changes.callback_statuses = change.callbackStatuses as CallbackStatuses;
  }
  let addresses: Record<string, string[]> = {};
  if (change.xpubs !== undefined) {
    const set = Object.fromEntries(Object.entries(change.xpubs).filter(([, key]) => key !== ''));
    const removed = Object.keys(change.xpubs).filter((code) => change.xpubs![code] === '');
    addresses = checkXpubs(set);
    const xpubs: Record<string, string> = { ...(merchant.xpubs as Record<string, string> | undefined) };
    for (const code of removed) delete xpubs[code];
    changes.xpubs = { ...xpubs, ...set };
  }
  if (change.wallets !== undefined) {
    const set = checkWallets(Object.fromEntries(Object.entries(change.wallets).filter(([, wallet]) => wallet !== '')));
    const wallets: Record<string, string> = { ...(merchant.wallets as Record<string, string> | undefined) };
    for (const [network, wallet] of Object.entries(change.wallets)) if (wallet === '') delete wallets[network];
    changes.wallets = { ...wallets, ...set };
  }
  if (Object.keys(changes).length === 0) throw new RangeError('nothing to change');
  // Keys are public but long: the log names which currencies' keys changed, with their first address.
  const details = Object.fromEntries(
    Object.entries(changes).map(([field, value]) =>
      field === 'xpubs'
        ? [field, Object.keys(change.xpubs!).map((code) => `${code}:${addresses[code]?.[0] ?? 'removed'}`)]
        : field === 'wallets'
          ? [field, Object.keys(change.wallets!).map((network) => `${network}:${(value as Record<string, string>)[network] ?? 'removed'}`)]
          : [field, value as string],
    ),
  );
  if (!(await updateMerchant(userId, changes, { at: now.toISOString(), action: 'settings.changed', ...actor, details }))) {
    throw new MerchantNotFoundError(userId);
  }
  return { merchant: profileOf({ ...merchant, ...changes }), addresses };
}

/**
 * Disables or enables a merchant. A disabled merchant's API tokens are refused within the
 * auth cache's lifetime (AUTH_CACHE_SECONDS); its orders are kept, watched and called back.
 */
export async function setDisabled(userId: number, disabled: boolean, actor: AuditActor = CLI_ACTOR, now = new Date()): Promise<MerchantProfile> {
  const merchant = await existingMerchant(userId);
  const audit: AuditEntry = { at: now.toISOString(), action: disabled ? 'merchant.disabled' : 'merchant.enabled', ...actor, details: {} };
  if (!(await updateMerchant(userId, { disabled }, audit))) throw new MerchantNotFoundError(userId);
  return profileOf({ ...merchant, disabled });
}

/** How long callbacks are signed with both secrets after a roll, unless said otherwise. */
export const DEFAULT_SECRET_OVERLAP_HOURS = 24;

/**
 * Rolls the callback secret: the new one signs every callback from now on, and the old one
 * signs them too (a second `v1,` entry in `webhook-signature`) for `overlapHours`, so a
 * merchant's server that still checks the old secret keeps accepting callbacks while it is
 * updated. Returns the new secret (shown once here; `showSecret` shows it again).
 */
export async function rollCallbackSecret(
  userId: number,
  overlapHours = DEFAULT_SECRET_OVERLAP_HOURS,
  actor: AuditActor = CLI_ACTOR,
  now = new Date(),
): Promise<{ callback_secret: string; previous_valid_until: string }> {
  if (!Number.isFinite(overlapHours) || overlapHours < 0 || overlapHours > 24 * 30) {
    throw new RangeError('the overlap is 0 to 720 hours');
  }
  const merchant = await existingMerchant(userId);
  const secret = generateCallbackSecret();
  const until = new Date(now.getTime() + overlapHours * 3_600_000).toISOString();
  const written = await updateMerchant(
    userId,
    { callback_secret: secret, previous_callback_secret: merchant.callback_secret, previous_callback_secret_until: until },
    { at: now.toISOString(), action: 'callback_secret.rolled', ...actor, details: { previous_valid_until: until } },
    { callback_secret: merchant.callback_secret },
  );
  // Another roll got there first: refuse rather than drop the secret it made.
  if (!written) throw new RangeError('the callback secret changed meanwhile: read it again and retry');
  return { callback_secret: secret, previous_valid_until: until };
}

/** The merchant's callback secrets (shown on demand, to those allowed to see them). */
export async function showSecret(userId: number): Promise<{ callback_secret: string; previous_callback_secret?: string; previous_valid_until?: string }> {
  const merchant = await existingMerchant(userId);
  const overlap = merchant.previous_callback_secret_until && Date.parse(merchant.previous_callback_secret_until) > Date.now();
  return {
    callback_secret: merchant.callback_secret,
    ...(overlap ? { previous_callback_secret: merchant.previous_callback_secret, previous_valid_until: merchant.previous_callback_secret_until } : {}),
  };
}

/** Every merchant's profile (no secrets), by user id. */
export async function merchantProfiles(): Promise<MerchantProfile[]> {
  return (await listMerchants()).map(profileOf);
}

/** One merchant's profile (no secrets). */
export async function merchantProfile(userId: number): Promise<MerchantProfile> {
  return profileOf(await existingMerchant(userId));
}

/** A merchant's audit log, newest first (`limit` entries before `before`). */
export async function auditLog(userId: number, limit = 50, before?: string) {
  await existingMerchant(userId);
  return listAuditEntries(userId, Math.min(Math.max(limit, 1), 500), before);
}

async function existingMerchant(userId: number): Promise<Merchant> {
  const merchant = await findMerchant(userId);
  if (!merchant) throw new MerchantNotFoundError(userId);
  return merchant;
}
