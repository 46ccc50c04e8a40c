import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What `npm run devnet` started, for `npm run devnet:pay` (kept in the devnet's DATA_DIR). */
export interface DevnetState {
  rpcUrl: string;
  chainId: number;
  apiUrl: string;
  tokens: { USDT_ERC20: `0x${string}`; USDC_ERC20: `0x${string}` };
  buyer: `0x${string}`;
}

/** The devnet's own data folder: its chain lives in memory, so its table starts afresh with it. */
export const DEVNET_DATA_DIR = '.data/devnet';

const file = (dataDir: string) => join(dataDir, 'devnet.json');

export function writeDevnetState(dataDir: string, state: DevnetState): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file(dataDir), `${JSON.stringify(state, null, 2)}\n`);
}

export function readDevnetState(dataDir: string): DevnetState {
  try {
    return JSON.parse(readFileSync(file(dataDir), 'utf8')) as DevnetState;
  } catch {
    throw new Error(`no devnet found in ${dataDir}: start one with \`npm run devnet\``);
  }
}
