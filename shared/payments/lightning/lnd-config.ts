/**
 * Where the LND node and its secrets are configured. `LND_REST_URL` names the node; the
 * macaroon and the TLS certificate each come from exactly one of:
 *
 * - `LND_MACAROON_PARAMETER` / `LND_TLS_CERT_PARAMETER`: an SSM parameter name (AWS: the
 *   stack sets it from CDK context and grants the functions read access to that parameter);
 * - `LND_MACAROON_FILE` / `LND_TLS_CERT_FILE`: a file (the macaroon as LND writes it, binary;
 *   the certificate as PEM, e.g. `~/.lnd/tls.cert`);
 * - `LND_MACAROON` / `LND_TLS_CERT`: the value itself (hex macaroon; PEM certificate).
 *
 * The SSM parameter holds the macaroon as hex (`xxd -p -c 1000 invoice.macaroon`), the
 * certificate as PEM. Without `LND_REST_URL` nothing is configured and live merchants' LBTC
 * checkouts fail closed; a half configuration (a URL without a macaroon, a secret without a
 * URL, two sources for one secret) refuses to start.
 */
import { readSecret } from '#shared/aws/parameters';
import { section } from '#shared/core/config';
import { ConfigError, type Env, optionalString, type SecretSource, secretSource } from '#shared/core/env';
import { type LndCredentials, LndRestClient } from '#shared/payments/lightning/lnd-rest';

/** A macaroon file is binary; the environment and SSM hold it as hex. Messages never echo it. */
function macaroonHex(source: SecretSource, bytes: Buffer): string {
  if (source.kind === 'file') {
    if (bytes.length === 0) throw new ConfigError(`${source.variable}: the macaroon file is empty`);
    return bytes.toString('hex');
  }
  const text = bytes.toString('utf8').trim();
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(text)) throw new ConfigError(`${source.variable}: the macaroon must be hex`);
  return text.toLowerCase();
}

function certificate(source: SecretSource, bytes: Buffer): string {
  const text = bytes.toString('utf8').trim();
  if (!/^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----$/.test(text)) {
    throw new ConfigError(`${source.variable}: not a PEM certificate`);
  }
  return `${text}\n`;
}

/** The configured LND REST client, or undefined when `LND_REST_URL` is not set. */
export function lndClientFromEnv(env: Env): LndRestClient | undefined {
  const url = optionalString(env, 'LND_REST_URL');
  const macaroon = secretSource(env, 'LND_MACAROON');
  const cert = secretSource(env, 'LND_TLS_CERT');
  if (url === undefined) {
    if (macaroon || cert) throw new ConfigError(`${(macaroon ?? cert)!.variable} is set without LND_REST_URL`);
    return undefined;
  }
  if (!macaroon) throw new ConfigError('LND_REST_URL needs LND_MACAROON_PARAMETER, LND_MACAROON_FILE or LND_MACAROON');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`LND_REST_URL must be an absolute URL, got "${url}"`);
  }
  if (parsed.protocol !== 'https:') throw new ConfigError('LND_REST_URL must use https (LND serves REST over TLS only)');
  const credentials = async (): Promise<LndCredentials> => ({
    macaroonHex: macaroonHex(macaroon, await readSecret(macaroon)),
    ...(cert ? { tlsCertificate: certificate(cert, await readSecret(cert)) } : {}),
  });
  return new LndRestClient({ url: parsed.toString(), credentials });
}

/** The process's LND client (undefined without LND_REST_URL), read from the environment once, on first use. */
export const lndConfig = section((env) => ({ client: lndClientFromEnv(env) }));
