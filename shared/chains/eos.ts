import { section } from '#shared/core/config';
import { ConfigError, type Env, optionalString } from '#shared/core/env';
import { httpUrl } from '#shared/chains/sources';

/**
 * EOS for live merchants: `EOS_ACCOUNT` receives the payments (each invoice names its own
 * memo) and `EOS_HISTORY_URL` is the Hyperion history API the EOS watcher reads its transfers
 * from. Only both together make EOS payable by live merchants (an account nobody watches would
 * take payments nobody sees); a history URL without an account is a mistake and refuses to start.
 */
export const readEosConfig = (env: Env) => {
  const account = optionalString(env, 'EOS_ACCOUNT');
  const historyUrl = optionalString(env, 'EOS_HISTORY_URL');
  if (account !== undefined && !/^[a-z1-5.]{1,12}$/.test(account)) {
    throw new ConfigError('environment variable EOS_ACCOUNT must be an EOS account name (a-z, 1-5, dot; up to 12)');
  }
  if (historyUrl !== undefined) {
    if (account === undefined) throw new ConfigError('EOS_HISTORY_URL is set without EOS_ACCOUNT');
    httpUrl('EOS_HISTORY_URL', historyUrl);
  }
  return { account, historyUrl, watched: account !== undefined && historyUrl !== undefined };
};

/** The process's EOS settings (the environment read once, by shared/core/config.ts). */
export const eosConfig = section(readEosConfig);
