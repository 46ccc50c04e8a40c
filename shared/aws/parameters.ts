import { parameterExtensionConfig } from '#shared/core/config';
import { readFile } from 'node:fs/promises';
import { ConfigError, type SecretSource } from '#shared/core/env';
import { describeFetchError } from '#shared/core/fetch-text';
import { RetriesExhaustedError, RetryableStatusError, type RetryPolicy, withRetries } from '#shared/core/retry';

/**
 * Tries of one read, 50 then 100 ms apart, no jitter (each function's own sandbox): the extension
 * answers 400 while it is still starting, and may drop a connection.
 */
const READS: RetryPolicy = { attempts: 3, baseDelayMs: 50, jitter: false };
const TIMEOUT_MS = 5_000;

/** A read's outcome that asking again would not change (refused, missing, garbage): thrown without another try. */
class FinalReadError extends Error {}

let outsideLambda: ((name: string) => Promise<string>) | undefined;

/**
 * How a process outside Lambda (the operator's CLI against the AWS table) reads parameters:
 * it brings its own SSM client (infra/local/ssm-parameters.ts), which no Lambda bundle imports.
 */
export function readParametersOutsideLambdaWith(reader: (name: string) => Promise<string>): void {
  outsideLambda = reader;
}

/**
 * The decrypted value of an SSM SecureString (a chain node's URL, the LND macaroon and
 * certificate, a gateway's credentials, the API token key), read through the AWS Parameters and
 * Secrets Lambda extension: a local HTTP endpoint in the function's sandbox that calls SSM with
 * the function's role and caches the value (5 minutes). No SDK client is bundled for it: the SSM
 * client was 228 KB of every merchant route's bundle and most of its cold start
 * (docs/performance.md). The stack adds the extension's layer to every function it gives a
 * parameter, and grants that function ssm:GetParameter on exactly those parameters.
 */
export async function readSecureParameter(name: string): Promise<string> {
  const { port, sessionToken } = parameterExtensionConfig();
  if (port === undefined || sessionToken === undefined) {
    if (outsideLambda) return outsideLambda(name);
    throw new ConfigError(`SSM parameter ${name} can only be read through the Parameters and Secrets Lambda extension (the stack adds it)`);
  }
  const url = `http://localhost:${port}/systemsmanager/parameters/get?name=${encodeURIComponent(name)}&withDecryption=true`;
  const unreadable = (problem: string) => new FinalReadError(`SSM parameter ${name} could not be read through the Parameters and Secrets extension: ${problem}`);
  try {
    return await withRetries(READS, { retried: (error) => !(error instanceof FinalReadError), describe: describeFetchError }, async () => {
      const response = await fetch(url, { headers: { 'X-Aws-Parameters-Secrets-Token': sessionToken }, signal: AbortSignal.timeout(TIMEOUT_MS) });
      const text = await response.text();
      // Never the body into the message: it may quote what was asked for, never a value, but keep it short.
      // Refused (no grant) or missing: asking again will not change that. Any other status (400 while starting) is.
      if (response.status === 403 || response.status === 404) throw unreadable(`HTTP ${response.status}`);
      if (!response.ok) throw new RetryableStatusError(response.status);
      let value: unknown;
      try {
        value = (JSON.parse(text) as { Parameter?: { Value?: unknown } }).Parameter?.Value;
      } catch {
        throw new FinalReadError(`SSM parameter ${name}: the extension's answer is not JSON`);
      }
      if (typeof value !== 'string' || value === '') throw new FinalReadError(`SSM parameter ${name} has no value`);
      return value;
    });
  } catch (error) {
    if (error instanceof RetriesExhaustedError) throw unreadable(error.problem);
    throw error;
  }
}

/** A secret from where its settings name it (shared/core/env.ts secretSource): its SSM parameter, its file, or the value itself. */
export async function readSecret(source: SecretSource): Promise<Buffer> {
  if (source.kind === 'value') return Buffer.from(source.ref, 'utf8');
  if (source.kind === 'file') return readFile(source.ref);
  return Buffer.from(await readSecureParameter(source.ref), 'utf8');
}
