import { existsSync, readFileSync } from 'node:fs';
import { LOCAL_AWS_ENV } from '#infra/local/dynamodb';
import { localTokenKey, stateFile, type RuntimeState } from '#infra/local/runtime-state';

/**
 * Points an operator's CLI at its table: with TABLE_NAME set, that table in AWS (credentials and
 * region from the usual AWS variables; SSM parameters read with the SDK), otherwise the running
 * local runtime's (found through DATA_DIR/runtime.json). Exits with a message when neither is there.
 */
export async function useCliTable(fail: (message: string) => never): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (process.env.TABLE_NAME) {
    // Against AWS: the token key is an SSM parameter, read here with the SDK (not the Lambda extension).
    (await import('#infra/local/ssm-parameters')).readParametersWithSdk();
    return;
  }
  const file = stateFile(process.env.DATA_DIR ?? '.data');
  if (!existsSync(file)) {
    fail(`No local runtime is running (no ${file}). Start it with "npm start", or set TABLE_NAME for a table in AWS.`);
  }
  const state = JSON.parse(readFileSync(file, 'utf8')) as RuntimeState;
  // A runtime that was killed leaves its state file behind: check it is still there.
  try {
    process.kill(state.pid, 0);
  } catch {
    fail(`The local runtime that wrote ${file} is no longer running. Start it with "npm start".`);
  }
  Object.assign(process.env, LOCAL_AWS_ENV, { TABLE_NAME: state.tableName, DYNAMODB_ENDPOINT: state.dynamodbEndpoint });
  Object.assign(process.env, localTokenKey(process.env.DATA_DIR ?? '.data'));
  process.env.PORTAL_ORIGIN ??= state.portalOrigin ?? new URL(state.apiUrl).origin.replace('127.0.0.1', 'localhost');
}
