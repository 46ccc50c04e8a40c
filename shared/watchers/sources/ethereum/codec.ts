import { hexToBytes } from '@noble/hashes/utils.js';
import { toChecksumAddress } from '#shared/payments/addresses/eip55';

/**
 * Strict readers for the Ethereum JSON-RPC encoding (execution-apis): QUANTITY is `0x` plus
 * hex without leading zeros ("0x0", "0x1a"), DATA is `0x` plus an even number of hex digits.
 * Each reader returns the value or undefined; callers turn undefined into a SourceError naming
 * the field, so a malformed answer is refused, never half-read.
 */

const QUANTITY = /^0x(?:0|[1-9a-f][0-9a-f]*)$/i;

/** A QUANTITY as a bigint (at most 256 bits, as every EVM quantity). */
export function quantity(value: unknown): bigint | undefined {
  if (typeof value !== 'string' || !QUANTITY.test(value) || value.length > 66) return undefined;
  return BigInt(value);
}

/** A QUANTITY that fits a JavaScript number exactly (block numbers, log indexes, timestamps). */
export function smallQuantity(value: unknown): number | undefined {
  const big = quantity(value);
  return big !== undefined && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : undefined;
}

/** DATA of exactly `bytes` bytes, lowercased (hashes: 32, addresses: 20). */
export function fixedData(value: unknown, bytes: number): string | undefined {
  if (typeof value !== 'string' || value.length !== 2 + 2 * bytes || !/^0x[0-9a-f]*$/i.test(value)) return undefined;
  return value.toLowerCase();
}

/** DATA of any length, lowercased. */
export function data(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length % 2 !== 0 || !/^0x[0-9a-f]*$/i.test(value)) return undefined;
  return value.toLowerCase();
}

/** A 20-byte address in its EIP-55 form (the form the address index stores). */
export function address(value: unknown): string | undefined {
  const hex = fixedData(value, 20);
  return hex === undefined ? undefined : toChecksumAddress(hexToBytes(hex.slice(2)));
}

/** A 32-byte log topic that holds an address (left-padded with 12 zero bytes), as EIP-55. */
export function topicAddress(topic: string): string | undefined {
  if (!/^0x0{24}[0-9a-f]{40}$/.test(topic)) return undefined;
  return address(`0x${topic.slice(26)}`);
}

/** A 32-byte word as an unsigned integer. */
export function word(value: string): bigint | undefined {
  return /^0x[0-9a-f]{64}$/.test(value) ? BigInt(value) : undefined;
}

/** A block number as the JSON-RPC writes it. */
export function toQuantity(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}

/** keccak256("Transfer(address,address,uint256)"): topic 0 of every ERC-20 Transfer log. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** The 4-byte selector of ERC-20 `decimals()`. */
export const DECIMALS_SELECTOR = '0x313ce567';
