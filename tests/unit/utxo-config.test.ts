import { describe, expect, it } from 'vitest';
import { MAINNET_IDENTITIES, readUtxoChainConfig } from '#shared/chains/utxo';

const TESTNET4_LTC = '4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0';

describe('the chain each UTXO source must be on', () => {
  it('is mainnet by default, BTC and BCH told apart by block 478559', () => {
    const identities = readUtxoChainConfig({});
    expect(identities).toEqual(MAINNET_IDENTITIES);
    expect(identities.BTC.genesisHash).toBe(identities.BCH.genesisHash);
    expect(identities.BTC.checkpoint!.height).toBe(identities.BCH.checkpoint!.height);
    expect(identities.BTC.checkpoint!.hash).not.toBe(identities.BCH.checkpoint!.hash);
    expect(identities.LTC.checkpoint).toBeUndefined();
  });

  it("takes another network's genesis (no mainnet checkpoint then), a checkpoint of its own, or none", () => {
    expect(readUtxoChainConfig({ LTC_GENESIS_HASH: TESTNET4_LTC.toUpperCase() }).LTC).toEqual({ genesisHash: TESTNET4_LTC });
    const regtest = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
    expect(readUtxoChainConfig({ BTC_GENESIS_HASH: regtest }).BTC).toEqual({ genesisHash: regtest });
    expect(readUtxoChainConfig({ BCH_CHECKPOINT: `1000:${'ab'.repeat(32)}` }).BCH).toEqual({ genesisHash: MAINNET_IDENTITIES.BCH.genesisHash, checkpoint: { height: 1000, hash: 'ab'.repeat(32) } });
    expect(readUtxoChainConfig({ BTC_CHECKPOINT: 'none' }).BTC).toEqual({ genesisHash: MAINNET_IDENTITIES.BTC.genesisHash });
  });

  it.each([
    [{ BTC_GENESIS_HASH: 'testnet' }, /BTC_GENESIS_HASH must be a block hash/],
    [{ LTC_GENESIS_HASH: 'ab'.repeat(31) }, /LTC_GENESIS_HASH must be a block hash/],
    [{ BCH_CHECKPOINT: '478559' }, /BCH_CHECKPOINT must be "<height>:<block hash>"/],
    [{ BTC_CHECKPOINT: `0:${'ab'.repeat(32)}` }, /BTC_CHECKPOINT must be/],
  ])('refuses %o', (env, message) => {
    expect(() => readUtxoChainConfig(env)).toThrow(message);
  });
});
