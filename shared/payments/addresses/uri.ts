import type { AddressCurrency } from '#shared/payments/addresses/types';
import { validateAddress } from '#shared/payments/addresses/validate';

/** Optional payment URI fields. Passing one the currency's URI scheme lacks is an error. */
export interface PaymentUriExtras {
  /** BIP21 `label` (BTC, LTC, BCH): who is being paid. */
  label?: string;
  /** BIP21 `message` (BTC, LTC, BCH): what the payment is for. */
  message?: string;
  /** EIP-681 chain id (ETH only); defaults to 1, Ethereum mainnet. */
  chainId?: number;
}

/** Decimals of each currency's smallest on-chain unit (satoshi, litoshi, wei). */
const DECIMALS: Record<AddressCurrency, number> = { BTC: 8, LTC: 8, BCH: 8, ETH: 18, TRX: 6 };
const BIP21_SCHEME = { BTC: 'bitcoin', LTC: 'litecoin' } as const;
const WEI_DECIMALS = DECIMALS.ETH;
/** Plain decimal, no sign, exponent or leading zeros: "0.00153846", "1.5", "2". */
const AMOUNT_PATTERN = /^(0|[1-9]\d*)(?:\.(\d+))?$/;

/**
 * A wallet payment URI for `amount` (a decimal string in whole coins, kept exact):
 *
 * - BTC: `bitcoin:ADDR?amount=…`, LTC: `litecoin:ADDR?amount=…` (BIP21, amount unchanged)
 * - BCH: `bitcoincash:q…?amount=…` (the CashAddr already is `prefix:payload`)
 * - ETH: `ethereum:0xADDR@1?value=<wei>` (EIP-681, value as an integer number of wei)
 * - TRX: `tron:T…?amount=…` (TRX; a TRC-20 token's URI names its contract: {@link tronTokenUri})
 *
 * @throws RangeError for an address that is not valid for the currency on mainnet or testnet,
 *   an amount that is not a plain decimal or has more decimals than the smallest unit, or an
 *   extra the currency's scheme does not have.
 */
export function paymentUri(currency: AddressCurrency, address: string, amount: string, extras: PaymentUriExtras = {}): string {
  if (!validateAddress(currency, address) && !validateAddress(currency, address, { network: 'testnet' })) {
    throw new RangeError(`not a valid ${currency} address: ${address}`);
  }
  const match = typeof amount === 'string' ? AMOUNT_PATTERN.exec(amount) : null;
  const [, whole = '', fraction = ''] = match ?? [];
  if (!match || fraction.length > DECIMALS[currency]) {
    throw new RangeError(`amount must be a plain decimal with at most ${DECIMALS[currency]} decimals: ${amount}`);
  }

  if (currency === 'ETH') {
    if (extras.label !== undefined || extras.message !== undefined) {
      throw new RangeError('EIP-681 has no label or message parameter');
    }
    const chainId = extras.chainId ?? 1;
    if (!Number.isSafeInteger(chainId) || chainId < 1) throw new RangeError(`invalid chain id: ${chainId}`);
    // Exact: shift the decimal point by string padding, never through a float.
    const wei = BigInt(whole + fraction.padEnd(WEI_DECIMALS, '0'));
    return `ethereum:${address}@${chainId}?value=${wei.toString()}`;
  }

  if (extras.chainId !== undefined) throw new RangeError('chainId applies to ETH only');
  if (currency === 'TRX') {
    if (extras.label !== undefined || extras.message !== undefined) throw new RangeError('TRON URIs have no label or message');
    return `tron:${address}?amount=${amount}`;
  }
  const params = [`amount=${amount}`];
  if (extras.label !== undefined) params.push(`label=${encodeURIComponent(extras.label)}`);
  if (extras.message !== undefined) params.push(`message=${encodeURIComponent(extras.message)}`);
  const target = currency === 'BCH' ? address : `${BIP21_SCHEME[currency]}:${address}`;
  return `${target}?${params.join('&')}`;
}

/**
 * A TRC-20 token transfer (TRON has no URI standard; wallets read this form):
 * `tron:<address>?token=<contract>&amount=<amount in token units>`.
 */
export const tronTokenUri = (address: string, contract: string, amount: string): string => `tron:${address}?token=${contract}&amount=${amount}`;

/**
 * A Solana Pay transfer request of an SPL token: `solana:<wallet>?amount=..&spl-token=<mint>`,
 * with the invoice's `reference` key when there is one (a refund has none).
 */
export const solanaPayUri = (wallet: string, amount: string, mint: string, reference?: string): string =>
  `solana:${wallet}?amount=${amount}&spl-token=${mint}${reference ? `&reference=${reference}` : ''}`;

/** An EOS transfer: `eos:<account>?quantity=<"1.0000 EOS">&memo=<memo>` (both encoded). */
export const eosTransferUri = (account: string, quantity: string, memo?: string): string => `eos:${account}?quantity=${encodeURIComponent(quantity)}${memo ? `&memo=${encodeURIComponent(memo)}` : ''}`;
