import { randomBytes } from 'node:crypto';
import { RECEIVE_CURRENCIES } from '#shared/domain/currencies';
import type { Merchant } from '#shared/domain/merchant';
import { hashToken, TOKEN_PATTERN } from '#shared/http/auth';
import { insertMerchant } from '#shared/store/merchants';

export interface NewMerchant {
  name: string;
  sandbox: boolean;
  /** Use this API token instead of a generated one (e.g. the local demo's DEMO_API_TOKEN). */
  apiToken?: string;
  receiveCurrency?: string;
  gateways?: string[];
}

/** Credentials shown once, at creation. Only the token's hash is stored. */
export interface MerchantCredentials {
  user_id: number;
  api_token: string;
  callback_secret: string;
}

/** A random API token: 32 bytes (256 bits), base64url. */
export const generateApiToken = (): string => randomBytes(32).toString('base64url');

/** A Standard Webhooks secret: `whsec_` and base64 of 32 random bytes. */
export const generateCallbackSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export async function createMerchant(input: NewMerchant, now = new Date()): Promise<MerchantCredentials> {
  const receiveCurrency = input.receiveCurrency ?? 'USD';
  if (!RECEIVE_CURRENCIES.includes(receiveCurrency)) {
    throw new RangeError(`receive currency must be one of ${RECEIVE_CURRENCIES.join(', ')}`);
  }
  if (input.apiToken !== undefined && !TOKEN_PATTERN.test(input.apiToken)) {
    throw new RangeError('an API token must be 16 to 256 printable ASCII characters');
  }
  const apiToken = input.apiToken ?? generateApiToken();
  const callbackSecret = generateCallbackSecret();
  const merchant: Omit<Merchant, 'user_id'> = {
    name: input.name,
    sandbox: input.sandbox,
    receive_currency: receiveCurrency,
    gateways: input.gateways ?? [],
    created_at: now.toISOString(),
    token_hash: hashToken(apiToken),
    callback_secret: callbackSecret,
  };
  const stored = await insertMerchant(merchant);
  return { user_id: stored.user_id, api_token: apiToken, callback_secret: callbackSecret };
}
