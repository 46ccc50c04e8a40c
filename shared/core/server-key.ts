import { createHash, createHmac, randomBytes } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { readSecureParameter } from '#shared/aws/parameters';
import { apiConfig, tokenKeyConfig } from '#shared/core/config';
import { ConfigError, type SecretSource } from '#shared/core/env';

/**
 * API tokens are stored as HMAC-SHA256 under a server-side key, never as themselves: a leaked
 * table without the key gives no way to test guesses, so even a short token a merchant chose
 * (`--token`, DEMO_API_TOKEN) stays safe. Generated tokens are 256-bit random anyway.
 *
 * The key comes from TOKEN_HMAC_KEY_PARAMETER (an SSM SecureString, AWS), TOKEN_HMAC_KEY_FILE
 * (local: created with 32 random bytes, mode 0600, on first use) or TOKEN_HMAC_KEY; it is read
 * once per process (cold start). Changing it makes every stored token unknown.
 */
const MIN_KEY_CHARS = 32;

let key: Promise<Buffer> | undefined;

export function tokenKey(): Promise<Buffer> {
  key ??= loadKey(tokenKeyConfig().source).catch((error: unknown) => {
    key = undefined; // a failed read (SSM throttled, a file being written) is tried again next time
    throw error;
  });
  return key;
}

async function loadKey(source: SecretSource): Promise<Buffer> {
  const text = source.kind === 'parameter' ? await readSecureParameter(source.ref) : source.kind === 'file' ? await readOrCreateKeyFile(source.ref) : source.ref;
  const trimmed = text.trim();
  if (trimmed.length < MIN_KEY_CHARS) throw new ConfigError(`${source.variable}: the token key must be at least ${MIN_KEY_CHARS} characters`);
  return Buffer.from(trimmed, 'utf8');
}

/**
 * The key file's text, creating it first if it does not exist: written in full to a private
 * temporary file and then linked into place, so a second process never reads a half-written
 * key, and of two processes creating it at once exactly one wins (the other reads its key).
 */
async function readOrCreateKeyFile(path: string): Promise<string> {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary);
  }
  return readFile(path, 'utf8');
}

/**
 * A secret the service must be able to make again without storing it (a refund link's):
 * HMAC-SHA256 of `purpose` and `text` under the same server key, base64url. The table holds
 * only its SHA-256, as for every other secret.
 */
export async function serverSecret(purpose: string, text: string): Promise<string> {
  return createHmac('sha256', await tokenKey())
    .update(`${purpose}\n${text}`, 'utf8')
    .digest('base64url');
}

/** A refund link's identity: the refund and which of its links is valid. */
export interface RefundLinkRef {
  refund_id: string;
  link_version: number;
}

const REFUND_LINK_PURPOSE = 'refund-link';

/**
 * A refund link's secret: made again from the refund by the server's key, never stored. Here,
 * below everything, so the refunds service (which hands it to the merchant) and the email sender
 * (which mails it to the buyer) make the same link without the sender importing services.
 */
export const refundLinkSecret = (refund: RefundLinkRef): Promise<string> => serverSecret(REFUND_LINK_PURPOSE, `${refund.refund_id}\n${refund.link_version}`);

/** What the table keeps of a link's secret. */
export const refundLinkHash = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** The buyer's one-time link on the payment site: the secret in the fragment, so no server log sees it. */
export async function refundUrl(refund: RefundLinkRef): Promise<string> {
  const url = new URL(apiConfig().paymentPageUrl);
  url.hash = `refund=${await refundLinkSecret(refund)}`;
  return url.toString();
}
