import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/**
 * What a running local runtime leaves for the operator's CLIs (the merchant and health
 * commands): where its table is, and where its API token key is kept. Apart from the runtime
 * itself, so that a CLI does not load every handler to read a file (about 0.6 s of CPU each
 * command).
 */

/** Where the merchant CLI finds a running local runtime's table. */
export const stateFile = (dataDir: string): string => join(dataDir, 'runtime.json');

export interface RuntimeState {
  dynamodbEndpoint: string;
  portalOrigin?: string;
  tableName: string;
  apiUrl: string;
  pid: number;
}

/** The key file API tokens are stored under (HMAC), beside the data: created on first use. */
export const tokenKeyFile = (dataDir: string): string => join(dataDir, 'token-hmac.key');

/**
 * The token key's source when none is configured: the key file in the data folder, or, for a
 * runtime without one (in memory, its merchants die with it), a key of its own.
 */
export function localTokenKey(dataDir: string | undefined): Record<string, string> {
  if (['TOKEN_HMAC_KEY_PARAMETER', 'TOKEN_HMAC_KEY_FILE', 'TOKEN_HMAC_KEY'].some((name) => process.env[name])) return {};
  return dataDir ? { TOKEN_HMAC_KEY_FILE: tokenKeyFile(dataDir) } : { TOKEN_HMAC_KEY: randomBytes(32).toString('hex') };
}
