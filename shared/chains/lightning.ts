import { section } from '#shared/core/config';
import { type Env, optionalString } from '#shared/core/env';

/**
 * Lightning for live merchants: `LND_REST_URL` names the LND node (its macaroon and TLS
 * certificate are read by shared/payments/lightning/lnd-config.ts, from SSM, a file or the
 * environment). Set, live merchants can be paid in LBTC and the LBTC watcher runs.
 */
export const readLightningConfig = (env: Env) => ({ restUrl: optionalString(env, 'LND_REST_URL') });

/** The process's Lightning settings (the environment read once, by shared/core/config.ts). */
export const lightningConfig = section(readLightningConfig);
