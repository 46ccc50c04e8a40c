import { HDKey } from '@scure/bip32';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { InvalidExtendedKeyError } from '#shared/payments/addresses/errors';
import type { AddressCurrency, AddressNetwork } from '#shared/payments/addresses/types';

const base58check = createBase58check(sha256);

/**
 * BIP32 / SLIP-132 version bytes: public prefix -> its private twin. The prefix only says
 * which network and script type the exporting wallet had in mind; the key material is the same.
 */
const VERSIONS = {
  xpub: { public: 0x0488b21e, private: 0x0488ade4 }, // xprv
  ypub: { public: 0x049d7cb2, private: 0x049d7878 }, // yprv
  zpub: { public: 0x04b24746, private: 0x04b2430c }, // zprv
  tpub: { public: 0x043587cf, private: 0x04358394 }, // tprv
  upub: { public: 0x044a5262, private: 0x044a4e28 }, // uprv
  vpub: { public: 0x045f1cf6, private: 0x045f18bc }, // vprv
  Ltub: { public: 0x019da462, private: 0x019d9cfe }, // Ltpv
  Mtub: { public: 0x01b26ef6, private: 0x01b26792 }, // Mtpv
  ttub: { public: 0x0436f6e1, private: 0x0436ef7d }, // ttpv
} as const;

type VersionName = keyof typeof VERSIONS;

/**
 * Which public prefixes each currency accepts. LTC keys arrive as Ltub/Mtub (Litecoin's own),
 * zpub (Electrum-LTC native segwit) or plain xpub (many wallets reuse Bitcoin's bytes).
 * ypub/upub are deliberately absent: they announce P2SH-wrapped segwit, and this module only
 * makes native P2WPKH addresses, which such a wallet would not be watching.
 */
const ACCEPTED: Record<AddressCurrency, Record<AddressNetwork, readonly VersionName[]>> = {
  BTC: { mainnet: ['xpub', 'zpub'], testnet: ['tpub', 'vpub'] },
  LTC: { mainnet: ['Ltub', 'Mtub', 'zpub', 'xpub'], testnet: ['ttub', 'tpub', 'vpub'] },
  BCH: { mainnet: ['xpub'], testnet: ['tpub'] },
  ETH: { mainnet: ['xpub'], testnet: ['xpub'] },
  // TRON wallets export m/44'/195'/0' with Bitcoin's xpub bytes.
  TRX: { mainnet: ['xpub'], testnet: ['xpub'] },
};

const PRIVATE_VERSIONS = new Set<number>(Object.values(VERSIONS).map((v) => v.private));

/** BIP32 serialization: version(4) depth(1) fingerprint(4) index(4) chain code(32) key(33). */
const SERIALIZED_LENGTH = 78;
const KEY_OFFSET = 45;

/**
 * Parses an account-level extended public key for `currency` on `network`.
 * Private keys are refused before anything else is looked at, whatever their prefix.
 */
export function parseExtendedPublicKey(currency: AddressCurrency, extendedKey: string, network: AddressNetwork): HDKey {
  if (typeof extendedKey !== 'string') {
    throw new InvalidExtendedKeyError('malformed', 'extended key must be a string');
  }
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(extendedKey);
  } catch {
    throw new InvalidExtendedKeyError('malformed', 'extended key is not valid base58check');
  }
  if (bytes.length !== SERIALIZED_LENGTH) {
    throw new InvalidExtendedKeyError('malformed', `extended key must be ${SERIALIZED_LENGTH} bytes`);
  }
  const version = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, false);
  // A 0x00 key byte marks private key material in every BIP32 variant, known prefix or not.
  if (PRIVATE_VERSIONS.has(version) || bytes[KEY_OFFSET] === 0x00) {
    throw new InvalidExtendedKeyError('private-key', 'a PRIVATE extended key was supplied; only extended public keys are accepted, never private keys');
  }
  const accepted = ACCEPTED[currency][network];
  const name = accepted.find((n) => VERSIONS[n].public === version);
  if (!name) {
    throw new InvalidExtendedKeyError(
      'wrong-version',
      `extended key version 0x${version.toString(16).padStart(8, '0')} is not accepted for ` + `${currency} ${network}; expected one of ${accepted.join(', ')}`,
    );
  }
  try {
    return HDKey.fromExtendedKey(extendedKey, VERSIONS[name]);
  } catch {
    // Off-curve point, zero depth with a parent, and the like.
    throw new InvalidExtendedKeyError('malformed', 'extended key does not hold a valid public key');
  }
}
