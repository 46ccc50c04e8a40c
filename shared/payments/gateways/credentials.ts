import { readFile } from 'node:fs/promises';
import { readSecureParameter } from '#shared/aws/parameters';
import { ConfigError, type Env, type SecretSource, secretSource } from '#shared/core/env';

/**
 * Where a gateway's credentials come from, by its code (ALIPAY, ALIGLOBAL, WECHAT):
 * `<CODE>_CREDENTIALS_PARAMETER` names an SSM SecureString (AWS: the stack sets the name from
 * CDK context), `<CODE>_CREDENTIALS_FILE` a local JSON file, `<CODE>_CREDENTIALS` the JSON
 * itself (local use). At most one; none means the gateway is not configured.
 */
export type CredentialSource = SecretSource;

export const credentialSource = (env: Env, code: string): CredentialSource | undefined => secretSource(env, `${code}_CREDENTIALS`);

/** The credentials JSON object (its fields are the gateway's; see docs/operator-guide.md "Gateways"). */
export async function loadCredentials(source: CredentialSource): Promise<Record<string, unknown>> {
  let text: string;
  if (source.kind === 'value') text = source.ref;
  else if (source.kind === 'file') text = await readFile(source.ref, 'utf8');
  else text = await readSecureParameter(source.ref);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Never echo the text: it holds private keys.
    throw new ConfigError(`the ${source.kind} credentials are not a JSON object`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`the ${source.kind} credentials are not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/** A required string field of a credentials object. */
export function field(credentials: Record<string, unknown>, name: string, code: string): string {
  const value = credentials[name];
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(`${code} credentials need "${name}"`);
  return value.trim();
}

export function optionalField(credentials: Record<string, unknown>, name: string, code: string): string | undefined {
  const value = credentials[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ConfigError(`${code} credentials: "${name}" must be a string`);
  return value.trim();
}
