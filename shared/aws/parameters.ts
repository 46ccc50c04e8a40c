import type { SSMClient } from '@aws-sdk/client-ssm';

let client: SSMClient | undefined;

/**
 * The decrypted value of an SSM SecureString (a chain node's URL, the LND macaroon and
 * certificate, a gateway's credentials, the API token key). The SSM client is loaded on the
 * first read, not at cold start: most functions that may read a parameter never do on a given
 * run, and the client is the largest module they bundle. The function's role may read only the
 * parameters the stack names for it.
 */
export async function readSecureParameter(name: string): Promise<string> {
  const { GetParameterCommand, SSMClient: Client } = await import('@aws-sdk/client-ssm');
  client ??= new Client({ maxAttempts: 3 });
  const result = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
  const value = result.Parameter?.Value;
  if (!value) throw new Error(`SSM parameter ${name} has no value`);
  return value;
}
