import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { isSolanaAddress } from '#shared/payments/addresses/solana';

/**
 * The associated token account (ATA) of a wallet for a mint: where a Solana Pay wallet sends an
 * SPL token transfer to `recipient` (the spec's "recipient's associated token account", as
 * @solana/pay's createTransfer derives it). The Solana watcher lists this one account's
 * signatures instead of one list per invoice reference, so it derives it here, with no request
 * (`getTokenAccountsByOwner` would cost one per wallet, and finds nothing before the account
 * exists, while the address is fixed from the start: a first payment that creates it is still
 * listed under it).
 *
 * The address is a program-derived address: the first bump from 255 down whose
 * sha256(owner ‖ token program ‖ mint ‖ bump ‖ associated token program ‖ "ProgramDerivedAddress")
 * is not a point of ed25519 (curve25519-dalek's decompression, which accepts non-canonical
 * encodings: noble's zip215). tests/unit/solana-token-account.test.ts checks it against
 * @solana-program/token's findAssociatedTokenPda.
 */

/** The SPL Token program (USDC's). */
export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** The Token-2022 program (Token Extensions: PayPal's PYUSD): its accounts are derived with its own id. */
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** The Associated Token Account program. */
export const ASSOCIATED_TOKEN_PROGRAM_ID = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';

const PDA_MARKER = new TextEncoder().encode('ProgramDerivedAddress');

/** Whether 32 bytes are a point of ed25519 (a wallet's key); program-derived addresses are not. */
export function onCurve(bytes: Uint8Array): boolean {
  try {
    // Equivalent mutant: zip215 matters only for a hash that is a non-canonical encoding (y ≥ p:
    // 38 of 2^256 values).
    // Stryker disable next-line BooleanLiteral
    ed25519.Point.fromBytes(bytes, true);
  } catch {
    return false;
  }
  return true;
}

/** The program address of `seeds` under `programId` (Solana's find_program_address); throws if none of the 256 bumps is off the curve. */
export function findProgramAddress(seeds: readonly Uint8Array[], programId: string): { address: string; bump: number } {
  const program = base58.decode(programId);
  // Bump 0 is tried only after 255 hashes on the curve (each about one in two): `bump > 0` is equivalent in practice.
  // Stryker disable next-line EqualityOperator
  for (let bump = 255; bump >= 0; bump -= 1) {
    const hash = createHash('sha256');
    for (const seed of seeds) hash.update(seed);
    const bytes = new Uint8Array(hash.update(Uint8Array.of(bump)).update(program).update(PDA_MARKER).digest());
    if (!onCurve(bytes)) return { address: base58.encode(bytes), bump };
  }
  throw new Error(`no program address for these seeds under ${programId}`);
}

/** The associated token account of `owner` for `mint` under its token `program` (the SPL Token program unless told). */
export function associatedTokenAddress(owner: string, mint: string, program: string = TOKEN_PROGRAM_ID): string {
  if (!isSolanaAddress(owner) || !isSolanaAddress(mint)) throw new RangeError(`not a Solana address: ${isSolanaAddress(owner) ? mint : owner}`);
  return findProgramAddress([base58.decode(owner), base58.decode(program), base58.decode(mint)], ASSOCIATED_TOKEN_PROGRAM_ID).address;
}
