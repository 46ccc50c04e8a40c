import { randomBytes } from 'node:crypto';
import { isGateway, RECEIVE_CURRENCIES } from '#shared/domain/currencies';
import { deriveAddress, type AddressCurrency } from '#shared/payments/addresses/index';
import { isSolanaAddress } from '#shared/payments/addresses/solana';

const ADDRESS_CURRENCIES: readonly AddressCurrency[] = ['BTC', 'LTC', 'BCH', 'ETH', 'TRX'];
import { CALLBACK_STATUSES, type CallbackStatuses, type Merchant, TOKEN_PATTERN } from '#shared/domain/merchant';
import { apiTokenHash } from '#shared/services/api-tokens';
import { insertMerchant } from '#shared/store/merchants';

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
  /** The merchant's own receiving wallets, by network (SOL: a Solana wallet address for USDC_SOL). */
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

/** A random API token: 32 bytes (256 bits), base64url. */
export const generateApiToken = (): string => randomBytes(32).toString('base64url');

/** A Standard Webhooks secret: `whsec_` and base64 of 32 random bytes. */
export const generateCallbackSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The key of the merchant's order ids for its references (see orderIdFor): 32 random bytes, hex. */
export const generateOrderIdKey = (): string => randomBytes(32).toString('hex');

export async function createMerchant(input: NewMerchant, now = new Date()): Promise<MerchantCredentials> {
  const receiveCurrency = input.receiveCurrency ?? 'USD';
  if (!RECEIVE_CURRENCIES.includes(receiveCurrency)) {
    throw new RangeError(`receive currency must be one of ${RECEIVE_CURRENCIES.join(', ')}`);
  }
  if (input.apiToken !== undefined && !TOKEN_PATTERN.test(input.apiToken)) {
    throw new RangeError('an API token must be 16 to 256 printable ASCII characters');
  }
  const tolerance = input.tolerancePercent ?? '0';
  if (!/^\d{1,2}(\.\d{1,2})?$/.test(tolerance)) throw new RangeError('tolerance must be a percent from 0 to 99.99');
  for (const [code, key] of Object.entries(input.xpubs ?? {})) {
    if (!ADDRESS_CURRENCIES.includes(code as AddressCurrency)) throw new RangeError(`no addresses are derived for ${code}`);
    // Refuses private keys and malformed keys before anything is stored.
    deriveAddress(code as AddressCurrency, key, 0);
  }
  for (const [network, wallet] of Object.entries(input.wallets ?? {})) {
    if (network !== 'SOL') throw new RangeError(`no wallet is taken for ${network} (only SOL)`);
    if (!isSolanaAddress(wallet)) throw new RangeError(`the SOL wallet must be a Solana address (base58, 32 bytes), got "${wallet}"`);
  }
  for (const gateway of input.gateways ?? []) {
    if (!isGateway(gateway)) throw new RangeError(`${gateway} is not a gateway currency`);
  }
  const callbackStatuses = (input.callbackStatuses ?? 'paid') as CallbackStatuses;
  if (!CALLBACK_STATUSES.includes(callbackStatuses)) throw new RangeError(`callback statuses must be one of ${CALLBACK_STATUSES.join(', ')}`);
  const apiToken = input.apiToken ?? generateApiToken();
  const callbackSecret = generateCallbackSecret();
  const merchant: Omit<Merchant, 'user_id'> = {
    name: input.name,
    sandbox: input.sandbox,
    receive_currency: receiveCurrency,
    gateways: input.gateways ?? [],
    payment_tolerance_percent: tolerance,
    callback_statuses: callbackStatuses,
    xpubs: input.xpubs ?? {},
    ...(input.wallets && Object.keys(input.wallets).length > 0 ? { wallets: input.wallets } : {}),
    created_at: now.toISOString(),
    order_id_key: generateOrderIdKey(),
    token_hash: await apiTokenHash(apiToken),
    callback_secret: callbackSecret,
  };
  const stored = await insertMerchant(merchant);
  return { user_id: stored.user_id, api_token: apiToken, callback_secret: callbackSecret };
}
