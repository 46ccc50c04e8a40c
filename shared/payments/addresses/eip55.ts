import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * EIP-55: uppercase each hex letter whose nibble in keccak256(lowercase hex) is >= 8.
 * @param address20 - The 20-byte account address.
 */
export function toChecksumAddress(address20: Uint8Array): string {
  const hex = bytesToHex(address20);
  const hash = keccak_256(utf8ToBytes(hex));
  let out = '0x';
  for (let i = 0; i < hex.length; i++) {
    const byte = hash[i >> 1] ?? 0;
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 0x0f;
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return out;
}

/** True only for the exact EIP-55 mixed-case form (all-lower/all-upper carry no checksum). */
export function isChecksumAddress(address: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  return toChecksumAddress(hexToBytes(address.slice(2))) === address;
}
