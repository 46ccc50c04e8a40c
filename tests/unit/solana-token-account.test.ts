import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { address, getProgramDerivedAddress } from '@solana/kit';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { ASSOCIATED_TOKEN_PROGRAM_ID, associatedTokenAddress, findProgramAddress, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '#shared/payments/addresses/solana-token-account';

/**
 * The watcher's own associated token account derivation against an independent implementation:
 * @solana/kit's getProgramDerivedAddress and @solana-program/token's findAssociatedTokenPda
 * (the SDK wallets use). A wrong derivation would list an account nobody pays, and miss every
 * payment: so many random owners, the bump too, and a fixed vector from mainnet.
 */
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('associatedTokenAddress', () => {
  it('names the same programs as the SDK', () => {
    expect([TOKEN_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID]).toEqual([TOKEN_PROGRAM_ADDRESS, ASSOCIATED_TOKEN_PROGRAM_ADDRESS]);
  });

  it("is the SDK's for 300 random owners and mints, bump included", async () => {
    for (let i = 0; i < 300; i += 1) {
      const owner = base58.encode(randomBytes(32));
      const mint = i % 3 === 0 ? USDC : base58.encode(randomBytes(32));
      const [expected, bump] = await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
      expect(associatedTokenAddress(owner, mint)).toBe(expected);
      const seeds = [owner, TOKEN_PROGRAM_ID, mint].map((key) => base58.decode(key));
      expect(findProgramAddress(seeds, ASSOCIATED_TOKEN_PROGRAM_ID)).toEqual({ address: expected, bump });
    }
  });

  it("derives Token-2022 accounts (PYUSD's) with that program's id, as the SDK does, and not the classic program's", async () => {
    const PYUSD = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo';
    for (let i = 0; i < 50; i += 1) {
      const owner = base58.encode(randomBytes(32));
      const [expected] = await findAssociatedTokenPda({ owner: address(owner), mint: address(PYUSD), tokenProgram: address(TOKEN_2022_PROGRAM_ID) });
      expect(associatedTokenAddress(owner, PYUSD, TOKEN_2022_PROGRAM_ID)).toBe(expected);
      expect(associatedTokenAddress(owner, PYUSD)).not.toBe(expected);
    }
  });

  it('finds bumps below 255 as the SDK does (seeds whose first hashes land on the curve)', async () => {
    let below = 0;
    for (let i = 0; below < 5 && i < 200; i += 1) {
      const seed = randomBytes(32);
      const [expected, bump] = await getProgramDerivedAddress({ programAddress: address(ASSOCIATED_TOKEN_PROGRAM_ID), seeds: [seed] });
      expect(findProgramAddress([seed], ASSOCIATED_TOKEN_PROGRAM_ID)).toEqual({ address: expected, bump });
      if (bump < 255) below += 1;
    }
    expect(below).toBe(5);
  });

  it("is @solana/spl-token's getAssociatedTokenAddress output published with its inputs (devnet USDC)", () => {
    // github.com/256hax/solana-anchor-react-minimal-example, scripts/solana/spl-token-v0.3.x/getAssociatedTokenAddress.ts
    expect(associatedTokenAddress('5waJka9MrCgPFoLo3SQSjLDTGnkoDcwYYPnpk4YNJS6i', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')).toBe('HmBpVD6N1vuGvQpS8KrwWH6Tr8rSwXQBEDKn5VXW6yyw');
  });

  it('refuses what is not an address', () => {
    expect(() => associatedTokenAddress('not-an-address', USDC)).toThrow(new RangeError('not a Solana address: not-an-address'));
    expect(() => associatedTokenAddress(USDC, 'no-mint')).toThrow(new RangeError('not a Solana address: no-mint'));
  });
});
