/**
 * Receiving addresses for crypto payments, derived from account-level extended PUBLIC keys.
 * Pure: no I/O, and no private key is ever accepted.
 */
export { deriveAddress, deriveChainAddress, type AddressChain } from '#shared/payments/addresses/derive';
export { InvalidExtendedKeyError, type InvalidExtendedKeyReason } from '#shared/payments/addresses/errors';
export type { AddressCurrency, AddressNetwork, AddressOptions } from '#shared/payments/addresses/types';
export { eosTransferUri, paymentUri, type PaymentUriExtras, solanaPayUri, tronTokenUri } from '#shared/payments/addresses/uri';
export { validateAddress } from '#shared/payments/addresses/validate';
