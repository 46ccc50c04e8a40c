import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';

/**
 * TRON addresses (docs/merchant-guide.md, "USDT on TRON"): the byte 0x41 and the last 20 bytes of the
 * keccak-256 of the uncompressed public key (as Ethereum's), written base58check (double
 * SHA-256 checksum): 34 characters starting with "T". The same 20 bytes are the account's
 * Ethereum-style address, which is how TRON's JSON APIs and event logs write it in hex.
 */

const base58check = createBase58check(sha256);

/** The prefix byte of every TRON mainnet account address. */
const TRON_PREFIX = 0x41;

/** The base58check address of a compressed or uncompressed secp256k1 public key. */
export function tronAddressOfPublicKey(publicKey: Uint8Array): string {
  const uncompressed = secp256k1.Point.fromBytes(publicKey).toBytes(false);
  return tronAddressOfBytes(keccak_256(uncompressed.subarray(1)).subarray(-20));
}

/** The base58check address of an account's 20 bytes. */
export function tronAddressOfBytes(account: Uint8Array): string {
  if (account.length !== 20) throw new RangeError('a TRON account is 20 bytes');
  return base58check.encode(Uint8Array.from([TRON_PREFIX, ...account]));
}

/** The account's 20 bytes of a base58check TRON address, or undefined when it is not one. */
export function tronAccountBytes(address: string): Uint8Array | undefined {
  // The pattern keeps long strings out of base58's quadratic decode; it refuses nothing the
  // checksum, the length and the prefix byte below would accept, so its mutants are equivalent.
  // Stryker disable next-line ConditionalExpression,LogicalOperator,Regex
  if (typeof address !== 'string' || !/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(address);
  } catch {
    return undefined;
  }
  return bytes.length === 21 && bytes[0] === TRON_PREFIX ? bytes.subarray(1) : undefined;
}

/** True for a well-formed TRON mainnet address with a valid checksum. Never throws. */
export function isTronAddress(address: string): boolean {
  return tronAccountBytes(address) !== undefined;
}

/**
 * A TRON address from the hex forms TRON's APIs use: `41` + 40 hex (wallet API), or `0x` + 40
 * hex (event logs, as Ethereum writes topics); undefined for anything else.
 */
export function tronAddressFromHex(hex: string): string | undefined {
  const match = /^(?:41|0x)([0-9a-fA-F]{40})$/.exec(hex);
  return match ? tronAddressOfBytes(hexToBytes(match[1]!)) : undefined;
}

/** The `41`-prefixed hex form of a TRON address (TRON's wallet API writes addresses so). */
export function tronHex(address: string): string {
  const account = tronAccountBytes(address);
  if (!account) throw new RangeError(`not a TRON address: ${address}`);
  return `41${bytesToHex(account)}`;
}
