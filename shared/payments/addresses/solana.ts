import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';

/**
 * Solana account addresses: 32 bytes (an ed25519 public key, or a program-derived address off
 * the curve) in base58, 32 to 44 characters. Solana Pay's references are such addresses too:
 * any 32 bytes will do (they are only looked up, never signed for), so a fresh random one per
 * invoice is unique.
 */
export function isSolanaAddress(address: string): boolean {
  // 32 bytes are at most 44 base58 characters: the bound only keeps long strings out of
  // base58's quadratic decode, which refuses everything else (other characters, other lengths);
  // so mutants of this line are equivalent.
  // Stryker disable next-line ConditionalExpression,LogicalOperator
  if (typeof address !== 'string' || address.length > 44) return false;
  try {
    return base58.decode(address).length === 32;
  } catch {
    return false;
  }
}

/** A new Solana Pay reference: 32 random bytes, base58. */
export function newSolanaReference(): string {
  return base58.encode(randomBytes(32));
}
