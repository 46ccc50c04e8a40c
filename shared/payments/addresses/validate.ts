import { bech32 } from '@scure/base';
import { CASHADDR_P2PKH_160, decodeCashAddr } from '#shared/payments/addresses/cashaddr';
import { isChecksumAddress } from '#shared/payments/addresses/eip55';
import { isTronAddress } from '#shared/payments/addresses/tron';
import { CASHADDR_PREFIX, SEGWIT_HRP, type AddressCurrency, type AddressOptions } from '#shared/payments/addresses/types';

/**
 * True when `address` is a well-formed address of the kind {@link deriveAddress} issues for
 * `currency` on the network (default mainnet), with a valid checksum:
 *
 * - BTC, LTC: bech32 (not bech32m), the network's hrp, witness v0, 20-byte program. Upper or
 *   lower case, never mixed (BIP173).
 * - BCH: CashAddr with the network's prefix spelled out, P2PKH, 160-bit hash, valid checksum.
 * - ETH: `0x` + 40 hex in exact EIP-55 mixed case; all-lowercase carries no checksum and is
 *   refused.
 * - TRX: base58check `T…` (0x41 and 20 bytes).
 *
 * Never throws.
 */
export function validateAddress(currency: AddressCurrency, address: string, opts?: AddressOptions): boolean {
  if (typeof address !== 'string') return false;
  const network = opts?.network ?? 'mainnet';
  switch (currency) {
    case 'BTC':
    case 'LTC': {
      const decoded = bech32.decodeUnsafe(address);
      if (!decoded || decoded.prefix !== SEGWIT_HRP[currency][network]) return false;
      const [witnessVersion, ...program] = decoded.words;
      return witnessVersion === 0 && bech32.fromWordsUnsafe(program)?.length === 20;
    }
    case 'BCH': {
      const decoded = decodeCashAddr(address);
      return decoded?.prefix === CASHADDR_PREFIX[network] && decoded.version === CASHADDR_P2PKH_160 && decoded.hash.length === 20;
    }
    case 'ETH':
      return isChecksumAddress(address);
    case 'TRX':
      return isTronAddress(address);
    default:
      return false;
  }
}
