import { describe, expect, it } from 'vitest';
import { readEosConfig, readLightningConfig } from '#shared/core/config';
import { ConfigError } from '#shared/core/env';
import { indexedChains } from '#shared/watchers/run';

describe('Lightning and EOS configuration (what is watched, what live merchants may be paid in)', () => {
  it('EOS is watched only with both EOS_ACCOUNT and EOS_HISTORY_URL; LBTC with LND_REST_URL', () => {
    expect(readEosConfig({ EOS_ACCOUNT: 'shop.pay' })).toEqual({ account: 'shop.pay', historyUrl: undefined, watched: false });
    expect(readEosConfig({ EOS_ACCOUNT: 'shop.pay', EOS_HISTORY_URL: 'https://eos.hyperion.example' }).watched).toBe(true);
    const chains = (env: Record<string, string>) => indexedChains(readLightningConfig(env), readEosConfig(env));
    expect(chains({})).toEqual([]);
    expect(chains({ EOS_ACCOUNT: 'shop.pay' })).toEqual([]);
    expect(chains({ LND_REST_URL: 'https://lnd:8080', EOS_ACCOUNT: 'shop.pay', EOS_HISTORY_URL: 'https://eos.example' })).toEqual(['LBTC', 'EOS']);
  });

  it('refuses a history API without an account, a malformed account and a URL that is not http(s)', () => {
    expect(() => readEosConfig({ EOS_HISTORY_URL: 'https://eos.example' })).toThrow(/EOS_HISTORY_URL is set without EOS_ACCOUNT/);
    expect(() => readEosConfig({ EOS_ACCOUNT: 'Shop-Pay' })).toThrow(ConfigError);
    expect(() => readEosConfig({ EOS_ACCOUNT: 'shop.pay', EOS_HISTORY_URL: 'eos.example' })).toThrow(/absolute URL/);
    expect(() => readEosConfig({ EOS_ACCOUNT: 'shop.pay', EOS_HISTORY_URL: 'ftp://eos.example' })).toThrow(/http\(s\)/);
  });
});
