import type { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bech32 } from '@scure/base';
import { CASHADDR_P2PKH_160, encodeCashAddr } from '#shared/payments/addresses/cashaddr';
import { toChecksumAddress } from '#shared/payments/addresses/eip55';
import { tronAddressOfPublicKey } from '#shared/payments/addresses/tron';
import { InvalidExtendedKeyError } from '#shared/payments/addresses/errors';
import { parseExtendedPublicKey } from '#shared/payments/addresses/extended-key';
import { CASHADDR_PREFIX, SEGWIT_HRP, type AddressCurrency, type AddressNetwork, type AddressOptions } from '#shared/payments/addresses/types';

/** Largest non-hardened BIP32 index: public derivation cannot reach hardened children. */
const MAX_INDEX = 2 ** 31 - 1;

/** BIP44 chains below the account node: 0 = receiving (external), 1 = change (internal). */
export type AddressChain = 0 | 1;

/**
 * Derives the receiving address at `0/index` below an account-level extended public key
 * (e.g. the xpub/zpub of m/84'/0'/0' for BTC, m/44'/60'/0' for ETH).
 *
 * - BTC, LTC: native segwit P2WPKH (`bc1q…`/`tb1q…`, `ltc1q…`/`tltc1q…`)
 * - BCH: CashAddr P2PKH with its prefix (`bitcoincash:q…`/`bchtest:q…`)
 * - ETH: EIP-55 checksummed `0x…`
 * - TRX (TRON, m/44'/195'/0'): base58check `T…` (shared/payments/addresses/tron.ts)
 *
 * @throws {@link InvalidExtendedKeyError} for a malformed key, a version prefix the currency
 *   does not accept, any private key, or an index outside 0..2^31-1.
 */
export function deriveAddress(currency: AddressCurrency, extendedPublicKey: string, index: number, opts?: AddressOptions): string {
  return deriveChainAddress(currency, extendedPublicKey, 0, index, opts);
}

/**
 * Like {@link deriveAddress} but on either BIP44 chain; `chain` 1 gives change addresses.
 * Receiving payments should use {@link deriveAddress}.
 */
export function deriveChainAddress(currency: AddressCurrency, extendedPublicKey: string, chain: AddressChain, index: number, opts?: AddressOptions): string {
  assertIndex(index);
  if (chain !== 0 && chain !== 1) {
    throw new InvalidExtendedKeyError('index-out-of-range', 'chain must be 0 (receiving) or 1 (change)');
  }
  const network = opts?.network ?? 'mainnet';
  const node = childAt(chainNode(currency, extendedPublicKey, network, chain), index);
  // Non-null: parseExtendedPublicKey only returns keys that hold a public key.
  return encodeAddress(currency, node.publicKey!, network);
}

/**
 * The chain node (account/chain) of a key, parsed and derived once per process: every invoice
 * of a currency derives from the same few keys, and parsing plus a derivation is most of the
 * cost of an address. Bounded so a stream of distinct keys cannot grow memory without limit.
 */
const chainNodes = new Map<string, HDKey>();
const CHAIN_NODE_LIMIT = 256;

function chainNode(currency: AddressCurrency, key: string, network: AddressNetwork, chain: AddressChain): HDKey {
  const cacheKey = `${currency}:${network}:${chain}:${key}`;
  let node = chainNodes.get(cacheKey);
  // The cache changes only time and memory, never an address: its mutants are equivalent.
  // Stryker disable next-line ConditionalExpression
  if (!node) {
    node = childAt(parseExtendedPublicKey(currency, key, network), chain);
    // Stryker disable next-line ConditionalExpression,EqualityOperator
    if (chainNodes.size >= CHAIN_NODE_LIMIT) chainNodes.delete(chainNodes.keys().next().value as string);
    chainNodes.set(cacheKey, node);
  }
  return node;
}

function assertIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX) {
    throw new InvalidExtendedKeyError('index-out-of-range', `index must be an integer in 0..${MAX_INDEX}`);
  }
}

/**
 * @scure/bip32 silently moves on to index + 1 when a child is invalid (odds ~2^-127). Handing
 * out that sibling would make two order indexes share one address, so refuse instead.
 */
function childAt(node: HDKey, index: number): HDKey {
  const child = node.deriveChild(index);
  // Unreachable with any key found so far (no invalid child is known): its mutants survive untested.
  // Stryker disable all
  if (child.index !== index) {
    throw new InvalidExtendedKeyError('index-out-of-range', `BIP32 child ${index} is invalid; skip this index`);
  }
  // Stryker restore all
  return child;
}

/** The address for one compressed secp256k1 public key. */
function encodeAddress(currency: AddressCurrency, publicKey: Uint8Array, network: AddressNetwork): string {
  switch (currency) {
    case 'BTC':
    case 'LTC':
      // Witness version 0 followed by the 20-byte key hash program.
      return bech32.encode(SEGWIT_HRP[currency][network], [0, ...bech32.toWords(hash160(publicKey))]);
    case 'BCH':
      return encodeCashAddr(CASHADDR_PREFIX[network], CASHADDR_P2PKH_160, hash160(publicKey));
    case 'ETH': {
      // Ethereum hashes the 64-byte uncompressed point, without the 0x04 tag.
      const uncompressed = secp256k1.Point.fromBytes(publicKey).toBytes(false);
      return toChecksumAddress(keccak_256(uncompressed.subarray(1)).subarray(-20));
    }
    case 'TRX':
      return tronAddressOfPublicKey(publicKey);
  }
}

function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}
