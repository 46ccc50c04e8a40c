/**
 * Reads a BOLT #11 invoice without the service's own decoder: the fields come from
 * light-bolt11-decoder (npm), and the payee is the key the signature recovers to, computed
 * here straight from the spec (sha256 of the human-readable part and the data part's bytes,
 * recoverable secp256k1 signature r || s || recovery id).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import { decode } from 'light-bolt11-decoder';

export interface IndependentlyDecoded {
  /** The human-readable part: `ln` + network + amount. */
  prefix: string;
  /** Millisatoshis as the library gives them (a decimal string). */
  amountMsat: string | undefined;
  timestamp: number;
  paymentHash: string;
  description: string | undefined;
  expiry: number;
  /** The compressed key the signature recovers to, hex. */
  payeeNodeKey: string;
}

export function decodeIndependently(invoice: string): IndependentlyDecoded {
  const decoded = decode(invoice);
  const section = (name: string) => decoded.sections.find((s) => s.name === name) as { value?: unknown } | undefined;
  const { prefix, words } = bech32.decode(invoice as `${string}1${string}`, Number.MAX_SAFE_INTEGER);
  const data = words.slice(0, -104);
  // BOLT #11: the signed bytes are the hrp (UTF-8) and the data words regrouped into bytes,
  // the last partial byte padded with zeros.
  let bits = 0;
  let acc = 0;
  const bytes: number[] = [];
  for (const word of data) {
    acc = (acc << 5) | word;
    bits += 5;
    while (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) bytes.push((acc << (8 - bits)) & 0xff);
  const digest = sha256(concatBytes(new TextEncoder().encode(prefix), Uint8Array.from(bytes)));
  const signature = hexToBytes(section('signature')!.value as string);
  const recovered = concatBytes(signature.subarray(64, 65), signature.subarray(0, 64));
  const payee = secp256k1.recoverPublicKey(recovered, digest, { prehash: false });
  return {
    prefix,
    amountMsat: section('amount')?.value as string | undefined,
    timestamp: section('timestamp')!.value as number,
    paymentHash: section('payment_hash')!.value as string,
    description: section('description')?.value as string | undefined,
    expiry: decoded.expiry,
    payeeNodeKey: bytesToHex(payee),
  };
}
