import fc from 'fast-check';
import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { canonicalTonAddress, isKnownTonContract, knownTonContract, parseTonAddress, tonRawAddress, tonTransferUri, usdtTonTransferUri } from '#shared/payments/addresses/ton';

/**
 * TON's address forms against an implementation written here from the format's description
 * (tag byte, workchain byte, 32-byte hash, CRC16-XMODEM, base64 or base64url: ton.org's
 * "Smart contract addresses"), not @ton/core's, and the published pair of Tether's USDT master
 * (its user-friendly form as Tether announced it, its raw form as explorers show it).
 */

const USDT = {
  friendly: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs',
  raw: '0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe',
};

/** CRC16-XMODEM (poly 0x1021, init 0), big-endian. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The user-friendly form: tag (0x11 bounceable, 0x51 not, | 0x80 testnet), workchain byte, hash, CRC16. */
function friendly(hash: Uint8Array, { bounceable = false, testOnly = false, workchain = 0, urlSafe = true } = {}): string {
  const body = Buffer.alloc(34);
  body[0] = (bounceable ? 0x11 : 0x51) | (testOnly ? 0x80 : 0);
  body[1] = workchain & 0xff;
  Buffer.from(hash).copy(body, 2);
  const crc = crc16(body);
  const base64 = Buffer.concat([body, Buffer.from([crc >> 8, crc & 0xff])]).toString('base64');
  return urlSafe ? base64.replace(/\+/g, '-').replace(/\//g, '_') : base64;
}

const usdtHash = Buffer.from(USDT.raw.slice(2), 'hex');
const USDT_CANONICAL = friendly(usdtHash);

describe('TON addresses', () => {
  it("reads Tether's USDT master in every form as one account, and writes the service's form (UQ, url-safe)", () => {
    // The published pair agrees with the encoder written here: a check of the test's own codec.
    expect(friendly(usdtHash, { bounceable: true })).toBe(USDT.friendly);
    expect(USDT_CANONICAL).toMatch(/^UQ/);
    for (const form of [
      USDT.friendly,
      USDT.raw,
      USDT.raw.toUpperCase(),
      friendly(usdtHash, { bounceable: true, urlSafe: false }),
      friendly(usdtHash, { urlSafe: false }),
      USDT_CANONICAL,
      `  ${USDT.friendly}\n`,
    ]) {
      expect(canonicalTonAddress(form), form).toBe(USDT_CANONICAL);
    }
    expect(tonRawAddress(USDT.friendly)).toBe(USDT.raw);
    expect(parseTonAddress(USDT.friendly)).toEqual({ workchain: 0, hash: usdtHash, bounceable: true, testOnly: false });
    expect(parseTonAddress(USDT.raw)).toEqual({ workchain: 0, hash: usdtHash });
  });

  it('agrees with the encoder written here on any account, in any form', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.boolean(), fc.boolean(), (hash, bounceable, urlSafe) => {
        const canonical = friendly(hash);
        expect(canonicalTonAddress(friendly(hash, { bounceable, urlSafe }))).toBe(canonical);
        expect(canonicalTonAddress(`0:${Buffer.from(hash).toString('hex')}`)).toBe(canonical);
        expect(tonRawAddress(canonical)).toBe(`0:${Buffer.from(hash).toString('hex')}`);
      }),
      { numRuns: 100 },
    );
  });

  it.each([
    ['a testnet-only non-bounceable form (0Q)', friendly(usdtHash, { testOnly: true })],
    ['a testnet-only bounceable form (kQ)', friendly(usdtHash, { bounceable: true, testOnly: true })],
    ['the masterchain, user-friendly', friendly(usdtHash, { workchain: -1 })],
    ['the masterchain, raw', `-1:${USDT.raw.slice(2)}`],
    ['another workchain, raw', `1:${USDT.raw.slice(2)}`],
    ['another workchain byte', friendly(usdtHash, { workchain: 7 })],
    ['a wrong checksum', `${USDT.friendly.slice(0, -1)}t`],
    ['a changed character', 'EQCxE6mUtQJKFnGfbROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs'],
    ['one character short', USDT.friendly.slice(1)],
    ['one character long', `${USDT.friendly}A`],
    [
      'an unknown tag',
      (() => {
        const body = Buffer.alloc(34);
        body[0] = 0x22;
        usdtHash.copy(body, 2);
        const crc = crc16(body);
        return Buffer.concat([body, Buffer.from([crc >> 8, crc & 0xff])]).toString('base64url');
      })(),
    ],
    ['raw hex one digit short', USDT.raw.slice(0, -1)],
    ['raw hex with a non-hex digit', `${USDT.raw.slice(0, -1)}g`],
    ['raw without its workchain', USDT.raw.slice(2)],
    ['raw with 0x', `0:0x${USDT.raw.slice(4)}`],
    ['an Ethereum address', '0xdAC17F958D2ee523a2206206994597C13D831ec7'],
    ['nothing', ''],
    ['spaces', '   '],
  ])('refuses %s', (_name, input) => {
    expect(canonicalTonAddress(input)).toBeUndefined();
  });

  it('never throws on what is not a string', () => {
    expect(canonicalTonAddress(undefined as unknown as string)).toBeUndefined();
    expect(parseTonAddress(42 as unknown as string)).toBeUndefined();
    expect(() => tonRawAddress('garbage')).toThrow(RangeError);
  });

  it("knows contracts that are no one's wallet, in any form, and nothing else", () => {
    expect(isKnownTonContract(USDT.friendly)).toBe(true);
    expect(isKnownTonContract(USDT.raw)).toBe(true);
    expect(knownTonContract(USDT_CANONICAL)).toBe('the USDT jetton master');
    expect(isKnownTonContract(`0:${'0'.repeat(64)}`)).toBe(true);
    // Notcoin's master (published with its vanity ending) and the bridge's jUSDT master.
    expect(isKnownTonContract('EQAvlWFDxGF2lXm67y4yzC17wYKD9A0guwPkMs1gOsM__NOT')).toBe(true);
    expect(isKnownTonContract('EQBynBO23ywHy_CgarY9NK9FTz0yDsG82PtcbSTQgGoXwiuA')).toBe(true);
    expect(isKnownTonContract('EQCvxJy4eG8hyHBFsZ7eePxrRsUQSFE_jpptRAYBmcG_DOGS')).toBe(true);
    expect(isKnownTonContract(friendly(Buffer.alloc(32, 7)))).toBe(false);
    expect(isKnownTonContract('not an address')).toBe(false);
    // A testnet form of the master is refused as an address, not taken as the master.
    expect(isKnownTonContract(friendly(usdtHash, { testOnly: true }))).toBe(false);
  });
});

describe("the service's own TON address codec, against @ton/core's Address", () => {
  it('reads every form @ton/core writes, and writes the forms @ton/core writes, for random accounts', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.boolean(), fc.boolean(), fc.boolean(), (hash, bounceable, testOnly, urlSafe) => {
        const address = new Address(0, Buffer.from(hash));
        const written = address.toString({ bounceable, testOnly, urlSafe });
        expect(parseTonAddress(written)).toEqual({ workchain: 0, hash: Buffer.from(hash), bounceable, testOnly });
        expect(canonicalTonAddress(written)).toBe(testOnly ? undefined : address.toString({ bounceable: false, urlSafe: true, testOnly: false }));
        expect(Address.parse(canonicalTonAddress(address.toRawString())!).equals(address)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what @ton/core refuses: any changed character of a friendly address', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.nat(47), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), (hash, at, letter) => {
        const written = new Address(0, Buffer.from(hash)).toString({ bounceable: false, urlSafe: true });
        const changed = written.slice(0, at) + letter + written.slice(at + 1);
        let theirs: boolean;
        try {
          Address.parseFriendly(changed);
          theirs = true;
        } catch {
          theirs = false;
        }
        expect(parseTonAddress(changed) !== undefined).toBe(theirs);
      }),
      { numRuns: 300 },
    );
  });
});

describe('TON transfer links', () => {
  const wallet = friendly(Buffer.alloc(32, 0xab));

  it('writes a TON transfer with the amount in nanotons and the comment percent-encoded, to the canonical address', () => {
    const bounceable = friendly(Buffer.alloc(32, 0xab), { bounceable: true });
    expect(tonTransferUri(bounceable, 1_500_000_000n, 'inv 7f3/é&x=1')).toBe(`ton://transfer/${wallet}?amount=1500000000&text=inv%207f3%2F%C3%A9%26x%3D1`);
    expect(tonTransferUri(wallet, 0n, 'a')).toBe(`ton://transfer/${wallet}?amount=0&text=a`);
  });

  it('writes a USDT transfer with the jetton master, the amount in jetton units and the comment', () => {
    expect(usdtTonTransferUri(wallet, 12_340_000n, 'order 42', USDT.raw)).toBe(`ton://transfer/${wallet}?jetton=${USDT.friendly}&amount=12340000&text=order%2042`);
  });

  it('refuses what a wallet would send to the wrong place or the wrong amount', () => {
    expect(() => tonTransferUri(friendly(Buffer.alloc(32, 1), { testOnly: true }), 1n, 'a')).toThrow(RangeError);
    expect(() => tonTransferUri('garbage', 1n, 'a')).toThrow(RangeError);
    expect(() => tonTransferUri(wallet, -1n, 'a')).toThrow(RangeError);
    expect(() => usdtTonTransferUri(wallet, -5n, 'a', USDT.friendly)).toThrow(RangeError);
    expect(() => usdtTonTransferUri(wallet, 5n, 'a', 'garbage')).toThrow(RangeError);
    expect(() => usdtTonTransferUri(wallet, 5n, 'a', friendly(usdtHash, { bounceable: true, testOnly: true }))).toThrow(RangeError);
  });
});
