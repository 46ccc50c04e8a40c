import { createHash } from 'node:crypto';

/**
 * Which status changes a merchant's callback_url hears about. 'paid' (the default): only the
 * change to PAID, what MugglePay's plugins are built for (WooCommerce marks a shop order paid
 * on any callback whose token verifies, whatever its status). 'all': every status change.
 */
export type CallbackStatuses = 'paid' | 'all';

export const CALLBACK_STATUSES: readonly CallbackStatuses[] = ['paid', 'all'];

/**
 * A merchant account. The API token and callback secret are shown once, at creation; the
 * store keeps only the token's keyed hash (HMAC-SHA256, shared/services/api-tokens.ts). The
 * callback secret must stay readable because every callback is signed with it.
 */
export interface MerchantProfile {
  user_id: number;
  name: string;
  /** Sandbox merchants use test rates and may simulate payments; nothing settles. */
  sandbox: boolean;
  /** Settlement currency: USD or a stable coin. */
  receive_currency: string;
  /** Gateway currencies (ALIPAY, ALIGLOBAL, WECHAT) enabled for this merchant. */
  gateways: string[];
  /** Accepted deviation of a payment from the invoice amount, in percent ("0" by default). */
  payment_tolerance_percent?: string;
  /** Which status changes are called back (absent: 'paid', see {@link CallbackStatuses}). */
  callback_statuses?: CallbackStatuses;
  /** The merchant's own account-level extended public keys (BTC, LTC, BCH, ETH). */
  xpubs?: Partial<Record<string, string>>;
  /**
   * The merchant's own receiving wallets, for networks where one address takes every invoice and
   * a per-invoice reference, comment or id tells them apart (Solana Pay: `SOL`, a base58 wallet
   * address; `TON`: a wallet in its non-bounceable form; `XLM`: a Stellar account).
   */
  wallets?: Partial<Record<string, string>>;
  created_at: string;
  /**
   * Server-side secret (never shown) from which the ids of orders with a merchant_order_id
   * are derived (orderIdFor). Merchants created before it existed have none: their
   * references are kept unique by a guard item instead. Never add one to such a merchant
   * later: its references held by guard items would no longer block new orders.
   */
  order_id_key?: string;
  /**
   * A disabled merchant's API tokens and portal sessions are refused (within the auth cache's
   * few seconds); its orders are kept and still watched, and callbacks still go out.
   */
  disabled?: boolean;
}

export interface Merchant extends MerchantProfile {
  /**
   * The keyed hash of the merchant's first API token (absent once that token is revoked);
   * every token, the first included, also has its own items (shared/store/api-tokens.ts).
   */
  token_hash?: string;
  /** Standard Webhooks secret, `whsec_<base64>`. */
  callback_secret: string;
  /**
   * The secret before the last roll and until when callbacks are signed with it too (ISO
   * time): during that overlap `webhook-signature` carries both signatures, so a merchant's
   * server checking either one keeps accepting callbacks while it is being updated.
   */
  previous_callback_secret?: string;
  previous_callback_secret_until?: string;
}

/** The fields of a stored merchant that are secrets: never in a {@link MerchantProfile}. */
export const MERCHANT_SECRET_FIELDS = ['token_hash', 'callback_secret', 'previous_callback_secret', 'previous_callback_secret_until'] as const;

type SecretField = Exclude<keyof Merchant, keyof MerchantProfile>;
/** Fails to compile when a field is added to Merchant (not the profile) without being listed above. */
const listsEverySecret: [Exclude<SecretField, (typeof MERCHANT_SECRET_FIELDS)[number]>] extends [never] ? true : never = true;
void listsEverySecret;

/**
 * What every function may see of a merchant, and the only way to get it from a stored one: all
 * but {@link MERCHANT_SECRET_FIELDS} (the token hash, the callback secret, the previous one and
 * its end). `order_id_key` stays: order creation derives ids from it; no answer shows it.
 */
export function profileOf(merchant: Merchant): MerchantProfile {
  const profile: Partial<Merchant> = { ...merchant };
  for (const field of MERCHANT_SECRET_FIELDS) delete profile[field];
  return profile as MerchantProfile;
}

/**
 * The secrets a callback signed at `now` is signed with: the current one, and the previous one
 * while its overlap lasts (Standard Webhooks allows several space-separated signatures).
 */
export function signingSecrets(merchant: Pick<Merchant, 'callback_secret' | 'previous_callback_secret' | 'previous_callback_secret_until'>, now: Date): string[] {
  const { callback_secret: current, previous_callback_secret: previous, previous_callback_secret_until: until } = merchant;
  return previous && until && Date.parse(until) > now.getTime() ? [current, previous] : [current];
}

/** A named API token as the merchant sees it: never the token itself, only its first characters. */
export interface ApiTokenSummary {
  token_id: string;
  name: string;
  /** The token's first characters (absent for a token made before tokens had names). */
  prefix?: string;
  created_at: string;
  last_used_at?: string;
}

/** How many API tokens a merchant may hold at once (each is one item read on a cache miss). */
export const MAX_API_TOKENS = 20;

/** What a token's name may be. */
export const TOKEN_NAME_PATTERN = /^[\p{L}\p{N} ._\-:/()@#]{1,64}$/u;

/**
 * How API tokens were stored before they were keyed (hex SHA-256): still looked up for
 * merchants created then, and replaced by the keyed hash on first use
 * (shared/services/api-tokens.ts). Nothing new is stored this way.
 */
export function legacyTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What an API token may look like (checked before any read). */
export const TOKEN_PATTERN = /^[\x21-\x7e]{16,256}$/;

/** The merchant's receiving wallets that are set, by network (what the portal shows). */
export const walletsOf = (merchant: { wallets?: Partial<Record<string, string>> }): Record<string, string> =>
  Object.fromEntries(Object.entries(merchant.wallets ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined));
