/**
 * How old a block source's tip may be (chains/tip-age.ts): mainnet's defaults per chain, set
 * from its block intervals, only where the chain is configured on its mainnet (a testnet's
 * blocks are irregular, a local chain mines on demand); `<CHAIN>_MAX_TIP_AGE_SECONDS` sets it,
 * 0 turns it off.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TIP_AGE_DEFAULTS, readTipAgeConfig } from '#shared/chains/tip-age';

const TESTNET_GENESIS = '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943';

describe('the tip-age limits', () => {
  it("default to each chain's from its block intervals: hours on proof-of-work chains, minutes on the others", () => {
    expect(readTipAgeConfig({})).toEqual({ BTC: 10_800, LTC: 2_700, BCH: 14_400, ETH: 300, ARBITRUM: 120, BASE: 120, POLYGON: 120, BSC: 120, CELO: 120 });
    expect(MAX_TIP_AGE_DEFAULTS).toEqual(readTipAgeConfig({}));
  });

  it('P(no block for the limit) on a proof-of-work chain is at most e^-18 a block: a healthy node does not trip it in centuries', () => {
    const intervals = { BTC: 600, LTC: 150, BCH: 600 };
    for (const [chain, seconds] of Object.entries(intervals)) {
      const perBlock = Math.exp(-MAX_TIP_AGE_DEFAULTS[chain]! / seconds);
      const perYear = perBlock * ((365 * 86_400) / seconds);
      expect(perYear, chain).toBeLessThan(1 / 250);
    }
  });

  it('is off by default on a chain that is not its mainnet: another genesis or chain id (testnet, regtest, the devnet)', () => {
    const limits = readTipAgeConfig({ BTC_GENESIS_HASH: TESTNET_GENESIS, ETH_CHAIN_ID: '31337', ARBITRUM_CHAIN_ID: '412346' });
    expect(limits).toMatchObject({ BTC: 0, ETH: 0, ARBITRUM: 0, LTC: 2_700, BASE: 120 });
  });

  it('takes each chain its own setting, on any network; 0 turns the check off; refuses what is not a whole number of seconds', () => {
    expect(readTipAgeConfig({ BTC_MAX_TIP_AGE_SECONDS: '0', ETH_MAX_TIP_AGE_SECONDS: '600', ETH_CHAIN_ID: '31337', ARBITRUM_MAX_TIP_AGE_SECONDS: '60' })).toMatchObject({
      BTC: 0,
      ETH: 600,
      ARBITRUM: 60,
    });
    expect(() => readTipAgeConfig({ LTC_MAX_TIP_AGE_SECONDS: '45m' })).toThrow(/LTC_MAX_TIP_AGE_SECONDS must be a non-negative integer, got "45m"/);
    expect(() => readTipAgeConfig({ BCH_MAX_TIP_AGE_SECONDS: '-1' })).toThrow(/BCH_MAX_TIP_AGE_SECONDS/);
  });
});
