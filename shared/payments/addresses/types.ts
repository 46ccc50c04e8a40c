/** Currencies this module can derive receiving addresses for. */
export type AddressCurrency = 'BTC' | 'LTC' | 'BCH' | 'ETH' | 'TRX';

/** Which chain the address lives on. ETH addresses look the same on both; TRX keys are mainnet ones. */
export type AddressNetwork = 'mainnet' | 'testnet';

/** Options shared by {@link deriveAddress} and {@link validateAddress}. */
export interface AddressOptions {
  /** Defaults to `'mainnet'`. */
  network?: AddressNetwork;
}

/** Bech32 human-readable parts for the segwit currencies (BIP173, Litecoin's `ltc`/`tltc`). */
export const SEGWIT_HRP = {
  BTC: { mainnet: 'bc', testnet: 'tb' },
  LTC: { mainnet: 'ltc', testnet: 'tltc' },
} as const satisfies Record<'BTC' | 'LTC', Record<AddressNetwork, string>>;

/** CashAddr prefixes for Bitcoin Cash. */
export const CASHADDR_PREFIX = {
  mainnet: 'bitcoincash',
  testnet: 'bchtest',
} as const satisfies Record<AddressNetwork, string>;
