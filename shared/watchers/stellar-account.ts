/**
 * Whether a Stellar account can receive USDC_XLM, asked when a merchant sets it (the CLI, the
 * portal's settings): it must exist and trust Circle's USDC, or every payment to it fails on
 * chain. Asked of the configured Horizon; without one there is nothing to ask (a live
 * merchant's USDC_XLM fails closed anyway) and the account is taken as it is.
 */
import { stellarSettings } from '#shared/chains/stellar';
import { isStellarAccount } from '#shared/payments/addresses/stellar';
import { accountCheck } from '#shared/watchers/sources/horizon';

/** Why `account` cannot receive USDC_XLM, in the merchant's words; undefined when it can (or nothing can tell). */
export async function stellarAccountProblem(account: string): Promise<string | undefined> {
  const { horizonUrl, issuer, passphrase, watched } = stellarSettings();
  if (!watched || !isStellarAccount(account)) return undefined;
  const checked = await accountCheck({ url: horizonUrl!, issuer, networkPassphrase: passphrase }, account);
  if (checked.ok) return undefined;
  return checked.reason === 'ACCOUNT_NOT_FOUND'
    ? `the XLM wallet ${account} does not exist on Stellar: fund it first (payments to a missing account fail)`
    : `the XLM wallet ${account} does not trust Circle's USDC (${issuer}): add the trustline first (USDC payments to it fail)`;
}
