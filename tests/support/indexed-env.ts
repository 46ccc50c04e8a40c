import type { HyperionTestServer } from './hyperion-server';
import { LND_TLS_CERT, type LndTestServer } from './lnd-server';

/** The environment that configures Lightning (the local LND server) and EOS (the local Hyperion server) for live merchants. */
export const lightningAndEosEnv = (lnd: LndTestServer, hyperion: HyperionTestServer, account: string): Record<string, string> => ({
  LND_REST_URL: lnd.url,
  LND_MACAROON: lnd.macaroon.toString('hex'),
  LND_TLS_CERT,
  EOS_ACCOUNT: account,
  EOS_HISTORY_URL: hyperion.url,
});
