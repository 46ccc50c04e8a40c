import { base58 } from '@scure/base';
import { isAddress } from '@solana/kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSolanaAddress, newSolanaReference } from '#shared/payments/addresses/solana';

/**
 * Solana addresses against @solana/kit's isAddress (the SDK wallets use): exactly the base58
 * strings of 32 bytes, from the shortest (32 zero bytes, 32 characters) to the longest (44).
 */
const bytesOf = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });

describe('isSolanaAddress', () => {
  it('accepts the base58 of any 32 bytes, as @solana/kit does, the shortest and the longest included', () => {
    for (const text of [base58.encode(new Uint8Array(32)), base58.encode(new Uint8Array(32).fill(255)), 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v']) {
      expect(isAddress(text)).toBe(true);
      expect(isSolanaAddress(text)).toBe(true);
    }
    expect(base58.encode(new Uint8Array(32).fill(255))).toHaveLength(44);
    fc.assert(fc.property(bytesOf(32), (bytes) => isSolanaAddress(base58.encode(bytes))));
  });

  it('refuses the base58 of 31 or 33 bytes that is as long as an address, as @solana/kit does', () => {
    fc.assert(
      fc.property(fc.oneof(bytesOf(31), bytesOf(33)), (bytes) => {
        const text = base58.encode(bytes);
        fc.pre(text.length >= 32 && text.length <= 44);
        expect(isAddress(text)).toBe(false);
        expect(isSolanaAddress(text)).toBe(false);
      }),
    );
  });

  it.each([
    ['a character base58 leaves out', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10'],
    ['a space', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1 '],
    ['a character too many', `1${'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'}`],
    ['an empty string', ''],
  ])('refuses %s', (_name, text) => {
    expect(isAddress(text)).toBe(false);
    expect(isSolanaAddress(text)).toBe(false);
  });
});

describe('newSolanaReference', () => {
  it('is a fresh address each time (Solana Pay looks a payment up by it)', () => {
    const references = Array.from({ length: 20 }, () => newSolanaReference());
    for (const reference of references) expect(isAddress(reference)).toBe(true);
    expect(new Set(references).size).toBe(20);
  });
});
