/**
 * Checking a transaction a merchant reports for a refund (issue 30: "it is checked on chain
 * before it counts"), on the refund's chain through the source configured for it, the one its
 * watcher reads:
 *
 * - BTC, LTC, BCH: Esplora `GET /tx/:txid`, or Core RPC `getrawtransaction txid true` (and
 *   `getblockheader` for its block: the node needs -txindex for a transaction not in its wallet);
 * - every EVM network, native and tokens: `eth_getTransactionByHash` and
 *   `eth_getTransactionReceipt` (the receipt's status and Transfer logs of the configured token
 *   contracts; the block must still be the best chain's at its height);
 * - TRON: the solidified receipt (`/walletsolidity/gettransactioninfobyid`: SUCCESS and the USDT
 *   contract's Transfer logs to the address); Solana: `getTransaction` at finalized commitment
 *   (the buyer wallet's gain in the mint); EOS: Hyperion's `get_transaction` (eosio.token EOS
 *   transfers to the account with the refund's memo; irreversible when its block is);
 * - LBTC: a paid BOLT11 invoice cannot be seen by our node: the merchant reports the payment's
 *   preimage, proof of payment, since sha256(preimage) is the invoice's payment hash. Final at
 *   once, for the invoice's amount.
 *
 * The answer is what the transaction paid the refund's address in the refund's currency and
 * whether it is final (the currency's confirmations, as for invoices); the key is the one the
 * watcher books the same transfer under, so a transfer reported and then seen is one. A chain
 * with no configured source fails closed (found: false, with why: never accepted unchecked); a
 * source answering garbage throws SourceError, never a wrong amount.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { readSecureParameter } from '#shared/aws/parameters';
import { eosConfig } from '#shared/chains/eos';
import { chainOf, currency as currencyInfo } from '#shared/domain/currencies';
import { RefundCheckUnavailableError } from '#shared/domain/errors';
import { networkName } from '#shared/domain/networks';
import { add, type Decimal, formatDecimal, fromMinorUnits, ZERO } from '#shared/domain/money';
import type { Refund } from '#shared/domain/refund';
import { chainSourcesConfig } from '#shared/chains/sources';
import { confirmationsRequired } from '#shared/chains/confirmations';
import { decodeBolt11 } from '#shared/payments/lightning/bolt11';
import { solanaSettings } from '#shared/chains/solana';
import { tronSettings } from '#shared/chains/tron';
import { tonSettings } from '#shared/chains/ton';
import { stellarSettings } from '#shared/chains/stellar';
import type { RefundTxCheck } from '#shared/services/refunds/payments';
import type { SecretReader } from '#shared/watchers/runnable';
import { blockSourceFor, hyperionTransfers, solanaTransfers, stellarPayments, tonTransfers, tronTransfers } from '#shared/watchers/wiring';
import type { HyperionTransfers } from '#shared/watchers/sources/hyperion';
import type { BlockSource, Transfer } from '#shared/watchers/sources/port';
import type { SolanaTransfers } from '#shared/watchers/sources/solana';
import type { TronTransfers } from '#shared/watchers/sources/tron';

type CheckResult = Awaited<ReturnType<RefundTxCheck>>;

const notFound = (reason: string): CheckResult => ({ found: false, reason });
const nothingWatched = async () => [];

/** EVM addresses are one account whatever their case; every other form is compared as written (base58 is case-sensitive). */
const sameAddress = (a: string, b: string): boolean => a === b || (a.startsWith('0x') && a.toLowerCase() === b.toLowerCase());

/** The refund's address's transfers among `transfers`, summed, keyed by the first (the watcher's key of it). */
function paidTo(refund: Refund, transfers: readonly Transfer[]): { key: string; amount: Decimal } | undefined {
  const ours = transfers.filter((transfer) => transfer.currency === refund.currency && sameAddress(transfer.address, refund.address!) && (refund.memo === undefined || transfer.memo === refund.memo));
  if (ours.length === 0) return undefined;
  return { key: ours[0]!.key, amount: ours.reduce<Decimal>((sum, transfer) => add(sum, transfer.amount), ZERO) };
}

/** Where the check reads each chain family; undefined: no source configured (fail closed). */
export interface RefundCheckSources {
  block(chain: string): Promise<BlockSource | undefined>;
  tron(): TronTransfers | undefined;
  solana(): SolanaTransfers | undefined;
  eos(): HyperionTransfers | undefined;
  /** TON's and Stellar's indexes: what they serve is final. */
  indexed(chain: 'TON' | 'STELLAR'): { transaction(hash: string): Promise<Transfer[] | undefined> } | undefined;
}

/** The configured sources, the watchers' own; an endpoint kept in SSM read with `readSecret`. */
export function configuredSources(readSecret: SecretReader = readSecureParameter): RefundCheckSources {
  return {
    block: async (chain) => {
      const config = chainSourcesConfig().sources.find((source) => source.chain === chain);
      return config ? blockSourceFor(config, readSecret) : undefined;
    },
    tron: () => (tronSettings().watched ? tronTransfers(nothingWatched) : undefined),
    solana: () => (solanaSettings().watched ? solanaTransfers(nothingWatched) : undefined),
    eos: () => (eosConfig().watched ? hyperionTransfers() : undefined),
    indexed: (chain) => {
      if (chain === 'TON') return tonSettings().watched ? tonTransfers(nothingWatched) : undefined;
      return stellarSettings().watched ? stellarPayments(nothingWatched) : undefined;
    },
  };
}

/** No source of the refund's chain: the transaction cannot be checked, so it is refused as such (fail closed). */
const unconfigured = (refund: Refund): never => {
  throw new RefundCheckUnavailableError(networkName(refund.currency) ?? refund.currency);
};

/** The check of each chain family, through `sources`. */
export function refundTransactionCheck(sources: RefundCheckSources = configuredSources()): RefundTxCheck {
  return async (refund, reported) => {
    if (refund.address === undefined) return notFound('the refund has no address yet');
    const txid = reported.trim();
    if (refund.currency === 'LBTC') return checkPreimage(refund, txid);
    const chain = chainOf(refund.currency);
    if (chain === 'EOS') {
      const source = sources.eos();
      return source ? checkEos(refund, txid.toLowerCase(), source) : unconfigured(refund);
    }
    if (chain === 'TRON' || chain === 'SOLANA') {
      const source = chain === 'TRON' ? sources.tron() : sources.solana();
      return source ? checkTokenAccount(refund, chain === 'TRON' ? txid.toLowerCase() : txid, chain, source) : unconfigured(refund);
    }
    if (chain === 'TON' || chain === 'STELLAR') {
      const source = sources.indexed(chain);
      if (!source) return unconfigured(refund);
      // TON's hashes are hex (any case); Stellar's are hex, lowercase on Horizon.
      const transfers = await source.transaction(txid.toLowerCase());
      if (transfers === undefined) return notFound(`${networkName(refund.currency) ?? chain} does not know the transaction ${txid}`);
      const paid = paidTo(refund, transfers);
      if (!paid) return notFound(`the transaction pays nothing in ${refund.currency} to the refund's address${refund.memo ? ' with its memo' : ''}`);
      return { found: true, key: paid.key, amount: formatDecimal(paid.amount), final: true };
    }
    const source = await sources.block(chain);
    if (!source) return unconfigured(refund);
    // The tip first: the source's chain check, and the confirmations.
    const tip = await source.tip();
    const transfers = await source.transaction?.(chain === 'BTC' || chain === 'LTC' || chain === 'BCH' ? txid.toLowerCase() : txid);
    if (transfers === undefined) return notFound(`${chain} does not know the transaction ${txid}`);
    const paid = paidTo(refund, transfers);
    if (!paid) return notFound(`the transaction pays nothing in ${refund.currency} to the refund's address`);
    const block = transfers.find((transfer) => transfer.key === paid.key)!.block;
    const final = block !== undefined && tip.height - block.height + 1 >= confirmationsRequired(refund.currency);
    return { found: true, key: paid.key, amount: formatDecimal(paid.amount), final };
  };
}

/** TRON (solidified receipts) and Solana (finalized transactions): final when found; the key is the watcher's `<txid>:<address>`. */
async function checkTokenAccount(refund: Refund, txid: string, chain: 'TRON' | 'SOLANA', source: TronTransfers | SolanaTransfers): Promise<CheckResult> {
  const paid = chain === 'SOLANA' ? await (source as SolanaTransfers).paidBy(txid, refund.address!, refund.currency) : await (source as TronTransfers).paidBy(txid, refund.address!);
  if (!paid) return notFound(`${chain} has no ${chain === 'TRON' ? 'solidified' : 'finalized'} transaction ${txid} (a transaction just sent is there within a minute)`);
  if (!paid.success) return notFound(`the transaction ${txid} failed`);
  if (paid.units <= 0n) return notFound(`the transaction pays nothing in ${refund.currency} to the refund's address`);
  return { found: true, key: `${txid}:${refund.address!}`, amount: formatDecimal(fromMinorUnits(paid.units, currencyInfo(refund.currency).precision)), final: true };
}

/** EOS: the transfers to the buyer's account with the refund's memo; final once its block is irreversible. */
async function checkEos(refund: Refund, txid: string, source: HyperionTransfers): Promise<CheckResult> {
  const found = await source.transaction(txid);
  if (!found) return notFound(`EOS history does not know the transaction ${txid}`);
  const memo = refund.memo?.trim() ?? '';
  const paid = paidTo(
    { ...refund, memo: undefined },
    found.transfers.filter((transfer) => (transfer.memo ?? '') === memo),
  );
  if (!paid) return notFound("the transaction pays nothing in EOS to the refund's account with its memo");
  const block = found.transfers.find((transfer) => transfer.key === paid.key)!.block!;
  return { found: true, key: paid.key, amount: formatDecimal(paid.amount), final: block.height <= found.lib };
}

/**
 * LBTC: the "transaction id" is the payment's preimage (64 hex digits, as wallets show it): it
 * proves the invoice was paid, since only the payee knows it until it is. The key is the
 * payment hash, as LND settlements are keyed.
 */
function checkPreimage(refund: Refund, reported: string): CheckResult {
  if (!/^[0-9a-fA-F]{64}$/.test(reported)) return notFound('for a Lightning refund, report the payment preimage your wallet shows (64 hex digits)');
  let invoice;
  try {
    invoice = decodeBolt11(refund.address!);
  } catch {
    return notFound("the refund's Lightning invoice cannot be read");
  }
  const hash = bytesToHex(sha256(hexToBytes(reported.toLowerCase())));
  if (hash !== bytesToHex(invoice.paymentHash)) return notFound("the preimage is not the refund invoice's: its hash is not the invoice's payment hash");
  if (invoice.amountMsat === undefined) return notFound("the refund's Lightning invoice names no amount");
  return { found: true, key: hash, amount: formatDecimal(fromMinorUnits(invoice.amountMsat, 11)), final: true };
}

/** The check the report-txid handlers use: the configured sources, endpoints kept in SSM read with the watchers' reader. */
export const checkRefundTransaction: RefundTxCheck = refundTransactionCheck();
