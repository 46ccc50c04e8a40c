import { bech32 } from '@scure/base';

/**
 * CashAddr (Bitcoin Cash address format spec): bech32's alphabet with a 40-bit BCH checksum
 * over the prefix and payload. Only what this module needs: encode a P2PKH hash160, decode.
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATORS = [0x98f2bc8e61n, 0x79b76d99e2n, 0xf33e5fb3c4n, 0xae2eabe2a8n, 0x1e4f43e470n];
const CHECKSUM_LENGTH = 8;

/** Version byte: type (bits 3-6, 0 = P2PKH) | hash size (bits 0-2, 0 = 160 bits). */
export const CASHADDR_P2PKH_160 = 0x00;

function polymod(values: readonly number[]): bigint {
  let c = 1n;
  for (const d of values) {
    const c0 = c >> 35n;
    c = ((c & 0x07ffffffffn) << 5n) ^ BigInt(d);
    GENERATORS.forEach((g, i) => {
      if ((c0 >> BigInt(i)) & 1n) c ^= g;
    });
  }
  return c ^ 1n;
}

/** The prefix enters the checksum as the low 5 bits of each character, then a 0 separator. */
function prefixWords(prefix: string): number[] {
  return [...prefix].map((ch) => ch.charCodeAt(0) & 0x1f).concat(0);
}

function checksumWords(prefix: string, words: readonly number[]): number[] {
  const mod = polymod([...prefixWords(prefix), ...words, ...new Array<number>(CHECKSUM_LENGTH).fill(0)]);
  // 40 bits, most significant 5-bit group first.
  return Array.from({ length: CHECKSUM_LENGTH }, (_, i) => Number((mod >> BigInt(5 * (CHECKSUM_LENGTH - 1 - i))) & 0x1fn));
}

/** `prefix:payload` for a version byte and hash, lowercase. */
export function encodeCashAddr(prefix: string, version: number, hash: Uint8Array): string {
  const words = bech32.toWords(Uint8Array.of(version, ...hash));
  const all = [...words, ...checksumWords(prefix, words)];
  return `${prefix}:${all.map((w) => CHARSET[w]).join('')}`;
}

/** Decoded CashAddr, or `undefined` for anything malformed or with a bad checksum. */
export function decodeCashAddr(address: string): { prefix: string; version: number; hash: Uint8Array } | undefined {
  // The spec allows all-lower or all-upper, never mixed.
  const lower = address.toLowerCase();
  if (address !== lower && address !== address.toUpperCase()) return undefined;
  const sep = lower.lastIndexOf(':');
  if (sep <= 0) return undefined;
  const prefix = lower.slice(0, sep);
  if (!/^[a-z0-9]+$/.test(prefix)) return undefined;
  const words: number[] = [];
  for (const ch of lower.slice(sep + 1)) {
    const w = CHARSET.indexOf(ch);
    if (w < 0) return undefined;
    words.push(w);
  }
  if (words.length <= CHECKSUM_LENGTH) return undefined;
  if (polymod([...prefixWords(prefix), ...words]) !== 0n) return undefined;
  let payload: Uint8Array;
  try {
    // Strict conversion: rejects non-zero or excess padding bits.
    payload = bech32.fromWords(words.slice(0, -CHECKSUM_LENGTH));
  } catch {
    return undefined;
  }
  const [version] = payload;
  if (version === undefined) return undefined;
  return { prefix, version, hash: payload.slice(1) };
}
