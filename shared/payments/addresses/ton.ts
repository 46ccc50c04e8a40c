import { crc16Xmodem } from '#shared/payments/addresses/crc16';

/**
 * TON addresses (TON and USDT on TON, a merchant's own wallet). An account is a workchain and
 * the 32-byte hash of its contract's initial state, written either raw (`0:<64 hex>`, how
 * toncenter's API answers) or "user-friendly": 36 bytes in base64 or base64url (48 characters)
 * made of a tag byte (bounceable 0x11 or not 0x51, plus 0x80 for a testnet-only address), the
 * workchain byte, the hash and a CRC16-XMODEM of the 34 bytes before it. Bounceable or not,
 * url-safe or not, the same account is the same address: the flags only tell a sender's wallet
 * how to send (a bounceable message to a wallet not deployed yet comes back instead of being
 * credited).
 *
 * The service keeps one form, {@link canonicalTonAddress}: url-safe, non-bounceable, mainnet
 * (`UQ...`), the form wallets show for a wallet, so a buyer's wallet sends a non-bounceable
 * transfer that is credited even before the merchant's wallet is deployed. It is what the
 * service stores, shows as the payment address and reports transfers to.
 *
 * The codec is the service's own (a few lines: the format above), not @ton/core's Address: that
 * library cannot be had without its cells and its crypto, about 280 KB and 20 ms of cold load in
 * every function that makes an invoice. tests/unit/ton-address.test.ts checks it against
 * @ton/core, which the TON watcher keeps for its cells.
 */

/** The tag byte's flags: bounceable 0x11, not 0x51; testnet-only adds 0x80. */
const TAG_BOUNCEABLE = 0x11;
const TAG_NON_BOUNCEABLE = 0x51;
const TAG_TEST_ONLY = 0x80;

/** The user-friendly form of an account: tag, workchain, hash, CRC16-XMODEM (big-endian), in url-safe base64. */
function friendly(workchain: number, hash: Uint8Array, bounceable: boolean): string {
  const bytes = Buffer.alloc(36);
  bytes[0] = bounceable ? TAG_BOUNCEABLE : TAG_NON_BOUNCEABLE;
  bytes.writeInt8(workchain, 1);
  Buffer.from(hash).copy(bytes, 2);
  bytes.writeUInt16BE(crc16Xmodem(bytes.subarray(0, 34)), 34);
  return bytes.toString('base64url');
}

/** The workchain of wallets and jettons (the masterchain, -1, holds validators' contracts). */
const BASECHAIN = 0;

/** Raw form: the workchain, a colon, the 32-byte hash in hex (toncenter writes it upper case). */
const RAW = /^(-1|0):([0-9a-fA-F]{64})$/;
/** User-friendly form: 36 bytes in base64 or base64url. */
const FRIENDLY = /^[A-Za-z0-9+/_-]{48}$/;

/** An address read in any form: its account and the flags its user-friendly form carried. */
export interface TonAddress {
  workchain: number;
  /** The account's 32 bytes. */
  hash: Buffer;
  /** Only from a user-friendly form; a raw address has no flags. */
  bounceable?: boolean;
  testOnly?: boolean;
}

/** Reads a TON address in any of its forms, or undefined for anything else (a bad checksum, another length). Never throws. */
export function parseTonAddress(input: string): TonAddress | undefined {
  if (typeof input !== 'string') return undefined;
  const text = input.trim();
  const raw = RAW.exec(text);
  if (raw) return { workchain: Number(raw[1]), hash: Buffer.from(raw[2]!, 'hex') };
  if (!FRIENDLY.test(text)) return undefined;
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length !== 36 || bytes.readUInt16BE(34) !== crc16Xmodem(bytes.subarray(0, 34))) return undefined;
  const tag = bytes[0]! & ~TAG_TEST_ONLY;
  if (tag !== TAG_BOUNCEABLE && tag !== TAG_NON_BOUNCEABLE) return undefined;
  return { workchain: bytes.readInt8(1), hash: Buffer.from(bytes.subarray(2, 34)), bounceable: tag === TAG_BOUNCEABLE, testOnly: (bytes[0]! & TAG_TEST_ONLY) !== 0 };
}

/**
 * The address in the service's one form (url-safe, non-bounceable, mainnet: `UQ...`), or
 * undefined for what is not a TON address, for a testnet-only address (its owner's wallet is on
 * testnet: mainnet funds sent there may never be seen), and for a workchain other than the
 * basechain (no wallet lives on the masterchain).
 */
export function canonicalTonAddress(input: string): string | undefined {
  const parsed = parseTonAddress(input);
  if (!parsed || parsed.testOnly || parsed.workchain !== BASECHAIN) return undefined;
  return friendly(BASECHAIN, parsed.hash, false);
}

/** The raw form (`0:<64 lowercase hex>`) of a canonical address: how toncenter's answers name accounts (upper case there). */
export function tonRawAddress(canonical: string): string {
  const parsed = parseTonAddress(canonical);
  if (!parsed) throw new RangeError(`not a TON address: ${canonical}`);
  return `${parsed.workchain}:${parsed.hash.toString('hex')}`;
}

/**
 * Contracts everyone knows that are not anyone's wallet, refused as a merchant's wallet: funds
 * sent to them are lost (a jetton master keeps what it is sent; nobody holds the zero
 * account's key). Their canonical forms; each checksum is checked by the unit tests.
 */
const KNOWN_CONTRACTS: ReadonlyMap<string, string> = new Map([
  // Tether's USD₮ jetton master (EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs).
  ['UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p', 'the USDT jetton master'],
  // The TON Bridge's jUSDT and jUSDC masters.
  ['UQBynBO23ywHy_CgarY9NK9FTz0yDsG82PtcbSTQgGoXwnZF', 'the jUSDT jetton master'],
  ['UQB-MPwrd1G6WKNkLz_VnV6WqBDd142KMQv-g1O-8QUA3-B5', 'the jUSDC jetton master'],
  // Notcoin's and DOGS' jetton masters.
  ['UQAvlWFDxGF2lXm67y4yzC17wYKD9A0guwPkMs1gOsM__I5W', 'the NOT jetton master'],
  ['UQCvxJy4eG8hyHBFsZ7eePxrRsUQSFE_jpptRAYBmcG_DLxX', 'the DOGS jetton master'],
  // 0:000…0, where burnt coins are sent.
  ['UQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAJKZ', 'the zero account'],
]);

/** True for a well-known contract that is no one's wallet (a jetton master, the zero account): never a merchant's wallet. */
export function isKnownTonContract(canonical: string): boolean {
  const normal = canonicalTonAddress(canonical);
  return normal !== undefined && KNOWN_CONTRACTS.has(normal);
}

/** What a known contract is, for a refusal's message; undefined for any other address. */
export function knownTonContract(canonical: string): string | undefined {
  const normal = canonicalTonAddress(canonical);
  return normal === undefined ? undefined : KNOWN_CONTRACTS.get(normal);
}

function checkedTarget(address: string): string {
  const canonical = canonicalTonAddress(address);
  if (canonical === undefined) throw new RangeError(`not a mainnet basechain TON address: ${address}`);
  return canonical;
}

function checkedUnits(units: bigint, what: string): bigint {
  if (typeof units !== 'bigint' || units < 0n) throw new RangeError(`${what} must be a non-negative integer`);
  return units;
}

/**
 * A TON transfer as wallets open it (Tonkeeper, Tonhub, MyTonWallet: the `ton://transfer`
 * deep link): `ton://transfer/<address>?amount=<nanotons>&text=<comment>`, the comment
 * percent-encoded. The address is written in its canonical form.
 *
 * @throws RangeError for an address that is not a mainnet basechain address, or a negative amount.
 */
export function tonTransferUri(address: string, nanotons: bigint, text: string): string {
  return `ton://transfer/${checkedTarget(address)}?amount=${checkedUnits(nanotons, 'amount')}&text=${encodeURIComponent(text)}`;
}

/**
 * A jetton transfer (USDT on TON) as wallets open it: `ton://transfer/<recipient>?jetton=<master>
 * &amount=<jetton units>&text=<comment>`: the wallet sends the jettons from its own jetton
 * wallet of that master to the recipient's, with the comment in the transfer's forward payload.
 *
 * @throws RangeError for a recipient or master that is not a mainnet basechain address, or a negative amount.
 */
export function usdtTonTransferUri(address: string, units: bigint, text: string, master: string): string {
  const jetton = parseTonAddress(master);
  if (!jetton || jetton.workchain !== BASECHAIN || jetton.testOnly) throw new RangeError(`jetton master is not a mainnet basechain TON address: ${master}`);
  // The master as the issuer writes it (bounceable: it is a contract).
  const masterForm = friendly(BASECHAIN, jetton.hash, true);
  return `ton://transfer/${checkedTarget(address)}?jetton=${masterForm}&amount=${checkedUnits(units, 'amount')}&text=${encodeURIComponent(text)}`;
}
