import { Keypair, StrKey } from '@stellar/stellar-base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkStellarRefundAddress, isMemoId, isStellarAccount, muxedAddress, newMemoId, parseMuxed, stellarPayUri } from '#shared/payments/addresses/stellar';

/**
 * Stellar accounts and muxed addresses against SEP-23's own test vectors (ecosystem/sep-0023.md,
 * "Tests": the valid strkeys with their account and id, and the invalid ones every
 * implementation must refuse), SEP-7's `pay` links against the spec's parameter names and
 * examples (read back with the WHATWG URL parser, not our encoder), and the invoice ids.
 */

const ACCOUNT = 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ';
const ISSUER = 'GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';

/** SEP-23's valid muxed accounts: strkey, id, ed25519 account. */
const MUXED_VECTORS = [
  ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ', '0'],
  ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLK', '9223372036854775808'],
] as const;

/** SEP-23's invalid strkeys of the kinds read here (accounts and muxed accounts). */
const INVALID = [
  ['an ed25519 key of 5 bytes', 'GAAAAAAAACGC6'],
  ['a non-zero unused trailing bit', 'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUR'],
  ['a length congruent to 1 mod 8', 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZA'],
  ['36 bytes, not 35', 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUACUSI'],
  ['algorithm 7 (account)', 'G47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVP2I'],
  ['a length congruent to 6 mod 8', 'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLKA'],
  ['44 bytes, not 43', 'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAAV75I'],
  ['algorithm 7 (muxed)', 'M47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ'],
  ['padding', 'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUK==='],
  ['a wrong checksum', 'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUO'],
] as const;

describe('accounts and muxed addresses (SEP-23)', () => {
  it("takes SEP-23's valid account and refuses its invalid strkeys", () => {
    expect(isStellarAccount(ACCOUNT)).toBe(true);
    for (const [, text] of INVALID) {
      expect(isStellarAccount(text)).toBe(false);
      expect(parseMuxed(text)).toBeUndefined();
    }
    // A muxed address, a secret seed and a contract are not accounts.
    expect(isStellarAccount(MUXED_VECTORS[0][0])).toBe(false);
    expect(isStellarAccount(Keypair.random().secret())).toBe(false);
    expect(isStellarAccount('CA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUWDA')).toBe(false);
  });

  it.each(MUXED_VECTORS)('%s is the account and id SEP-23 gives, both ways', (strkey, id) => {
    expect(muxedAddress(ACCOUNT, id)).toBe(strkey);
    expect(parseMuxed(strkey)).toEqual({ account: ACCOUNT, id });
  });

  it('keeps every uint64 id, the largest and those above the signed maximum included', () => {
    for (const id of ['1', '18446744073709551615', '9223372036854775807']) expect(parseMuxed(muxedAddress(ACCOUNT, id))).toEqual({ account: ACCOUNT, id });
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (id) => parseMuxed(muxedAddress(ACCOUNT, id.toString()))?.id === id.toString()));
  });

  it.each([
    ['2^64', '18446744073709551616'],
    ['a negative id', '-1'],
    ['leading zeros', '007'],
    ['a decimal point', '1.0'],
    ['an empty id', ''],
  ])('refuses a muxed id with %s', (_name, id) => {
    expect(isMemoId(id)).toBe(false);
    expect(() => muxedAddress(ACCOUNT, id)).toThrow(RangeError);
  });

  it('refuses to mux what is not an account', () => {
    expect(() => muxedAddress(MUXED_VECTORS[0][0], '1')).toThrow(/not a Stellar account/);
    expect(() => muxedAddress('GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGA', '1')).toThrow(/not a Stellar account/);
  });
});

describe("the service's own StrKey codec, against @stellar/stellar-base's", () => {
  it('reads and writes accounts and muxed addresses as StrKey does, for random keys and ids', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (key, id) => {
        const account = StrKey.encodeEd25519PublicKey(Buffer.from(key));
        expect(isStellarAccount(account)).toBe(true);
        const bytes = Buffer.alloc(40);
        Buffer.from(key).copy(bytes);
        bytes.writeBigUInt64BE(id, 32);
        const muxed = StrKey.encodeMed25519PublicKey(bytes);
        expect(muxedAddress(account, id.toString())).toBe(muxed);
        expect(parseMuxed(muxed)).toEqual({ account, id: id.toString() });
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what StrKey refuses: a changed character, lower case, a seed, another length', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.nat(55), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'), (key, at, letter) => {
        const account = StrKey.encodeEd25519PublicKey(Buffer.from(key));
        const changed = account.slice(0, at) + letter + account.slice(at + 1);
        expect(isStellarAccount(changed)).toBe(StrKey.isValidEd25519PublicKey(changed));
      }),
      { numRuns: 300 },
    );
    const account = Keypair.random().publicKey();
    for (const bad of [account.toLowerCase(), account.slice(0, 55), `${account}A`, Keypair.random().secret()]) {
      expect([isStellarAccount(bad), StrKey.isValidEd25519PublicKey(bad)]).toEqual([false, false]);
    }
  });
});

describe('SEP-7 pay links', () => {
  it("writes SEP-7's example 2 (a payment in an asset) with its own parameter names and order", () => {
    expect(
      stellarPayUri({
        destination: 'GCALNQQBXAPZ2WIRSDDBMSTAKCUH5SG6U76YBFLQLIXJTF7FE5AX7AOO',
        amount: '120.123',
        assetCode: 'USD',
        assetIssuer: 'GCRCUE2C5TBNIPYHMEP7NK5RWTT2WBSZ75CMARH7GDOHDDCQH3XANFOB',
        memo: 'hasysda987fs',
        memoType: 'MEMO_TEXT',
      }),
    ).toBe(
      'web+stellar:pay?destination=GCALNQQBXAPZ2WIRSDDBMSTAKCUH5SG6U76YBFLQLIXJTF7FE5AX7AOO&amount=120.123&asset_code=USD&asset_issuer=GCRCUE2C5TBNIPYHMEP7NK5RWTT2WBSZ75CMARH7GDOHDDCQH3XANFOB&memo=hasysda987fs&memo_type=MEMO_TEXT',
    );
  });

  it('asks for USDC to the plain account with the id as a MEMO_ID, read back by a URL parser', () => {
    const uri = stellarPayUri({ destination: ACCOUNT, amount: '30.0000000', assetCode: 'USDC', assetIssuer: ISSUER, memo: '9223372036854775807' });
    const parsed = new URL(uri);
    expect(parsed.protocol).toBe('web+stellar:');
    expect(parsed.pathname).toBe('pay');
    expect(Object.fromEntries(parsed.searchParams)).toEqual({
      destination: ACCOUNT,
      amount: '30.0000000',
      asset_code: 'USDC',
      asset_issuer: ISSUER,
      memo: '9223372036854775807',
      memo_type: 'MEMO_ID',
    });
  });

  it('asks for a payment to the muxed address without a memo, and names a network other than the public one, percent-encoded', () => {
    const destination = muxedAddress(ACCOUNT, '42');
    const uri = stellarPayUri({ destination, amount: '1', assetCode: 'USDC', assetIssuer: ISSUER, networkPassphrase: 'Test SDF Network ; September 2015' });
    expect(uri).toBe(`web+stellar:pay?destination=${destination}&amount=1&asset_code=USDC&asset_issuer=${ISSUER}&network_passphrase=Test%20SDF%20Network%20%3B%20September%202015`);
    expect(new URL(uri).searchParams.get('network_passphrase')).toBe('Test SDF Network ; September 2015');
  });

  it.each([
    ['a destination that is no account', { destination: 'GBAD', amount: '1' }, /not a Stellar account or muxed address/],
    ['a memo beside a muxed destination', { destination: muxedAddress(ACCOUNT, '42'), amount: '1', memo: '42' }, /carries its id/],
    ['8 decimals', { amount: '1.00000001' }, /at most 7 decimals/],
    ['a zero amount', { amount: '0.0000000' }, /positive/],
    ['an exponent', { amount: '1e3' }, /plain positive decimal/],
    ['more than 2^63 - 1 stroops', { amount: '922337203685.4775808' }, /plain positive decimal/],
    ['a MEMO_ID of 2^64', { memo: '18446744073709551616' }, /MEMO_ID is a decimal uint64/],
    ['a MEMO_TEXT of 29 bytes', { memo: 'x'.repeat(29), memoType: 'MEMO_TEXT' as const }, /28 bytes/],
    ['an asset code of 13 characters', { assetCode: 'USDCUSDCUSDCU' }, /not an asset code/],
    ['an issuer that is no account', { assetIssuer: 'USDC' }, /not an issuer account/],
  ])('refuses %s', (_name, change, message) => {
    expect(() => stellarPayUri({ destination: ACCOUNT, amount: '1', assetCode: 'USDC', assetIssuer: ISSUER, ...change })).toThrow(message);
  });
});

describe('newMemoId', () => {
  it('is a decimal in [1, 2^63 - 1]: the top bit dropped, zero drawn again', () => {
    expect(newMemoId(() => new Uint8Array(8).fill(0xff))).toBe('9223372036854775807');
    const draws = [new Uint8Array(8), Uint8Array.from([0x80, 0, 0, 0, 0, 0, 0, 0]), Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 7])];
    expect(newMemoId(() => draws.shift()!)).toBe('7');
  });

  it('is a fresh MEMO_ID each time', () => {
    const ids = Array.from({ length: 50 }, () => newMemoId());
    for (const id of ids) {
      expect(isMemoId(id)).toBe(true);
      expect(BigInt(id)).toBeGreaterThan(0n);
      expect(BigInt(id)).toBeLessThan(1n << 63n);
    }
    expect(new Set(ids).size).toBe(50);
  });
});

describe('checkStellarRefundAddress', () => {
  it('takes an account, with a MEMO_ID when the exchange needs one', () => {
    expect(checkStellarRefundAddress(ACCOUNT)).toEqual({ ok: true, address: ACCOUNT });
    expect(checkStellarRefundAddress(` ${ACCOUNT} `, { memo: ' 123456 ' })).toEqual({ ok: true, address: ACCOUNT, memo: '123456' });
  });

  it('takes a muxed address as its account and id: the refund is paid to the account with the id as its memo', () => {
    const [strkey, id] = MUXED_VECTORS[1];
    expect(checkStellarRefundAddress(strkey)).toEqual({ ok: true, address: ACCOUNT, memo: id });
    expect(checkStellarRefundAddress(strkey, { memo: id })).toEqual({ ok: true, address: ACCOUNT, memo: id });
  });

  it.each([
    ['a text memo', ACCOUNT, { memo: 'invoice 12' }, /MEMO_ID: digits only/],
    ['a memo above 2^64 - 1', ACCOUNT, { memo: '18446744073709551616' }, /MEMO_ID/],
    ['another memo beside a muxed address', MUXED_VECTORS[0][0], { memo: '5' }, /already carries its id/],
    ['the USDC issuer', ISSUER, { issuer: ISSUER }, /USDC issuer/],
    ['the USDC issuer, muxed', muxedAddress(ISSUER, '1'), { issuer: ISSUER }, /USDC issuer/],
    ['a typo', 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGA', {}, /typo/],
    ['a contract', 'CA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUWDA', {}, /contract address/],
    ['an Ethereum address', '0x52908400098527886E0F7030069857D2E4169EE7', {}, /not a Stellar account/],
  ])('refuses %s', (_name, address, options, reason) => {
    const check = checkStellarRefundAddress(address, options);
    expect(check.ok).toBe(false);
    expect(check.ok === false && check.reason).toMatch(reason);
  });

  it('refuses a secret key without repeating it', () => {
    const secret = Keypair.random().secret();
    const check = checkStellarRefundAddress(secret);
    expect(check).toEqual({ ok: false, reason: expect.stringMatching(/secret key/) });
    expect(JSON.stringify(check)).not.toContain(secret);
  });
});
