import { pbkdf2Sync } from 'node:crypto';
/**
 * Pins address derivation: every currency and every key version it accepts against published
 * vectors (BIP32, BIP84) and against an independent implementation from npm
 * (bitcoinjs's bip32 + bitcoinjs-lib for BTC/LTC, cashaddrjs for BCH, viem for ETH), and the
 * refusals of what cannot be derived correctly: another network or script type, private keys,
 * hardened indexes, keys BIP32 itself calls invalid (test vector 5).
 */
import * as ecc from '@bitcoinerlab/secp256k1';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import cashaddr from 'cashaddrjs';
import fc from 'fast-check';
import { publicKeyToAddress } from 'viem/accounts';
import { TronWeb, utils as tronUtils } from 'tronweb';
import { describe, expect, it } from 'vitest';
import {
  type AddressCurrency,
  type AddressNetwork,
  deriveAddress,
  deriveChainAddress,
  InvalidExtendedKeyError,
  type InvalidExtendedKeyReason,
  paymentUri,
  validateAddress,
} from '#shared/payments/addresses/index';
import { decodeCashAddr, encodeCashAddr } from '#shared/payments/addresses/cashaddr';

const bip32 = BIP32Factory(ecc);
const base58check = createBase58check(sha256);

/** Version bytes (BIP32 / SLIP-132): public, and the private twin. */
const VERSIONS = {
  xpub: [0x0488b21e, 0x0488ade4],
  ypub: [0x049d7cb2, 0x049d7878],
  zpub: [0x04b24746, 0x04b2430c],
  tpub: [0x043587cf, 0x04358394],
  upub: [0x044a5262, 0x044a4e28],
  vpub: [0x045f1cf6, 0x045f18bc],
  Ltub: [0x019da462, 0x019d9cfe],
  Mtub: [0x01b26ef6, 0x01b26792],
  ttub: [0x0436f6e1, 0x0436ef7d],
} as const;
type Version = keyof typeof VERSIONS;

/** What each currency and network accepts (docs/operator-guide.md "Keys, accounts and gateways"). */
const ACCEPTED: Record<AddressCurrency, Record<AddressNetwork, readonly Version[]>> = {
  BTC: { mainnet: ['xpub', 'zpub'], testnet: ['tpub', 'vpub'] },
  LTC: { mainnet: ['Ltub', 'Mtub', 'zpub', 'xpub'], testnet: ['ttub', 'tpub', 'vpub'] },
  BCH: { mainnet: ['xpub'], testnet: ['tpub'] },
  ETH: { mainnet: ['xpub'], testnet: ['xpub'] },
  TRX: { mainnet: ['xpub'], testnet: ['xpub'] },
};
const CURRENCIES = Object.keys(ACCEPTED) as AddressCurrency[];
const NETWORKS: readonly AddressNetwork[] = ['mainnet', 'testnet'];

// BIP32 test vector 1 (seed 000102030405060708090a0b0c0d0e0f), public keys as published.
const TV1_M0H = 'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw';
const TV1_M0H_1 = 'xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ';
// The account key of BIP84's vectors: BIP32 vector-1 seed, m/84'/0'/0'.
const REFERENCE_ACCOUNT = HDKey.fromMasterSeed(hexToBytes('000102030405060708090a0b0c0d0e0f')).derive("m/84'/0'/0'");
const REFERENCE_XPUB = REFERENCE_ACCOUNT.publicExtendedKey;

// BIP32 test vector 5: extended public keys that must be refused, as published.
const TV5: ReadonlyArray<[string, string, InvalidExtendedKeyReason]> = [
  ['pubkey version / prvkey mismatch', 'xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6LBpB85b3D2yc8sfvZU521AAwdZafEz7mnzBBsz4wKY5fTtTQBm', 'private-key'],
  ['invalid pubkey prefix 04', 'xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6Txnt3siSujt9RCVYsx4qHZGc62TG4McvMGcAUjeuwZdduYEvFn', 'malformed'],
  ['invalid pubkey prefix 01', 'xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6N8ZMMXctdiCjxTNq964yKkwrkBJJwpzZS4HS2fxvyYUA4q2Xe4', 'malformed'],
  ['zero depth with non-zero parent fingerprint', 'xpub661no6RGEX3uJkY4bNnPcw4URcQTrSibUZ4NqJEw5eBkv7ovTwgiT91XX27VbEXGENhYRCf7hyEbWrR3FewATdCEebj6znwMfQkhRYHRLpJ', 'malformed'],
  ['zero depth with non-zero index', 'xpub661MyMwAuDcm6CRQ5N4qiHKrJ39Xe1R1NyfouMKTTWcguwVcfrZJaNvhpebzGerh7gucBvzEQWRugZDuDXjNDRmXzSZe4c7mnTK97pTvGS8', 'malformed'],
  ['unknown extended key version', 'DMwo58pR1QLEFihHiXPVykYB6fJmsTeHvyTp7hRThAtCX8CvYzgPcn8XnmdfHPmHJiEDXkTiJTVV9rHEBUem2mwVbbNfvT2MTcAqj3nesx8uBf9', 'wrong-version'],
  ['invalid pubkey 020000...0007 (not on the curve)', 'xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6Q5JXayek4PRsn35jii4veMimro1xefsM58PgBMrvdYre8QyULY', 'malformed'],
];

/** The same serialized key under other version bytes. */
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

const SEGWIT_HRP = { BTC: { mainnet: 'bc', testnet: 'tb' }, LTC: { mainnet: 'ltc', testnet: 'tltc' } } as const;
const CASHADDR_PREFIX = { mainnet: 'bitcoincash', testnet: 'bchtest' } as const;

/** The independent implementation: bitcoinjs's bip32, then each coin's own address library. */
function independentAddress(currency: AddressCurrency, key: string, version: Version, network: AddressNetwork, chain: number, index: number): string {
  const [pub, priv] = VERSIONS[version];
  const node: BIP32Interface = bip32.fromBase58(key, { bip32: { public: pub, private: priv }, wif: 0x80, messagePrefix: '', bech32: '', pubKeyHash: 0, scriptHash: 0 });
  const child = node.derive(chain).derive(index);
  const publicKey = Uint8Array.from(child.publicKey);
  switch (currency) {
    case 'BTC':
    case 'LTC': {
      const hrp = SEGWIT_HRP[currency][network];
      return payments.p2wpkh({ pubkey: publicKey, network: { bech32: hrp, messagePrefix: '', bip32: { public: pub, private: priv }, pubKeyHash: 0, scriptHash: 0, wif: 0 } }).address!;
    }
    case 'BCH':
      return cashaddr.encode(CASHADDR_PREFIX[network], 'P2PKH', Uint8Array.from(btcCrypto.hash160(publicKey)));
    case 'ETH':
      return publicKeyToAddress(`0x${bytesToHex(ecc.pointCompress(publicKey, false))}`);
    case 'TRX':
      // tronweb, TRON's official SDK: its own keccak and base58check.
      return tronUtils.crypto.getBase58CheckAddress(tronUtils.crypto.computeAddress(ecc.pointCompress(publicKey, false)));
  }
}

describe("TRON addresses (m/44'/195'/0')", () => {
  // The BIP39 test mnemonic; m/44'/195'/0'/0/0 of it is TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH in
  // every TRON wallet (TronLink, Trust) and in tronweb.
  // BIP39's seed: PBKDF2-HMAC-SHA512 of the mnemonic, salt "mnemonic", 2048 rounds.
  const MNEMONIC_SEED = pbkdf2Sync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', 'mnemonic', 2048, 64, 'sha512');
  const account = HDKey.fromMasterSeed(MNEMONIC_SEED).derive("m/44'/195'/0'");

  it('derives the published address of the test mnemonic, and agrees with tronweb on the next ones', () => {
    expect(deriveAddress('TRX', account.publicExtendedKey, 0)).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
    for (const index of [0, 1, 2, 19]) {
      const theirs = TronWeb.fromMnemonic('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', `m/44'/195'/0'/0/${index}`);
      expect(deriveAddress('TRX', account.publicExtendedKey, index)).toBe(theirs.address);
    }
  });

  it('validates base58check T-addresses only', () => {
    const address = deriveAddress('TRX', account.publicExtendedKey, 3);
    expect(validateAddress('TRX', address)).toBe(true);
    expect(validateAddress('TRX', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(true); // Tether's USDT contract
    const flipped = address.slice(0, -1) + (address.endsWith('a') ? 'b' : 'a');
    expect(validateAddress('TRX', flipped)).toBe(false);
    expect(validateAddress('TRX', '0x' + '11'.repeat(20))).toBe(false);
    expect(validateAddress('TRX', 'T' + address.slice(2))).toBe(false);
  });
});

describe('every currency and key version agrees with an independent implementation', () => {
  const cases = CURRENCIES.flatMap((currency) => NETWORKS.flatMap((network) => ACCEPTED[currency][network].map((version) => [currency, network, version] as const)));

  it.each(cases)('%s %s %s: receiving and change addresses, first, seventh and last index', (currency, network, version) => {
    const key = withVersion(REFERENCE_XPUB, VERSIONS[version][0]);
    expect(key.startsWith(version)).toBe(true);
    for (const index of [0, 1, 7, 2 ** 31 - 1]) {
      const ours = deriveAddress(currency, key, index, { network });
      expect(ours).toBe(independentAddress(currency, key, version, network, 0, index));
      expect(validateAddress(currency, ours, { network })).toBe(true);
      expect(deriveChainAddress(currency, key, 1, index, { network })).toBe(independentAddress(currency, key, version, network, 1, index));
    }
  });

  it('agrees on random keys and indexes too', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 64 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.constantFrom(...cases), (seed, index, [currency, network, version]) => {
        const key = withVersion(HDKey.fromMasterSeed(seed).derive("m/84'/0'/0'").publicExtendedKey, VERSIONS[version][0]);
        expect(deriveAddress(currency, key, index, { network })).toBe(independentAddress(currency, key, version, network, 0, index));
      }),
      { numRuns: 40 },
    );
  });
});

describe('published vectors', () => {
  it('BIP84: BIP32 vector-1 seed, m/84h/0h/0h, receiving index 7', () => {
    expect(deriveAddress('BTC', REFERENCE_XPUB, 7)).toBe('bc1q3utnvcdn0ekpzp9pstymxvhqlr8y5chwyt5fkp');
    expect(deriveAddress('LTC', REFERENCE_XPUB, 7)).toBe('ltc1q3utnvcdn0ekpzp9pstymxvhqlr8y5chwqhwdw3');
    expect(deriveAddress('BCH', REFERENCE_XPUB, 7)).toBe('bitcoincash:qz83wdnpkdlxcygy5xpvnvejuruvujnzacjz42q5up');
    expect(deriveAddress('ETH', REFERENCE_XPUB, 7)).toBe('0x0Aaeb2f8A7b0843D0C70e70404C62C4aFC736711');
  });

  it('BIP32 vector 1: public derivation of chain 1 below m/0H lands on the published m/0H/1 key', () => {
    expect(HDKey.fromMasterSeed(hexToBytes('000102030405060708090a0b0c0d0e0f')).derive("m/0'").publicExtendedKey).toBe(TV1_M0H);
    const published = bip32.fromBase58(TV1_M0H_1);
    for (const index of [0, 1, 2, 1_000_000_000]) {
      const expected = payments.p2wpkh({ pubkey: Uint8Array.from(published.derive(index).publicKey) }).address;
      expect(deriveChainAddress('BTC', TV1_M0H, 1, index)).toBe(expected);
    }
  });

  it('BIP84: the zpub of "abandon ... about" gives the published receiving and change addresses', () => {
    const zpub = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
    expect(deriveAddress('BTC', zpub, 0)).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(deriveAddress('BTC', zpub, 1)).toBe('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
    expect(deriveChainAddress('BTC', zpub, 1, 0)).toBe('bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el');
  });
});

describe('what cannot be derived correctly is refused', () => {
  it.each(TV5)('BIP32 vector 5: %s', (_case, key, reason) => {
    for (const currency of CURRENCIES) expect(refusal(() => deriveAddress(currency, key, 0)).reason).toBe(reason);
    if (reason === 'malformed' && key.startsWith('xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6')) {
      expect(refusal(() => deriveAddress('BTC', key, 0)).message).toBe('extended key does not hold a valid public key');
    }
  });

  it('every version a currency and network does not accept: another network, another coin, wrapped segwit', () => {
    let refused = 0;
    for (const currency of CURRENCIES) {
      for (const network of NETWORKS) {
        for (const version of Object.keys(VERSIONS) as Version[]) {
          if (ACCEPTED[currency][network].includes(version)) continue;
          const error = refusal(() => deriveAddress(currency, withVersion(REFERENCE_XPUB, VERSIONS[version][0]), 0, { network }));
          expect(error.reason).toBe('wrong-version');
          expect(error.message).toContain(ACCEPTED[currency][network].join(', '));
          refused += 1;
        }
      }
    }
    expect(refused).toBe(5 * 2 * 9 - 17); // 5 currencies x 2 networks x 9 versions, less the 17 accepted
  });

  it('every private key, under any of its versions, and never echoed', () => {
    const xprv = REFERENCE_ACCOUNT.privateExtendedKey;
    for (const version of Object.keys(VERSIONS) as Version[]) {
      const key = withVersion(xprv, VERSIONS[version][1]);
      for (const currency of CURRENCIES) {
        for (const network of NETWORKS) {
          const error = refusal(() => deriveAddress(currency, key, 0, { network }));
          expect(error.reason).toBe('private-key');
          expect(error.message).not.toContain(key);
        }
      }
      // Private key material under a public version byte is private too.
      expect(refusal(() => deriveAddress('LTC', withVersion(xprv, VERSIONS[version][0]), 0, { network: 'testnet' })).reason).toBe('private-key');
    }
  });

  it('hardened indexes and any chain but receiving (0) and change (1)', () => {
    for (const index of [2 ** 31, 2 ** 31 + 7, 2 ** 32, -1, 0.5, Number.NaN]) {
      const error = refusal(() => deriveAddress('BTC', REFERENCE_XPUB, index));
      expect([error.reason, error.message]).toEqual(['index-out-of-range', 'index must be an integer in 0..2147483647']);
    }
    for (const chain of [2, -1, 0.5, 2 ** 31]) {
      const error = refusal(() => deriveChainAddress('BTC', REFERENCE_XPUB, chain as 0 | 1, 0));
      expect([error.reason, error.message]).toEqual(['index-out-of-range', 'chain must be 0 (receiving) or 1 (change)']);
    }
  });

  it('keys that are not extended keys at all: the right reason, never a crash', () => {
    const bytes = base58check.decode(REFERENCE_XPUB);
    for (const [bad, reason] of [
      [base58check.encode(bytes.slice(0, 77)), 'malformed'],
      [base58check.encode(Uint8Array.of(...bytes, 0)), 'malformed'],
      ['xpub', 'malformed'],
      [undefined as unknown as string, 'malformed'],
    ] as const) {
      const error = refusal(() => deriveAddress('ETH', bad, 0));
      expect(error.reason).toBe(reason);
      expect(error.name).toBe('InvalidExtendedKeyError');
    }
    expect(refusal(() => deriveAddress('BTC', base58check.encode(bytes.slice(0, 77)), 0)).message).toBe('extended key must be 78 bytes');
    expect(refusal(() => deriveAddress('BTC', 'xpub', 0)).message).toBe('extended key is not valid base58check');
    expect(refusal(() => deriveAddress('BTC', 7 as unknown as string, 0)).message).toBe('extended key must be a string');
    expect(refusal(() => deriveAddress('BTC', withVersion(REFERENCE_XPUB, 0x0488b21f), 0)).message).toBe('extended key version 0x0488b21f is not accepted for BTC mainnet; expected one of xpub, zpub');
    expect(refusal(() => deriveAddress('BTC', withVersion(REFERENCE_XPUB, 0x0000b21e), 0)).message).toContain('version 0x0000b21e');
  });

  it('the same key is cached per currency, network and chain: no answer leaks into another', () => {
    const tpub = withVersion(REFERENCE_XPUB, VERSIONS.tpub[0]);
    const a = deriveAddress('LTC', tpub, 3, { network: 'testnet' });
    const b = deriveChainAddress('LTC', tpub, 1, 3, { network: 'testnet' });
    const c = deriveAddress('BCH', tpub, 3, { network: 'testnet' });
    expect(new Set([a, b, c]).size).toBe(3);
    expect(deriveAddress('LTC', tpub, 3, { network: 'testnet' })).toBe(a);
    // Many distinct keys: the cache stays bounded and every answer stays right.
    const keys = Array.from({ length: 260 }, (_, i) => HDKey.fromMasterSeed(Uint8Array.of(i & 0xff, i >> 8, ...new Uint8Array(14))).publicExtendedKey);
    const first = keys.map((key) => deriveAddress('BTC', key, 0));
    expect(new Set(first).size).toBe(260);
    for (const i of [0, 1, 255, 256, 259]) expect(first[i]).toBe(independentAddress('BTC', keys[i]!, 'xpub', 'mainnet', 0, 0));
    // The first keys were evicted: derived again, they give the same addresses.
    expect(deriveAddress('BTC', keys[0]!, 0)).toBe(first[0]);
    expect(deriveAddress('LTC', tpub, 3, { network: 'testnet' })).toBe(a);
  });
});

describe('CashAddr, address validation and payment URIs at their edges', () => {
  const hash = Uint8Array.from({ length: 20 }, (_, i) => i * 7);

  it('CashAddr agrees with cashaddrjs both ways, and refuses malformed prefixes and short payloads', () => {
    const ours = encodeCashAddr('bitcoincash', 0x00, hash);
    expect(ours).toBe(cashaddr.encode('bitcoincash', 'P2PKH', hash));
    expect(decodeCashAddr(cashaddr.encode('bchtest', 'P2SH', hash))).toEqual({ prefix: 'bchtest', version: 0x08, hash });
    const payload = ours.slice('bitcoincash:'.length);
    for (const bad of [
      `:${payload}`, // no prefix
      payload, // no separator
      `bitcoin-cash:${payload}`, // a character a prefix cannot have
      'bitcoincash:qqqqqqqq', // eight characters: the checksum alone
      'bitcoincash:', // nothing after the separator
      `bitcoincash:${payload.slice(0, -1)}b`, // a bad checksum character
    ]) {
      expect(decodeCashAddr(bad)).toBeUndefined();
    }
    // A checksum over an empty payload is well formed but holds no version byte.
    const empty = `x:${'qqqqqqqq'}`;
    expect(decodeCashAddr(empty)).toBeUndefined();
    expect(decodeCashAddr(ours.toUpperCase())).toEqual({ prefix: 'bitcoincash', version: 0, hash });
    expect(decodeCashAddr(`BitcoinCash:${payload}`)).toBeUndefined(); // mixed case
  });

  it('CashAddr refuses a prefix with a character other than a-z and 0-9 anywhere, even under a valid checksum', () => {
    for (const prefix of ['bitcoin-cash', '-bitcoincash', 'bitcoincash-', 'bitcoin cash']) {
      // Our encoder writes a checksum over any prefix; cashaddrjs's decoder, which checks only
      // the checksum, reads it back: only the prefix rule is left to refuse it.
      const address = encodeCashAddr(prefix, 0x00, hash);
      expect(cashaddr.decode(address)).toMatchObject({ prefix, type: 'P2PKH', hash });
      expect(decodeCashAddr(address)).toBeUndefined();
    }
  });

  it('validateAddress refuses a BCH address with another hash size or type, and other segwit programs', () => {
    expect(validateAddress('BCH', encodeCashAddr('bitcoincash', 0x00, hash))).toBe(true);
    expect(validateAddress('BCH', encodeCashAddr('bitcoincash', 0x00, new Uint8Array(32)))).toBe(false); // 256-bit hash
    expect(validateAddress('BCH', encodeCashAddr('bitcoincash', 0x00, hash.slice(0, 19)))).toBe(false);
    expect(validateAddress('BCH', encodeCashAddr('bitcoincash', 0x08, hash))).toBe(false); // P2SH
    expect(validateAddress('BCH', encodeCashAddr('bchtest', 0x00, hash))).toBe(false);
    expect(validateAddress('BCH', encodeCashAddr('bchtest', 0x00, hash), { network: 'testnet' })).toBe(true);
    const p2wsh = payments.p2wsh({ hash: new Uint8Array(32) }).address!;
    expect(validateAddress('BTC', p2wsh)).toBe(false);
    expect(validateAddress('BTC', payments.p2wpkh({ hash }).address!)).toBe(true);
    expect(validateAddress('BTC', payments.p2wpkh({ hash }).address!.toUpperCase())).toBe(true);
    expect(validateAddress('LTC', payments.p2wpkh({ hash }).address!)).toBe(false); // bc, not ltc
    expect(validateAddress('DOGE' as AddressCurrency, 'D8vFz4p1L37jdg47HXKtSHA5uYLYxbGgPD')).toBe(false);
  });

  it('payment URIs: chain ids, labels and messages only where the scheme has them', () => {
    const btc = deriveAddress('BTC', REFERENCE_XPUB, 0);
    const eth = deriveAddress('ETH', REFERENCE_XPUB, 0);
    for (const chainId of [0, -1, 1.5, 2 ** 53, Number.NaN]) {
      expect(() => paymentUri('ETH', eth, '1', { chainId })).toThrow(`invalid chain id: ${chainId}`);
    }
    expect(paymentUri('ETH', eth, '1', { chainId: 5 })).toBe(`ethereum:${eth}@5?value=1000000000000000000`);
    expect(() => paymentUri('ETH', eth, '1', { message: 'x' })).toThrow('EIP-681 has no label or message parameter');
    expect(() => paymentUri('ETH', eth, '1', { label: 'x' })).toThrow('EIP-681 has no label or message parameter');
    expect(() => paymentUri('BTC', btc, '1', { chainId: 1 })).toThrow('chainId applies to ETH only');
    expect(paymentUri('BTC', btc, '1', { label: 'Shop' })).toBe(`bitcoin:${btc}?amount=1&label=Shop`);
    expect(paymentUri('BTC', btc, '1', { message: 'a/b' })).toBe(`bitcoin:${btc}?amount=1&message=a%2Fb`);
    expect(() => paymentUri('BTC', btc, '0.123456789')).toThrow('amount must be a plain decimal with at most 8 decimals: 0.123456789');
    expect(() => paymentUri('BTC', 'bc1qnotanaddress', '1')).toThrow('not a valid BTC address: bc1qnotanaddress');
    const testnet = deriveAddress('BTC', withVersion(REFERENCE_XPUB, VERSIONS.tpub[0]), 0, { network: 'testnet' });
    expect(paymentUri('BTC', testnet, '1')).toBe(`bitcoin:${testnet}?amount=1`);
    expect(() => paymentUri('BTC', btc, 1 as unknown as string)).toThrow(RangeError);
  });
});
