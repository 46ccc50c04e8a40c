import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider, Checksum, SourceData } from '@smithy/types';

/**
 * Asynchronous Lambda invocations (InvocationType Event) as one SigV4-signed POST to the
 * Lambda Invoke API, with the signer the DynamoDB client already bundles: the wake-watchers
 * bundle grows by about 1 KB this way, by about 70 KB with @aws-sdk/client-lambda (measured
 * with esbuild, minified, beside the DynamoDB client; docs/performance.md).
 */

/** SHA-256 (or HMAC-SHA-256 with a secret) over node:crypto, in the shape SignatureV4 takes. */
class Sha256 implements Checksum {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }

  update(data: Uint8Array): void {
    this.hash.update(data);
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const key = typeof this.secret === 'string' ? this.secret : Buffer.from(this.secret as ArrayBuffer);
    return createHmac('sha256', key);
  }
}

export interface AsyncInvokerOptions {
  region: string;
  /** The Lambda API's base URL (default `https://lambda.<region>.amazonaws.com`; tests use a local server). */
  endpoint?: string;
  /** Default: the environment's (Lambda hands a function its role's credentials there). */
  credentials?: AwsCredentialIdentityProvider;
  /** Per request (default 5 s). */
  timeoutMs?: number;
}

/** Queues one invocation of `functionName` with `payload` (Lambda answers 202 once it is queued). */
export type AsyncInvoker = (functionName: string, payload: unknown) => Promise<void>;

/** An {@link AsyncInvoker} for one region. A refused or failed request throws (the caller's retry decides). */
export function asyncInvoker(options: AsyncInvokerOptions): AsyncInvoker {
  const endpoint = new URL(options.endpoint ?? `https://lambda.${options.region}.amazonaws.com`);
  const signer = new SignatureV4({ service: 'lambda', region: options.region, credentials: options.credentials ?? fromEnv(), sha256: Sha256 });
  return async (functionName, payload) => {
    const body = JSON.stringify(payload);
    const path = `/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`;
    const signed = await signer.sign({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
      path,
      headers: { host: endpoint.host, 'content-type': 'application/json', 'x-amz-invocation-type': 'Event' },
      body,
    });
    // fetch sets Host itself, from the URL (the value signed).
    const { host: _host, ...headers } = signed.headers;
    const response = await fetch(new URL(path, endpoint), { method: 'POST', headers, body, signal: AbortSignal.timeout(options.timeoutMs ?? 5_000) });
    const text = await response.text();
    if (response.status !== 202) throw new Error(`Lambda Invoke of ${functionName} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  };
}
