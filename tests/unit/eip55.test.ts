import { getAddress, isAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { isChecksumAddress } from '#shared/payments/addresses/eip55';

/** EIP-55 checksums against viem's (strict isAddress, getAddress). */
const USDT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';

describe('isChecksumAddress', () => {
  it("accepts exactly viem's checksum form", () => {
    expect(getAddress(USDT.toLowerCase())).toBe(USDT);
    expect(isChecksumAddress(USDT)).toBe(true);
    expect(isChecksumAddress(USDT.toLowerCase())).toBe(false);
  });

  it.each([
    ['a leading character', ` ${USDT}`],
    ['a leading hex digit', `0${USDT}`],
    ['a trailing hex digit', `${USDT}0`],
    ['a trailing character', `${USDT} `],
  ])('refuses the checksum form with %s, without throwing, as viem does', (_name, text) => {
    expect(isAddress(text, { strict: true })).toBe(false);
    expect(isChecksumAddress(text)).toBe(false);
  });
});
