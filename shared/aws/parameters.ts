import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';

let client: SSMClient | undefined;

/**
 * The decrypted value of an SSM SecureString (a chain node's URL with its credentials): read
 * once per container by the watcher that needs it; the function's role may read only the
 * parameters the stack names for it.
 */
export async function readSecureParameter(name: string): Promise<string> {
  client ??= new SSMClient({ maxAttempts: 3 });
  const result = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
  const value = result.Parameter?.Value;
  if (!value) throw new Error(`SSM parameter ${name} has no value`);
  return value;
}
