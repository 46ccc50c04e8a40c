import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import fc from 'fast-check';
import { TronWeb } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { paymentUri } from '#shared/payments/addresses/index';
import { isTronAddress, tronAccountBytes, tronAddressFromHex, tronAddressOfBytes, tronHex } from '#shared/payments/addresses/tron';

/**
 * TRON's address codec against tronweb (TRON's official SDK, its own base58check): the hex
 * forms TRON's APIs write an account in, and what is not a TRON address although it is valid
 * base58check of 21 bytes starting with "T".
 */
const base58check = createBase58check(sha256);
const USDT = { base58: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', hex: '41a614f803b6fd780986a42c78ec9c7f77e6ded13c' };
const account = fc.uint8Array({ minLength: 20, maxLength: 20 });

describe('TRON addresses and their hex forms', () => {
  it("reads Tether's USDT contract in the wallet API's 41-hex and the event logs' 0x-hex, any case", () => {
    expect(tronAddressFromHex(USDT.hex)).toBe(USDT.base58);
    expect(tronAddressFromHex(`0x${USDT.hex.slice(2)}`)).toBe(USDT.base58);
    expect(tronAddressFromHex(`0x${USDT.hex.slice(2).toUpperCase()}`)).toBe(USDT.base58);
    expect(tronHex(USDT.base58)).toBe(USDT.hex);
  });

  it('agrees with tronweb both ways on any account', () => {
    fc.assert(
      fc.property(account, (bytes) => {
        const hex = `41${bytesToHex(bytes)}`;
        const address = tronAddressOfBytes(bytes);
        expect(address).toBe(TronWeb.address.fromHex(hex));
        expect(tronAddressFromHex(hex)).toBe(address);
        expect(tronHex(address)).toBe(TronWeb.address.toHex(address).toLowerCase());
        expect(tronAccountBytes(address)).toEqual(bytes);
        expect(isTronAddress(address)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it.each([
    ['one hex digit short', USDT.hex.slice(0, -1)],
    ['one hex digit long', `${USDT.hex}0`],
    ['a leading character', ` ${USDT.hex}`],
    ['a trailing character', `${USDT.hex} `],
    ['another prefix', `42${USDT.hex.slice(2)}`],
    ['no prefix', USDT.hex.slice(2)],
    ['a non-hex digit', `41${'g'.repeat(40)}`],
  ])('reads no address from hex with %s', (_name, hex) => {
    expect(tronAddressFromHex(hex)).toBeUndefined();
  });

  it('refuses to write an account that is not 20 bytes', () => {
    for (const length of [0, 19, 21, 32]) {
      expect(() => tronAddressOfBytes(new Uint8Array(length))).toThrow(new RangeError('a TRON account is 20 bytes'));
    }
  });

  it('refuses the hex form of what is not a TRON address, naming it', () => {
    expect(() => tronHex('0xdAC17F958D2ee523a2206206994597C13D831ec7')).toThrow(new RangeError('not a TRON address: 0xdAC17F958D2ee523a2206206994597C13D831ec7'));
  });

  it('refuses valid base58check that starts with "T" but does not carry the prefix byte 0x41, as tronweb does', () => {
    fc.assert(
      fc.property(account, (bytes) => {
        const other = base58check.encode(Uint8Array.from([0x42, ...bytes]));
        expect(other).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
        expect(TronWeb.isAddress(other)).toBe(false);
        expect(isTronAddress(other)).toBe(false);
        expect(tronAccountBytes(other)).toBeUndefined();
      }),
      { numRuns: 20 },
    );
  });
});

describe('TRX payment URIs', () => {
  it('are tron:<address>?amount=<amount>, with no label, message or chain id', () => {
    expect(paymentUri('TRX', USDT.base58, '12.5')).toBe(`tron:${USDT.base58}?amount=12.5`);
    expect(() => paymentUri('TRX', USDT.base58, '1', { label: 'Shop' })).toThrow(new RangeError('TRON URIs have no label or message'));
    expect(() => paymentUri('TRX', USDT.base58, '1', { message: 'Order 1' })).toThrow(new RangeError('TRON URIs have no label or message'));
    expect(() => paymentUri('TRX', USDT.base58, '1', { chainId: 1 })).toThrow(RangeError);
  });
});
