/**
 * The wallet URI (and QR code) the merchant pays a refund with from their own wallet, in the
 * same forms the invoices use: BIP21 (BTC, LTC, BCH), EIP-681 (ether with its chain id; a token
 * as a `transfer` call on its contract with the chain id), TRON's `tron:` with the token,
 * Solana Pay's transfer request, the buyer's BOLT11 invoice (`lightning:`), EOS's `eos:` with
 * quantity and memo. Undefined until the refund has an address.
 */
import { chainOf, currency } from '#shared/domain/currencies';
import { formatFixed, parseDecimal, toMinorUnits } from '#shared/domain/money';
import type { Refund } from '#shared/domain/refund';
import { erc20TransferUri } from '#shared/payments/addresses/erc20-uri';
import { eosTransferUri, paymentUri, solanaPayUri, tronTokenUri } from '#shared/payments/addresses/uri';
import { evmSettings } from '#shared/chains/evm';
import { isSolanaCurrency, solanaSettings, solanaToken } from '#shared/chains/solana';
import { tonTransferUri, usdtTonTransferUri } from '#shared/payments/addresses/ton';
import { stellarPayUri } from '#shared/payments/addresses/stellar';
import { tonSettings } from '#shared/chains/ton';
import { stellarSettings } from '#shared/chains/stellar';
import { tronSettings } from '#shared/chains/tron';

export function refundPaymentUri(refund: Pick<Refund, 'currency' | 'amount' | 'address' | 'memo'>): string | undefined {
  const { address } = refund;
  if (!address) return undefined;
  const code = refund.currency;
  const info = currency(code);
  const amount = parseDecimal(refund.amount);
  const plain = formatFixed(amount, info.precision).replace(/\.?0+$/, '') || '0';
  try {
    if (code === 'BTC' || code === 'LTC' || code === 'BCH') return paymentUri(code, address, plain);
    if (code === 'LBTC') return `lightning:${address}`;
    if (code === 'EOS') return eosTransferUri(address, `${formatFixed(amount, 4)} EOS`, refund.memo);
    if (code === 'USDT_TRC20') return tronTokenUri(address, tronSettings().contract, plain);
    if (isSolanaCurrency(code)) return solanaPayUri(address, plain, solanaToken(solanaSettings(), code).mint);
    if (code === 'TON') return tonTransferUri(address, toMinorUnits(amount, info.precision), refund.memo ?? '');
    if (code === 'USDT_TON') return usdtTonTransferUri(address, toMinorUnits(amount, info.precision), refund.memo ?? '', tonSettings().usdtMaster);
    if (code === 'USDC_XLM') {
      const { issuer } = stellarSettings();
      return stellarPayUri({ destination: address, amount: plain, assetCode: 'USDC', assetIssuer: issuer, ...(refund.memo ? { memo: refund.memo, memoType: 'MEMO_ID' as const } : {}) });
    }
    const network = evmSettings()[chainOf(code)];
    if (!network) return undefined;
    if (code === network.native) return paymentUri('ETH', address, plain, { chainId: network.chainId });
    const contract = network.contracts[code];
    return contract ? erc20TransferUri(contract, network.chainId, address, amount, info.precision) : undefined;
  } catch {
    // An address the URI builders do not take (a test network's, in the sandbox): no QR code.
    return undefined;
  }
}
