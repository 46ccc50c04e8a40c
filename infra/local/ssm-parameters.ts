import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { readParametersOutsideLambdaWith } from '#shared/aws/parameters';

/**
 * SSM parameters for the operator's CLI run against AWS (TABLE_NAME and
 * TOKEN_HMAC_KEY_PARAMETER set): an SDK client with the usual credential chain. The Lambda
 * functions read through the Parameters and Secrets extension instead (shared/aws/parameters.ts)
 * and never bundle this client.
 */
export function readParametersWithSdk(): void {
  let client: SSMClient | undefined;
  readParametersOutsideLambdaWith(async (name) => {
    client ??= new SSMClient({ maxAttempts: 3 });
    const value = (await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }))).Parameter?.Value;
    if (!value) throw new Error(`SSM parameter ${name} has no value`);
    return value;
  });
}
