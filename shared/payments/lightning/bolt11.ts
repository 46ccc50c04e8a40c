/**
 * BOLT #11 Lightning invoices ("payment requests"): an encoder for the invoices we issue, and a
 * reader of any invoice that parses with light-bolt11-decoder (npm) and checks the signature,
 * which that library does not.
 * Spec: https://github.com/lightning/bolts/blob/master/11-payment-encoding.md
 *
 * Amounts are bigint millisatoshis throughout; the human-readable amount is BTC with a
 * multiplier, so 1 BTC = 10^11 msat and the smallest unit (`p`, pico-BTC) is 0.1 msat.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import { decode } from 'light-bolt11-decoder';

/** BIP-173 currency prefix: mainnet, testnet (also used for signet), regtest. */
export type Bolt11Network = 'bc' | 'tb' | 'bcrt';

/** What we put in an invoice we issue. */
export interface Bolt11InvoiceInput {
  network: Bolt11Network;
  /** Amount to pay, in millisatoshis (> 0). */
  amountMsat: bigint;
  /** Creation time, unix seconds (fits the spec's 35 bits). */
  timestamp: number;
  /** sha256 of the preimage that the payee reveals on payment (32 bytes). */
  paymentHash: Uint8Array;
  /** Random secret that stops intermediate nodes probing the payee (32 bytes). */
  paymentSecret: Uint8Array;
  /** UTF-8, at most 639 bytes (the `d` field's 10-bit length limit). */
  description: string;
  expirySeconds: number;
  /** Blocks the final HTLC must have left; the spec default is 18. */
  minFinalCltvExpiry?: number;
}

/** An invoice as read back from its bech32 string. */
export interface DecodedBolt11 {
  network: Bolt11Network;
  /** Undefined for "any amount" invoices. */
  amountMsat: bigint | undefined;
  timestamp: number;
  paymentHash: Uint8Array;
  /** Undefined for legacy invoices written before `payment_secret` existed. */
  paymentSecret: Uint8Array | undefined;
  /** Undefined when the invoice commits to a hashed description (`h`) instead. */
  description: string | undefined;
  descriptionHash: Uint8Array | undefined;
  expirySeconds: number;
  minFinalCltvExpiry: number;
  /** Compressed (33-byte) key: the `n` field if present, otherwise recovered from the signature. */
  payeeNodeKey: Uint8Array | undefined;
  /** False when the signature does not verify or no key can be recovered from it. */
  signatureValid: boolean;
}

/**
 * Signs the 32-byte sha256 digest of an invoice. Returns the compact `r || s` signature
 * (64 bytes) and its recovery id (0..3). A function, so a real node or HSM can sign instead.
 */
export type Bolt11Signer = (digest: Uint8Array) => { signature: Uint8Array; recoveryId: number };

/** Thrown for invoices that cannot be encoded or parsed. */
export class Bolt11Error extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'Bolt11Error';
  }
}

const TAG = {
  paymentHash: 1, // p
  features: 5, // 9
  expiry: 6, // x
  description: 13, // d
  paymentSecret: 16, // s
  minFinalCltvExpiry: 24, // c
} as const;

const TIMESTAMP_WORDS = 7; // 35 bits
const SIGNATURE_WORDS = 104; // 520 bits = 64-byte signature + 1-byte recovery id
const MAX_FIELD_WORDS = 1023; // 10-bit data_length
const MAX_DESCRIPTION_BYTES = 639; // floor(1023 * 5 / 8)
const DEFAULT_EXPIRY_SECONDS = 3600;
const DEFAULT_MIN_FINAL_CLTV_EXPIRY = 18;
const MSAT_PER_BTC = 100_000_000_000n;
const MAX_AMOUNT_MSAT = 21_000_000n * MSAT_PER_BTC;

/** msat per unit of each multiplier, largest first: the first that divides gives the shortest form. */
const MULTIPLIERS: ReadonlyArray<readonly [suffix: '' | 'm' | 'u' | 'n', msat: bigint]> = [
  ['', MSAT_PER_BTC],
  ['m', 100_000_000n],
  ['u', 100_000n],
  ['n', 100n],
];

/**
 * var_onion_optin (bit 8) and payment_secret (bit 14), both compulsory (even): what current
 * wallets expect, and payment_secret must be set whenever an `s` field is present.
 */
const INVOICE_FEATURES = (1n << 8n) | (1n << 14n);

const HRP_PATTERN = /^ln(bcrt|bc|tb)(?:([1-9]\d*)([munp]?))?$/;

/** Human-readable amount (BTC with the largest multiplier that keeps it an integer). */
export function encodeAmount(amountMsat: bigint): string {
  if (amountMsat <= 0n || amountMsat > MAX_AMOUNT_MSAT) {
    throw new Bolt11Error(`amount out of range: ${amountMsat} msat`);
  }
  for (const [suffix, unitMsat] of MULTIPLIERS) {
    if (amountMsat % unitMsat === 0n) return `${amountMsat / unitMsat}${suffix}`;
  }
  // Pico-BTC is 0.1 msat, so a whole msat amount always ends in 0 here, as the spec requires.
  return `${amountMsat * 10n}p`;
}

/**
 * The bytes a BOLT #11 signature commits to: the human-readable part as UTF-8, then the data
 * part (without the signature) regrouped into bytes, zero-padded to a byte boundary.
 */
export function bolt11SigningData(hrp: string, dataWords: readonly number[]): Uint8Array {
  return concatBytes(new TextEncoder().encode(hrp), wordsToPaddedBytes(dataWords));
}

/** Signs with a local secp256k1 private key (RFC 6979 deterministic nonces, low-S). */
export function privateKeySigner(privateKey: Uint8Array): Bolt11Signer {
  return (digest) => {
    // noble's 'recovered' layout is recoveryId || r || s; BOLT #11 wants r || s || recoveryId.
    const recovered = secp256k1.sign(digest, privateKey, { prehash: false, format: 'recovered' });
    return { signature: recovered.slice(1), recoveryId: recovered[0]! };
  };
}

/** Encodes and signs a BOLT #11 invoice (fields p, s, d, x, c, 9). */
export function encodeBolt11(input: Bolt11InvoiceInput, sign: Bolt11Signer): string {
  const { timestamp, expirySeconds, minFinalCltvExpiry = DEFAULT_MIN_FINAL_CLTV_EXPIRY } = input;
  if (!Number.isSafeInteger(timestamp) || timestamp < 0 || timestamp >= 2 ** 35) {
    throw new Bolt11Error(`timestamp out of range: ${timestamp}`);
  }
  // Zero would encode as an empty field, which readers treat as "absent" rather than "0".
  requirePositiveInteger('expirySeconds', expirySeconds);
  requirePositiveInteger('minFinalCltvExpiry', minFinalCltvExpiry);
  requireLength('paymentHash', input.paymentHash, 32);
  requireLength('paymentSecret', input.paymentSecret, 32);
  const description = new TextEncoder().encode(input.description);
  if (description.length > MAX_DESCRIPTION_BYTES) {
    throw new Bolt11Error(`description longer than ${MAX_DESCRIPTION_BYTES} bytes`);
  }

  const hrp = `ln${input.network}${encodeAmount(input.amountMsat)}`;
  const dataWords = [
    ...intToWords(timestamp, TIMESTAMP_WORDS),
    ...taggedField(TAG.paymentHash, bech32.toWords(input.paymentHash)),
    ...taggedField(TAG.paymentSecret, bech32.toWords(input.paymentSecret)),
    ...taggedField(TAG.description, bech32.toWords(description)),
    ...taggedField(TAG.expiry, intToWords(expirySeconds)),
    ...taggedField(TAG.minFinalCltvExpiry, intToWords(minFinalCltvExpiry)),
    ...taggedField(TAG.features, intToWords(INVOICE_FEATURES)),
  ];
  const { signature, recoveryId } = sign(sha256(bolt11SigningData(hrp, dataWords)));
  requireLength('signature', signature, 64);
  if (![0, 1, 2, 3].includes(recoveryId)) throw new Bolt11Error(`invalid recovery id: ${recoveryId}`);
  const signatureWords = bech32.toWords(concatBytes(signature, Uint8Array.of(recoveryId)));
  // Invoices routinely exceed BIP-173's 90-character limit; BOLT #11 lifts it.
  return bech32.encode(hrp, [...dataWords, ...signatureWords], false);
}

/** A field as light-bolt11-decoder lists it: `letters` are its tag, length and data characters. */
interface Section {
  name: string;
  letters: string;
  value?: unknown;
}

/** Data words of the fixed-size fields; the spec has readers skip such a field of another length. */
const FIELD_WORDS: Readonly<Record<string, number>> = { payment_hash: 52, payment_secret: 52, description_hash: 52, payee: 53 };

/**
 * Parses a BOLT #11 invoice (either case) and checks its signature. Throws {@link Bolt11Error}
 * on a bad checksum, unknown prefix, invalid amount or missing payment hash; an invalid
 * signature is reported through `signatureValid` rather than thrown.
 */
export function decodeBolt11(invoice: string): DecodedBolt11 {
  let prefix: string;
  let words: number[];
  try {
    // The words are the signed data, which the library does not give.
    ({ prefix, words } = bech32.decode(invoice as `${string}1${string}`, false));
  } catch (error) {
    throw new Bolt11Error('invalid bech32 invoice', { cause: error });
  }
  const hrp = HRP_PATTERN.exec(prefix);
  if (!hrp) throw new Bolt11Error(`unsupported invoice prefix: ${prefix}`);
  if (words.length < TIMESTAMP_WORDS + SIGNATURE_WORDS) throw new Bolt11Error('invoice too short');
  let sections: Section[];
  try {
    sections = decode(invoice).sections as Section[];
  } catch (error) {
    throw new Bolt11Error(`invalid invoice: ${(error as Error).message}`, { cause: error });
  }
  // A field longer than the data left takes letters of the signature and checksum with it.
  if (sections.find((section) => section.name === 'checksum')!.letters.length !== 6) {
    throw new Bolt11Error('truncated tagged field');
  }
  /** The first field of that name (of the right length, for the fixed-size ones). */
  const field = (name: string): unknown => sections.find(({ name: found, letters }) => found === name && (!(name in FIELD_WORDS) || letters.length === 3 + FIELD_WORDS[name]!))?.value;
  const bytes = (name: string) => (field(name) === undefined ? undefined : hexToBytes(field(name) as string));
  const paymentHash = bytes('payment_hash');
  if (!paymentHash) throw new Bolt11Error('invoice has no payment hash');

  const signature = hexToBytes(field('signature') as string);
  const digest = sha256(bolt11SigningData(prefix, words.slice(0, -SIGNATURE_WORDS)));
  const { payeeNodeKey, signatureValid } = checkSignature(digest, signature.subarray(0, 64), signature[64]!, bytes('payee'));
  const amount = field('amount') as string | undefined;

  return {
    network: hrp[1] as Bolt11Network,
    amountMsat: amount === undefined ? undefined : BigInt(amount),
    timestamp: field('timestamp') as number,
    paymentHash,
    paymentSecret: bytes('payment_secret'),
    description: field('description') as string | undefined,
    descriptionHash: bytes('description_hash'),
    expirySeconds: safeInteger(field('expiry')) ?? DEFAULT_EXPIRY_SECONDS,
    minFinalCltvExpiry: safeInteger(field('min_final_cltv_expiry')) ?? DEFAULT_MIN_FINAL_CLTV_EXPIRY,
    payeeNodeKey,
    signatureValid,
  };
}

/** The library sums an integer field in floating point: past 2^53 it is no longer exact. */
function safeInteger(value: unknown): number | undefined {
  if (value !== undefined && !Number.isSafeInteger(value)) throw new Bolt11Error(`integer field too large: ${value}`);
  return value as number | undefined;
}

/**
 * With an explicit `n` field the spec requires verifying against it; otherwise the payee is
 * whoever the signature recovers to. High-S signatures are accepted since BOLT #11 does not
 * forbid them.
 */
function checkSignature(digest: Uint8Array, signature: Uint8Array, recoveryId: number, explicitKey: Uint8Array | undefined): { payeeNodeKey: Uint8Array | undefined; signatureValid: boolean } {
  if (explicitKey) {
    const signatureValid = secp256k1.verify(signature, digest, explicitKey, { prehash: false, lowS: false });
    return { payeeNodeKey: explicitKey, signatureValid };
  }
  try {
    const recovered = concatBytes(Uint8Array.of(recoveryId), signature);
    return { payeeNodeKey: secp256k1.recoverPublicKey(recovered, digest, { prehash: false }), signatureValid: true };
  } catch {
    // r is not a valid x coordinate, or the recovery id is out of range.
    return { payeeNodeKey: undefined, signatureValid: false };
  }
}

function taggedField(tag: number, data: readonly number[]): number[] {
  if (data.length > MAX_FIELD_WORDS) throw new Bolt11Error(`tagged field ${tag} too long`);
  return [tag, data.length >> 5, data.length & 31, ...data];
}

/** Big-endian base-32 digits, minimal unless padded to `width`. */
function intToWords(value: number | bigint, width = 0): number[] {
  const words: number[] = [];
  for (let rest = BigInt(value); rest > 0n; rest >>= 5n) words.unshift(Number(rest & 31n));
  if (width && words.length > width) throw new Bolt11Error(`${value} does not fit ${width} words`);
  while (words.length < width) words.unshift(0);
  return words;
}

/** Regroups 5-bit words into bytes, a final partial byte zero-filled (as the signing data wants). */
function wordsToPaddedBytes(words: readonly number[]): Uint8Array {
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const word of words) {
    acc = ((acc << 5) | word) & 0xfff; // never more than 7 pending + 5 new bits
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
  }
  if (bits > 0) bytes.push((acc << (8 - bits)) & 0xff);
  return Uint8Array.from(bytes);
}

function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) throw new Bolt11Error(`${name} must be a positive integer`);
}

function requireLength(name: string, bytes: Uint8Array, length: number): void {
  if (bytes.length !== length) throw new Bolt11Error(`${name} must be ${length} bytes`);
}
