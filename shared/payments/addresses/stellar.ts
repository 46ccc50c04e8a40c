import { randomBytes } from 'node:crypto';
import { base32nopad } from '@scure/base';
import { crc16Xmodem } from '#shared/payments/addresses/crc16';

/**
 * Stellar accounts, muxed addresses and payment links for USDC_XLM (docs/merchant-guide.md "USDC on Stellar": a
 * merchant gives one account; each invoice gets a 64-bit id, paid either to the muxed address
 * of the account and the id or to the plain account with the id as a MEMO_ID):
 *
 * - an account is an ed25519 public key in StrKey form (SEP-23: version byte 6 << 3, `G...`,
 *   56 characters, CRC16-XMODEM checksum), read and written by {@link StrKeyCodec} here (a few
 *   lines over @scure/base's base32: @stellar/stellar-base's StrKey cannot be had without its
 *   whole XDR, 400 KB in every function's bundle; tests/unit/stellar-address.test.ts checks this
 *   codec against it);
 * - a muxed address (SEP-23, CAP-27: version byte 12 << 3, `M...`, 69 characters) is the
 *   account's 32 key bytes followed by the id as 8 bytes, most significant first: a wallet that
 *   pays it pays the account, and Horizon shows the id as the payment's `to_muxed_id`;
 * - a SEP-7 `web+stellar:pay` link asks a wallet for exactly that payment.
 *
 * Ids are written as canonical decimal strings (no sign, no leading zeros): 64 bits do not fit
 * a JavaScript number.
 */

const UINT64_MAX = (1n << 64n) - 1n;
/** Canonical decimal of at most 20 digits (2^64 - 1 has 20). */
const DECIMAL = /^(0|[1-9]\d{0,19})$/;
/** Stellar amounts: 7 decimals, at most 2^63 - 1 stroops (922337203685.4775807). */
const AMOUNT = /^(0|[1-9]\d{0,11})(?:\.(\d{1,7}))?$/;
const INT64_MAX = (1n << 63n) - 1n;
/** Asset codes: 1 to 12 letters and digits (alphanum4 or alphanum12). */
const ASSET_CODE = /^[A-Za-z0-9]{1,12}$/;
/** MEMO_TEXT holds at most 28 bytes. */
const MAX_MEMO_TEXT_BYTES = 28;

/**
 * StrKey (SEP-23): a version byte, the payload and its CRC16-XMODEM (little-endian), in base32
 * without padding. A string is read only in its canonical form (upper case, the exact length,
 * no stray bits in its last character), as stellar-base's StrKey reads it.
 */
const StrKeyCodec = {
  encode(version: number, payload: Uint8Array): string {
    const data = new Uint8Array(payload.length + 3);
    data[0] = version;
    data.set(payload, 1);
    const crc = crc16Xmodem(data.subarray(0, payload.length + 1));
    data[payload.length + 1] = crc & 0xff;
    data[payload.length + 2] = crc >> 8;
    return base32nopad.encode(data);
  },
  decode(version: number, text: string, payloadLength: number): Buffer | undefined {
    if (typeof text !== 'string' || !/^[A-Z2-7]+$/.test(text) || text.length !== Math.ceil(((payloadLength + 3) * 8) / 5)) return undefined;
    let data: Uint8Array;
    try {
      data = base32nopad.decode(text);
    } catch {
      return undefined;
    }
    if (data.length !== payloadLength + 3 || data[0] !== version) return undefined;
    const payload = data.subarray(1, payloadLength + 1);
    return StrKeyCodec.encode(version, payload) === text ? Buffer.from(payload) : undefined;
  },
};

/** SEP-23's version bytes: an ed25519 account (`G`) and a muxed account (`M`). */
const ACCOUNT_VERSION = 6 << 3;
const MUXED_VERSION = 12 << 3;

/** Whether `id` is a uint64 written as a canonical decimal (what a MEMO_ID and a muxed id are). */
export function isMemoId(id: string): boolean {
  return typeof id === 'string' && DECIMAL.test(id) && BigInt(id) <= UINT64_MAX;
}

/** Whether `account` is a Stellar account id (`G...`, an ed25519 public key with a valid checksum). */
export function isStellarAccount(account: string): boolean {
  return StrKeyCodec.decode(ACCOUNT_VERSION, account, 32) !== undefined;
}

/**
 * The muxed address (SEP-23 `M...`) of `account` and `id` (a decimal uint64).
 *
 * @throws RangeError when the account is not a `G...` account or the id not a decimal uint64.
 */
export function muxedAddress(account: string, id: string): string {
  if (!isStellarAccount(account)) throw new RangeError(`not a Stellar account: ${account}`);
  if (!isMemoId(id)) throw new RangeError(`a muxed id is a decimal uint64, got "${id}"`);
  const bytes = Buffer.alloc(40);
  StrKeyCodec.decode(ACCOUNT_VERSION, account, 32)!.copy(bytes, 0);
  bytes.writeBigUInt64BE(BigInt(id), 32);
  return StrKeyCodec.encode(MUXED_VERSION, bytes);
}

/** The account and id of a muxed address (`M...`), or undefined when it is not one (a wrong checksum, length or padding). */
export function parseMuxed(address: string): { account: string; id: string } | undefined {
  const bytes = StrKeyCodec.decode(MUXED_VERSION, address, 40);
  if (!bytes) return undefined;
  return { account: StrKeyCodec.encode(ACCOUNT_VERSION, bytes.subarray(0, 32)), id: bytes.readBigUInt64BE(32).toString() };
}

/** What a SEP-7 payment link asks for. */
export interface StellarPayRequest {
  /** The account (`G...`, with the id as `memo`) or the muxed address (`M...`, no memo). */
  destination: string;
  /** What the destination receives, in whole units (a plain decimal, at most 7 decimals). */
  amount: string;
  assetCode: string;
  assetIssuer: string;
  memo?: string;
  /** Default MEMO_ID; MEMO_TEXT holds at most 28 bytes. */
  memoType?: 'MEMO_ID' | 'MEMO_TEXT';
  /** Only for a network other than the public one (SEP-7 leaves it out for the public network). */
  networkPassphrase?: string;
}

/**
 * A SEP-7 `web+stellar:pay` link: `destination`, `amount`, `asset_code`, `asset_issuer`, then
 * `memo` and `memo_type` when there is a memo, and `network_passphrase` off the public network,
 * each value percent-encoded (a space is `%20`, as in SEP-7's examples, never `+`). A wallet
 * that cannot hold the asset pays with a path payment: what the destination receives is what
 * is asked.
 *
 * @throws RangeError for a destination that is neither an account nor a muxed address, a memo
 *   beside a muxed destination (its id is the memo), an amount that is not a plain positive
 *   decimal of at most 7 decimals, a malformed asset, or a memo of the wrong form.
 */
export function stellarPayUri(request: StellarPayRequest): string {
  const { destination, amount, assetCode, assetIssuer, memo, memoType = 'MEMO_ID', networkPassphrase } = request;
  const muxed = parseMuxed(destination) !== undefined;
  if (!muxed && !isStellarAccount(destination)) throw new RangeError(`not a Stellar account or muxed address: ${destination}`);
  if (muxed && memo !== undefined) throw new RangeError('a muxed destination carries its id: no memo beside it');
  const match = typeof amount === 'string' ? AMOUNT.exec(amount) : null;
  const stroops = match ? BigInt(match[1]! + (match[2] ?? '').padEnd(7, '0')) : 0n;
  if (stroops === 0n || stroops > INT64_MAX) throw new RangeError(`amount must be a plain positive decimal with at most 7 decimals: ${amount}`);
  if (!ASSET_CODE.test(assetCode)) throw new RangeError(`not an asset code: ${assetCode}`);
  if (!isStellarAccount(assetIssuer)) throw new RangeError(`not an issuer account: ${assetIssuer}`);
  const params: [string, string][] = [
    ['destination', destination],
    ['amount', amount],
    ['asset_code', assetCode],
    ['asset_issuer', assetIssuer],
  ];
  if (memo !== undefined) {
    if (memoType === 'MEMO_ID' ? !isMemoId(memo) : Buffer.byteLength(memo, 'utf8') > MAX_MEMO_TEXT_BYTES) {
      throw new RangeError(memoType === 'MEMO_ID' ? `a MEMO_ID is a decimal uint64, got "${memo}"` : `a MEMO_TEXT holds at most ${MAX_MEMO_TEXT_BYTES} bytes`);
    }
    params.push(['memo', memo], ['memo_type', memoType]);
  }
  if (networkPassphrase !== undefined) params.push(['network_passphrase', networkPassphrase]);
  return `web+stellar:pay?${params.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&')}`;
}

/**
 * A new invoice id: a random uint64 in [1, 2^63 - 1], as a decimal string. Not zero: some
 * wallets and exchanges read MEMO_ID 0 as no memo. Below 2^63: a MEMO_ID is unsigned, but
 * software that reads it as a signed 64-bit integer (Java's long, SQL's BIGINT, a JSON parser
 * into int64) turns a larger one negative or refuses it, and the buyer's payment would arrive
 * with no usable id; SEP-23 lists an id above the signed maximum among its test vectors for
 * exactly this mistake. 63 random bits keep collisions among open invoices negligible.
 *
 * @param random a source of random bytes (tests).
 */
export function newMemoId(random: (size: number) => Uint8Array = randomBytes): string {
  for (;;) {
    const id = Buffer.from(random(8)).readBigUInt64BE(0) & INT64_MAX;
    if (id !== 0n) return id.toString();
  }
}

/** The check of a buyer's refund address: where the refund is paid (the account) and the MEMO_ID it must carry, if any. */
export type StellarRefundAddressCheck = { ok: true; address: string; memo?: string } | { ok: false; reason: string };

/**
 * A buyer's address for a USDC_XLM refund: a `G...` account, with a MEMO_ID when the buyer's
 * exchange needs one (`memo`, digits), or a muxed `M...` address, whose id is that memo. Either
 * way the answer is the account the refund is paid to and the memo the payment carries: the
 * merchant pays the account with the memo as a MEMO_ID (or pays the muxed address itself; both
 * reach the same account with the same id, and the watcher reports both as the account and the
 * id). Text memos are refused: the watcher reads a MEMO_TEXT only when it is digits. Whether
 * the account exists and trusts USDC is asked of Horizon (horizon.ts `accountCheck`).
 *
 * @param options.issuer the USDC issuer: a refund paid to the issuer is burnt, not received.
 */
export function checkStellarRefundAddress(address: string, options: { memo?: string; issuer?: string } = {}): StellarRefundAddressCheck {
  const text = typeof address === 'string' ? address.trim() : '';
  const memo = options.memo?.trim() || undefined;
  const muxed = parseMuxed(text);
  if (muxed) {
    if (memo !== undefined && memo !== muxed.id) return { ok: false, reason: 'This muxed address (M…) already carries its id: give no memo beside it, or give the plain account (G…) with the memo.' };
    if (muxed.account === options.issuer) return { ok: false, reason: 'This is the USDC issuer, not a wallet: USDC sent there is burnt.' };
    return { ok: true, address: muxed.account, memo: muxed.id };
  }
  if (!isStellarAccount(text)) {
    if (/^S[A-Z2-7]{55}$/.test(text)) return { ok: false, reason: 'This is a secret key, not an address: never share it. Give your account (G…).' };
    if (/^C[A-Z2-7]{55}$/.test(text)) return { ok: false, reason: 'This is a contract address, not an account: give your account (G…) or muxed address (M…).' };
    if (/^[GM][A-Z2-7]{55}([A-Z2-7]{13})?$/.test(text)) return { ok: false, reason: 'This Stellar address has a typo: its checksum does not match. Copy it again from your wallet.' };
    return { ok: false, reason: 'This is not a Stellar account (G…) or muxed address (M…).' };
  }
  if (text === options.issuer) return { ok: false, reason: 'This is the USDC issuer, not a wallet: USDC sent there is burnt.' };
  if (memo === undefined) return { ok: true, address: text };
  if (!isMemoId(memo)) return { ok: false, reason: 'The memo must be a MEMO_ID: digits only, at most 18446744073709551615.' };
  return { ok: true, address: text, memo };
}
