import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { HDKey } from '@scure/bip32';
import { NETWORK, TEST_NETWORK, p2wpkh } from '@scure/btc-signer';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import { deriveAddress, deriveChainAddress, InvalidExtendedKeyError, paymentUri, validateAddress, type AddressCurrency, type InvalidExtendedKeyReason } from '#shared/payments/addresses/index';
import { decodeCashAddr, encodeCashAddr } from '#shared/payments/addresses/cashaddr';

const base58check = createBase58check(sha256);
const CURRENCIES: readonly AddressCurrency[] = ['BTC', 'LTC', 'BCH', 'ETH'];

// Private keys exist only here, to build the public fixtures the way a wallet would.
const BIP32_TV1_SEED = hexToBytes('000102030405060708090a0b0c0d0e0f');
const BIP84_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** BIP39 seed (no passphrase); @scure/bip39 is not a dependency, the KDF is two lines. */
function mnemonicToSeed(mnemonic: string): Uint8Array {
  return pbkdf2(sha512, mnemonic.normalize('NFKD'), 'mnemonic', { c: 2048, dkLen: 64 });
}

/** The same serialized key under other version bytes (xpub -> zpub, Ltub, ...). */
function withVersion(extendedKey: string, version: number): string {
  const bytes = base58check.decode(extendedKey).slice();
  new DataView(bytes.buffer).setUint32(0, version, false);
  return base58check.encode(bytes);
}

function refusal(fn: () => unknown): InvalidExtendedKeyError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidExtendedKeyError);
    return error as InvalidExtendedKeyError;
  }
  throw new Error('expected an InvalidExtendedKeyError, nothing was thrown');
}

function expectRefused(fn: () => unknown, reason: InvalidExtendedKeyReason): void {
  expect(refusal(fn).reason).toBe(reason);
}

const tv1Account = HDKey.fromMasterSeed(BIP32_TV1_SEED).derive("m/84'/0'/0'");
const tv1Xpub = tv1Account.publicExtendedKey;
const tv1Xprv = tv1Account.privateExtendedKey;
const V = {
  xpub: 0x0488b21e,
  ypub: 0x049d7cb2,
  zpub: 0x04b24746,
  tpub: 0x043587cf,
  vpub: 0x045f1cf6,
  Ltub: 0x019da462,
  Mtub: 0x01b26ef6,
  ttub: 0x0436f6e1,
  xprv: 0x0488ade4,
  zprv: 0x04b2430c,
  tprv: 0x04358394,
  vprv: 0x045f18bc,
  Ltpv: 0x019d9cfe,
  Mtpv: 0x01b26792,
  ttpv: 0x0436ef7d,
} as const;

describe('deriveAddress', () => {
  it.each([
    ['BTC', 'bc1q3utnvcdn0ekpzp9pstymxvhqlr8y5chwyt5fkp'],
    ['LTC', 'ltc1q3utnvcdn0ekpzp9pstymxvhqlr8y5chwqhwdw3'],
    ['BCH', 'bitcoincash:qz83wdnpkdlxcygy5xpvnvejuruvujnzacjz42q5up'],
    ['ETH', '0x0Aaeb2f8A7b0843D0C70e70404C62C4aFC736711'],
  ] as const)('BIP32 vector-1 seed, m/84h/0h/0h xpub, index 7: %s', (currency, expected) => {
    expect(deriveAddress(currency, tv1Xpub, 7)).toBe(expected);
  });

  it('matches the published BIP84 vectors (account zpub, receive 0 and 1, change 0)', () => {
    const zpub = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
    const account = HDKey.fromMasterSeed(mnemonicToSeed(BIP84_MNEMONIC)).derive("m/84'/0'/0'");
    expect(withVersion(account.publicExtendedKey, V.zpub)).toBe(zpub);
    expect(deriveAddress('BTC', zpub, 0)).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(deriveAddress('BTC', zpub, 1)).toBe('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
    expect(deriveChainAddress('BTC', zpub, 1, 0)).toBe('bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el');
  });

  it('gives the well-known first ETH account of the BIP39 "abandon ... about" mnemonic', () => {
    const account = HDKey.fromMasterSeed(mnemonicToSeed(BIP84_MNEMONIC)).derive("m/44'/60'/0'");
    expect(deriveAddress('ETH', account.publicExtendedKey, 0)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it('agrees with @scure/btc-signer P2WPKH on mainnet and testnet', () => {
    const tpub = withVersion(tv1Xpub, V.tpub);
    for (let i = 0; i < 25; i++) {
      const child = tv1Account.deriveChild(0).deriveChild(i).publicKey!;
      expect(deriveAddress('BTC', tv1Xpub, i)).toBe(p2wpkh(child, NETWORK).address);
      expect(deriveAddress('BTC', tpub, i, { network: 'testnet' })).toBe(p2wpkh(child, TEST_NETWORK).address);
    }
  });

  it('gives 1,000 distinct, valid addresses per currency', () => {
    for (const currency of CURRENCIES) {
      const addresses = Array.from({ length: 1000 }, (_, i) => deriveAddress(currency, tv1Xpub, i));
      expect(new Set(addresses).size).toBe(1000);
      expect(addresses.filter((a) => !validateAddress(currency, a))).toEqual([]);
    }
  });

  it('reads the same key under every prefix its currency accepts', () => {
    const btc = deriveAddress('BTC', tv1Xpub, 3);
    expect(deriveAddress('BTC', withVersion(tv1Xpub, V.zpub), 3)).toBe(btc);
    const ltc = deriveAddress('LTC', tv1Xpub, 3);
    for (const version of [V.Ltub, V.Mtub, V.zpub]) {
      expect(deriveAddress('LTC', withVersion(tv1Xpub, version), 3)).toBe(ltc);
    }
    const testnet = { network: 'testnet' } as const;
    const tbtc = deriveAddress('BTC', withVersion(tv1Xpub, V.vpub), 3, testnet);
    expect(tbtc).toBe(deriveAddress('BTC', withVersion(tv1Xpub, V.tpub), 3, testnet));
    expect(tbtc).toMatch(/^tb1q/);
    expect(validateAddress('BTC', tbtc, testnet)).toBe(true);
    const tltc = deriveAddress('LTC', withVersion(tv1Xpub, V.ttub), 3, testnet);
    expect(tltc).toMatch(/^tltc1q/);
    expect(validateAddress('LTC', tltc, testnet)).toBe(true);
    const tbch = deriveAddress('BCH', withVersion(tv1Xpub, V.tpub), 3, testnet);
    expect(tbch).toMatch(/^bchtest:q/);
    expect(validateAddress('BCH', tbch, testnet)).toBe(true);
    expect(validateAddress('BCH', tbch)).toBe(false);
    // One key, so one hash160: only the encodings differ between coins and networks.
    expect(tbtc.slice(4, -6)).toBe(btc.slice(4, -6));
  });

  it('refuses prefixes that belong to another currency, network or script type', () => {
    const testnet = { network: 'testnet' } as const;
    expectRefused(() => deriveAddress('BTC', withVersion(tv1Xpub, V.Ltub), 0), 'wrong-version');
    expectRefused(() => deriveAddress('BTC', withVersion(tv1Xpub, V.ypub), 0), 'wrong-version');
    expectRefused(() => deriveAddress('BTC', withVersion(tv1Xpub, V.tpub), 0), 'wrong-version');
    expectRefused(() => deriveAddress('BTC', tv1Xpub, 0, testnet), 'wrong-version');
    expectRefused(() => deriveAddress('BCH', withVersion(tv1Xpub, V.zpub), 0), 'wrong-version');
    expectRefused(() => deriveAddress('ETH', withVersion(tv1Xpub, V.zpub), 0), 'wrong-version');
    expectRefused(() => deriveAddress('LTC', withVersion(tv1Xpub, V.ttub), 0), 'wrong-version');
  });

  it('refuses every private key loudly, without echoing it', () => {
    const error = refusal(() => deriveAddress('BTC', tv1Xprv, 0));
    expect(error.reason).toBe('private-key');
    expect(error.message).toMatch(/PRIVATE/);
    expect(error.message).not.toContain(tv1Xprv);
    for (const currency of CURRENCIES) {
      expectRefused(() => deriveAddress(currency, tv1Xprv, 0), 'private-key');
    }
    for (const version of [V.zprv, V.Ltpv, V.Mtpv]) {
      expectRefused(() => deriveAddress('LTC', withVersion(tv1Xprv, version), 0), 'private-key');
    }
    for (const version of [V.tprv, V.vprv, V.ttpv]) {
      const key = withVersion(tv1Xprv, version);
      expectRefused(() => deriveAddress('BTC', key, 0, { network: 'testnet' }), 'private-key');
    }
    // Private key material dressed up with public version bytes is still private.
    expectRefused(() => deriveAddress('BTC', withVersion(tv1Xprv, V.xpub), 0), 'private-key');
    // And a private version prefix is refused even when the payload is a public key.
    expectRefused(() => deriveAddress('BTC', withVersion(tv1Xpub, V.xprv), 0), 'private-key');
  });

  it('refuses garbage', () => {
    const bytes = base58check.decode(tv1Xpub);
    const flipped = tv1Xpub.slice(0, 20) + (tv1Xpub[20] === 'a' ? 'b' : 'a') + tv1Xpub.slice(21);
    const offCurve = bytes.slice();
    offCurve.set([0x02, ...new Uint8Array(32).fill(0xff)], 45);
    for (const bad of ['', 'not an extended key', flipped, tv1Xpub.slice(0, -1), ` ${tv1Xpub}`, base58check.encode(bytes.slice(0, 77)), base58check.encode(offCurve), 42 as unknown as string]) {
      expectRefused(() => deriveAddress('BTC', bad, 0), 'malformed');
    }
  });

  it('refuses indexes outside 0..2^31-1', () => {
    for (const index of [-1, 2 ** 31, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expectRefused(() => deriveAddress('BTC', tv1Xpub, index), 'index-out-of-range');
    }
    expect(validateAddress('BTC', deriveAddress('BTC', tv1Xpub, 2 ** 31 - 1))).toBe(true);
  });
});

describe('BIP32 serialization', () => {
  it('round-trips the vector-1 m/0H xpub, also under other version bytes', () => {
    const xpub = 'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw';
    expect(HDKey.fromMasterSeed(BIP32_TV1_SEED).derive("m/0'").publicExtendedKey).toBe(xpub);
    expect(HDKey.fromExtendedKey(xpub).publicExtendedKey).toBe(xpub);
    const prefixes = ['zpub', 'Ltub', 'Mtub', 'vpub', 'ttub'] as const;
    for (const [prefix, pub] of prefixes.map((p) => [p, V[p]] as const)) {
      const key = withVersion(xpub, pub);
      expect(key.startsWith(prefix)).toBe(true);
      expect(HDKey.fromExtendedKey(key, { public: pub, private: 0 }).publicExtendedKey).toBe(key);
    }
  });
});

describe('validateAddress', () => {
  const EIP55_VECTORS = [
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];

  it('accepts the EIP-55 examples and refuses any one-letter case flip', () => {
    for (const address of EIP55_VECTORS) {
      expect(validateAddress('ETH', address)).toBe(true);
      for (let i = 2; i < address.length; i++) {
        const ch = address[i]!;
        if (!/[a-f]/i.test(ch)) continue;
        const flip = ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase();
        expect(validateAddress('ETH', address.slice(0, i) + flip + address.slice(i + 1))).toBe(false);
      }
    }
    expect(validateAddress('ETH', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe(false);
    expect(validateAddress('ETH', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe')).toBe(false);
    expect(validateAddress('ETH', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(false);
  });

  it('matches the CashAddr spec vectors and refuses every one-character corruption', () => {
    const legacy = base58check.decode('1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu');
    expect(bytesToHex(legacy)).toBe('0076a04053bda0a88bda5177b86a15c3b29f559873');
    const address = 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a';
    expect(encodeCashAddr('bitcoincash', 0, legacy.slice(1))).toBe(address);
    expect(validateAddress('BCH', address)).toBe(true);
    expect(validateAddress('BCH', address.toUpperCase())).toBe(true);
    for (let i = 'bitcoincash:'.length; i < address.length; i++) {
      const swapped = address[i] === 'q' ? 'p' : 'q';
      expect(validateAddress('BCH', address.slice(0, i) + swapped + address.slice(i + 1))).toBe(false);
    }
    expect(validateAddress('BCH', address.replace('qpm2', 'Qpm2'))).toBe(false);
    expect(validateAddress('BCH', address.slice('bitcoincash:'.length))).toBe(false);
    expect(validateAddress('BCH', address, { network: 'testnet' })).toBe(false);

    // Other prefixes, types and sizes, from the spec's table: the checksum covers them all.
    const hash = 'f5bf48b397dae70be82b3cca4793f8eb2b6cdac9';
    for (const [prefix, version, hex, expected] of [
      ['bitcoincash', 0x00, hash, 'bitcoincash:qr6m7j9njldwwzlg9v7v53unlr4jkmx6eylep8ekg2'],
      ['bchtest', 0x08, hash, 'bchtest:pr6m7j9njldwwzlg9v7v53unlr4jkmx6eyvwc0uz5t'],
      ['pref', 0x08, hash, 'pref:pr6m7j9njldwwzlg9v7v53unlr4jkmx6ey65nvtks5'],
      ['prefix', 0x78, hash, 'prefix:0r6m7j9njldwwzlg9v7v53unlr4jkmx6ey3qnjwsrf'],
      ['bitcoincash', 0x01, '7adbf6c17084bc86c1706827b41a56f5ca32865925e946ea', 'bitcoincash:q9adhakpwzztepkpwp5z0dq62m6u5v5xtyj7j3h2ws4mr9g0'],
    ] as const) {
      expect(encodeCashAddr(prefix, version, hexToBytes(hex))).toBe(expected);
      const decoded = decodeCashAddr(expected);
      expect(decoded && { ...decoded, hash: bytesToHex(decoded.hash) }).toEqual({ prefix, version, hash: hex });
    }
    // Valid CashAddr, but P2SH: not an address this service hands out.
    expect(validateAddress('BCH', 'bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq')).toBe(false);
  });

  it('accepts only witness-v0 20-byte bech32 with the right hrp for BTC and LTC', () => {
    expect(validateAddress('BTC', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe(true);
    expect(validateAddress('BTC', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toBe(true);
    expect(validateAddress('BTC', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5')).toBe(false);
    expect(validateAddress('BTC', 'bc1qw508d6qejxtdg4y5r3zarvary0C5xw7kv8f3t4')).toBe(false);
    expect(validateAddress('BTC', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')).toBe(false);
    expect(validateAddress('BTC', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', { network: 'testnet' })).toBe(true);
    // P2WSH (32-byte program) and taproot (v1, bech32m) are valid Bitcoin, not ours.
    const p2wsh = 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7';
    expect(validateAddress('BTC', p2wsh, { network: 'testnet' })).toBe(false);
    expect(validateAddress('BTC', 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr')).toBe(false);
    const program = bech32.toWords(hexToBytes('751e76e8199196d454941c45d1b3a323f1433bd6'));
    expect(validateAddress('BTC', bech32.encode('bc', [0, ...program]))).toBe(true);
    expect(validateAddress('BTC', bech32.encode('bc', [1, ...program]))).toBe(false);
    expect(validateAddress('BTC', bech32m.encode('bc', [0, ...program]))).toBe(false);
    expect(validateAddress('LTC', 'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9')).toBe(true);
    expect(validateAddress('LTC', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe(false);
    expect(validateAddress('BTC', 'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9')).toBe(false);
    expect(validateAddress('BTC', '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu')).toBe(false);
  });

  it('never throws on junk', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CURRENCIES), fc.string(), (currency, junk) => {
        expect(validateAddress(currency, junk)).toBe(false);
      }),
    );
    expect(validateAddress('BTC', null as unknown as string)).toBe(false);
  });
});

describe('paymentUri', () => {
  const btc = deriveAddress('BTC', tv1Xpub, 0);
  const ltc = deriveAddress('LTC', tv1Xpub, 0);
  const bch = deriveAddress('BCH', tv1Xpub, 0);
  const eth = deriveAddress('ETH', tv1Xpub, 0);

  it('builds BIP21 URIs with the amount string unchanged', () => {
    expect(paymentUri('BTC', btc, '0.00153846')).toBe(`bitcoin:${btc}?amount=0.00153846`);
    expect(paymentUri('BTC', btc, '0.00100000')).toBe(`bitcoin:${btc}?amount=0.00100000`);
    expect(paymentUri('LTC', ltc, '12')).toBe(`litecoin:${ltc}?amount=12`);
    expect(paymentUri('BTC', btc, '0.001', { label: 'Shop & Co', message: 'Order #7' })).toBe(`bitcoin:${btc}?amount=0.001&label=Shop%20%26%20Co&message=Order%20%237`);
  });

  it('keeps the CashAddr prefix once', () => {
    expect(bch.startsWith('bitcoincash:')).toBe(true);
    expect(paymentUri('BCH', bch, '0.5')).toBe(`${bch}?amount=0.5`);
  });

  it('converts ETH amounts to exact wei (EIP-681)', () => {
    expect(paymentUri('ETH', eth, '0.000000000000000001')).toBe(`ethereum:${eth}@1?value=1`);
    expect(paymentUri('ETH', eth, '1.5')).toBe(`ethereum:${eth}@1?value=1500000000000000000`);
    expect(paymentUri('ETH', eth, '123456789.123456789123456789')).toBe(`ethereum:${eth}@1?value=123456789123456789123456789`);
    expect(paymentUri('ETH', eth, '2', { chainId: 11155111 })).toBe(`ethereum:${eth}@11155111?value=2000000000000000000`);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), (wei) => {
        const digits = wei.toString().padStart(19, '0');
        const amount = `${BigInt(digits.slice(0, -18))}.${digits.slice(-18)}`;
        expect(paymentUri('ETH', eth, amount)).toBe(`ethereum:${eth}@1?value=${wei}`);
      }),
    );
  });

  it('refuses inexact or malformed amounts, bad addresses and foreign extras', () => {
    for (const amount of ['', '1e-8', '-1', '+1', ' 1', '1.', '.5', '01', '1,5', '0.000000001']) {
      expect(() => paymentUri('BTC', btc, amount)).toThrow(RangeError);
    }
    expect(() => paymentUri('ETH', eth, '0.0000000000000000001')).toThrow(RangeError);
    expect(() => paymentUri('BTC', ltc, '1')).toThrow(RangeError);
    expect(() => paymentUri('BCH', bch.slice('bitcoincash:'.length), '1')).toThrow(RangeError);
    expect(() => paymentUri('ETH', eth.toLowerCase(), '1')).toThrow(RangeError);
    expect(() => paymentUri('ETH', eth, '1', { label: 'x' })).toThrow(RangeError);
    expect(() => paymentUri('BTC', btc, '1', { chainId: 1 })).toThrow(RangeError);
  });
});
