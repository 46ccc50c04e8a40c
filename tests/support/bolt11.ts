import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import { decode } from 'light-bolt11-decoder';

/**
 * A BOLT #11 invoice as an independent decoder reads it, to check our encoder with something
 * other than our own decoder: light-bolt11-decoder parses the fields (it does not check
 * signatures), and the signature is checked here with secp256k1 over the spec's signing data
 * (hrp bytes, then the data words packed into bytes and zero-padded).
 */
export interface ReadInvoice {
  network: string;
  amountMsat?: bigint;
  timestamp: number;
  /** Hex. */
  paymentHash?: string;
  /** Hex. */
  paymentSecret?: string;
  description?: string;
  /** The `x` field, or BOLT #11's default of 3600. */
  expirySeconds: number;
  /** The `c` field, or BOLT #11's default of 18. */
  minFinalCltvExpiry: number;
  /** The `9` field as a bit set (bit n = feature bit n). */
  features?: bigint;
  /** The `n` field, or the key recovered from the signature (hex, compressed). */
  payeeNodeKey?: string;
  signatureValid: boolean;
}

/** light-bolt11-decoder's names for feature bits 0/1, 2/3, ... (BOLT #9), in its order. */
const FEATURE_NAMES = [
  'option_data_loss_protect',
  'initial_routing_sync',
  'option_upfront_shutdown_script',
  'gossip_queries',
  'var_onion_optin',
  'gossip_queries_ex',
  'option_static_remotekey',
  'payment_secret',
  'basic_mpp',
  'option_support_large_channel',
];

interface FeatureBits {
  [name: string]: unknown;
  extra_bits: { start_bit: number; bits: boolean[] };
}

function featureSet(bits: FeatureBits): bigint {
  let set = 0n;
  FEATURE_NAMES.forEach((name, index) => {
    if (bits[name] === 'required') set |= 1n << BigInt(2 * index);
    if (bits[name] === 'supported') set |= 1n << BigInt(2 * index + 1);
  });
  bits.extra_bits.bits.forEach((on, index) => {
    if (on) set |= 1n << BigInt(bits.extra_bits.start_bit + index);
  });
  return set;
}

const SIGNATURE_WORDS = 104;

/** 5-bit words as bytes, zero-padded at the end. */
function wordsToPaddedBytes(words: readonly number[]): Uint8Array {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const word of words) {
    buffer = ((buffer << 5) | word) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  if (bits > 0) bytes.push((buffer << (8 - bits)) & 0xff);
  return Uint8Array.from(bytes);
}

function checkSignature(invoice: string, payee: string | undefined): { payeeNodeKey?: string; signatureValid: boolean } {
  const { prefix, words } = bech32.decode(invoice.toLowerCase() as `${string}1${string}`, false);
  const data = words.slice(0, -SIGNATURE_WORDS);
  const signature = wordsToPaddedBytes(words.slice(-SIGNATURE_WORDS)).slice(0, 65);
  const digest = sha256(concatBytes(new TextEncoder().encode(prefix), wordsToPaddedBytes(data)));
  const compact = signature.slice(0, 64);
  if (payee) {
    return { payeeNodeKey: payee, signatureValid: secp256k1.verify(compact, digest, hexToBytes(payee), { prehash: false, lowS: false }) };
  }
  try {
    const recovered = secp256k1.recoverPublicKey(concatBytes(signature.slice(64), compact), digest, { prehash: false });
    return { payeeNodeKey: bytesToHex(recovered), signatureValid: true };
  } catch {
    return { signatureValid: false };
  }
}

/** Reads `invoice` without shared/payments/lightning; throws what the decoder throws. */
export function readInvoice(invoice: string): ReadInvoice {
  const sections = decode(invoice).sections as Array<{ name: string; letters?: string; value?: unknown }>;
  const value = (name: string) => sections.find((section) => section.name === name)?.value;
  const amount = value('amount') as string | undefined;
  const features = value('feature_bits') as FeatureBits | undefined;
  return {
    network: sections.find((section) => section.name === 'coin_network')!.letters!,
    amountMsat: amount === undefined ? undefined : BigInt(amount),
    timestamp: value('timestamp') as number,
    paymentHash: value('payment_hash') as string | undefined,
    paymentSecret: value('payment_secret') as string | undefined,
    description: value('description') as string | undefined,
    expirySeconds: (value('expiry') as number | undefined) ?? 3600,
    minFinalCltvExpiry: (value('min_final_cltv_expiry') as number | undefined) ?? 18,
    features: features ? featureSet(features) : undefined,
    ...checkSignature(invoice, value('payee') as string | undefined),
  };
}
