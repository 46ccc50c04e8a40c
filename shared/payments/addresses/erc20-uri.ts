import { hexToBytes } from '@noble/hashes/utils.js';
import { toMinorUnits, type Decimal } from '#shared/domain/money';
import { toChecksumAddress } from '#shared/payments/addresses/eip55';
import { validateAddress } from '#shared/payments/addresses/validate';

/**
 * An EIP-681 URI for an ERC-20 token transfer, as wallets (MetaMask, Trust, Rainbow) open it:
 *
 *     ethereum:<token contract>@<chain id>/transfer?address=<recipient>&uint256=<token units>
 *
 * The amount is an integer count of the token's smallest unit (6 decimals for USDT and USDC),
 * computed exactly from the decimal amount. The contract is written in its EIP-55 form
 * whatever case it was configured in; the recipient must already be EIP-55.
 *
 * @throws RangeError for a contract or recipient that is not an address, a chain id that is
 *   not a positive integer, or an amount with more decimals than the token has.
 */
export function erc20TransferUri(contract: string, chainId: number, recipient: string, amount: Decimal, decimals: number): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(contract)) throw new RangeError(`contract is not an Ethereum address: ${contract}`);
  if (!validateAddress('ETH', recipient)) throw new RangeError(`recipient is not an EIP-55 Ethereum address: ${recipient}`);
  if (!Number.isSafeInteger(chainId) || chainId < 1) throw new RangeError(`invalid chain id: ${chainId}`);
  const units = toMinorUnits(amount, decimals);
  if (units < 0n) throw new RangeError('amount must not be negative');
  return `ethereum:${toChecksumAddress(hexToBytes(contract.slice(2)))}@${chainId}/transfer?address=${recipient}&uint256=${units}`;
}
