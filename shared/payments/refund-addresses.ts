/**
 * The check of an address a buyer gives for a refund: it must be able to receive the refund's
 * currency on its network. What is checked (docs/merchant-guide.md "Refunds"):
 *
 * - BTC, LTC: segwit (bech32 v0 with a 20- or 32-byte program, bech32m v1+) or base58check
 *   (P2PKH, P2SH) with the network's prefix and a valid checksum.
 * - BCH: CashAddr (P2PKH or P2SH, `bitcoincash:` may be left out) with a valid checksum; the
 *   legacy form is refused (it reads as a Bitcoin address).
 * - Every EVM network: `0x` + 40 hex in EIP-55 mixed case (all one case carries no checksum);
 *   not the zero address, a precompile, or a token contract of any EVM network this service
 *   knows (the configured ones too): tokens sent there are lost.
 * - USDT_TRC20: a base58check TRON address, not the token contract.
 * - USDC_SOL: a Solana wallet (an ed25519 key): not the mint, a program, or a program-derived
 *   address such as a token account (the wallet sending the refund derives that itself).
 * - LBTC: a signed BOLT11 invoice on Bitcoin's network for exactly the refund's amount, valid
 *   for at least an hour more.
 * - EOS: an account name (a-z, 1-5, dots, at most 12) that is not a system account; the memo
 *   at most 256 bytes.
 *
 * Live merchants' refunds take mainnet addresses only (as their invoices are); a sandbox refund
 * also takes the test networks'. An address of another kind is refused with what it looks like.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import { currency as currencyOf, isGateway } from '#shared/domain/currencies';
import { compare, parseDecimal, toMinorUnits } from '#shared/domain/money';
import { evmNetwork, EVM_NETWORKS, networkName } from '#shared/domain/networks';
import type { Refund } from '#shared/domain/refund';
import { CASHADDR_P2PKH_160, decodeCashAddr } from '#shared/payments/addresses/cashaddr';
import { isChecksumAddress } from '#shared/payments/addresses/eip55';
import { isSolanaAddress } from '#shared/payments/addresses/solana';
import { ASSOCIATED_TOKEN_PROGRAM_ID, onCurve, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '#shared/payments/addresses/solana-token-account';
import { isTronAddress } from '#shared/payments/addresses/tron';
import { evmSettings } from '#shared/chains/evm';
import { decodeBolt11 } from '#shared/payments/lightning/bolt11';
import { isSolanaCurrency, MAINNET_PYUSD_MINT, MAINNET_USDC_SOL_MINT, solanaSettings } from '#shared/chains/solana';
import { canonicalTonAddress, knownTonContract, parseTonAddress } from '#shared/payments/addresses/ton';
import { checkStellarRefundAddress } from '#shared/payments/addresses/stellar';
import { stellarSettings } from '#shared/chains/stellar';
import { MAINNET_USDT_TRC20, tronSettings } from '#shared/chains/tron';

export type RefundAddressCheck = { ok: true; address: string; memo?: string } | { ok: false; reason: string };

/** A Lightning invoice must stay payable this long after the buyer gives it (the merchant pays it by hand). */
export const MIN_INVOICE_VALIDITY_SECONDS = 3600;

/** The longest memo an EOS transfer carries (bytes). */
export const MAX_EOS_MEMO_BYTES = 256;

const base58check = createBase58check(sha256);

/** What makes a UTXO chain's addresses: segwit hrp and base58 version bytes, mainnet and test networks. */
const UTXO: Readonly<Record<'BTC' | 'LTC', { name: string; hrp: readonly string[]; testHrp: readonly string[]; versions: readonly number[]; testVersions: readonly number[] }>> = {
  BTC: { name: 'Bitcoin', hrp: ['bc'], testHrp: ['tb', 'bcrt'], versions: [0x00, 0x05], testVersions: [0x6f, 0xc4] },
  LTC: { name: 'Litecoin', hrp: ['ltc'], testHrp: ['tltc', 'rltc'], versions: [0x30, 0x32, 0x05], testVersions: [0x6f, 0x3a, 0xc4] },
};

const CASHADDR_P2SH_160 = 0x08;

const refuse = (reason: string): RefundAddressCheck => ({ ok: false, reason });

/** A segwit address's hrp and whether its program is well formed (BIP173/BIP350), or undefined. */
function segwit(address: string): { hrp: string } | undefined {
  if (address.length > 90 || (address !== address.toLowerCase() && address !== address.toUpperCase())) return undefined;
  const lower = address.toLowerCase() as `${string}1${string}`;
  for (const [codec, isV0] of [
    [bech32, true],
    [bech32m, false],
  ] as const) {
    const decoded = codec.decodeUnsafe(lower);
    if (!decoded || decoded.words.length === 0) continue;
    const [version, ...data] = decoded.words;
    const program = codec.fromWordsUnsafe(data);
    if (!program || version === undefined || version > 16) return undefined;
    if ((version === 0) !== isV0) return undefined;
    if (version === 0 ? program.length !== 20 && program.length !== 32 : program.length < 2 || program.length > 40) return undefined;
    return { hrp: decoded.prefix };
  }
  return undefined;
}

/** A base58check address's version byte (21 bytes: version and a 20-byte hash), or undefined. */
function base58Version(address: string): number | undefined {
  if (!/^[1-9A-HJ-NP-Za-km-z]{25,35}$/.test(address)) return undefined;
  try {
    const bytes = base58check.decode(address);
    return bytes.length === 21 ? bytes[0] : undefined;
  } catch {
    return undefined;
  }
}

/** What an address looks like, for the reason a wrong one is refused. */
function looksLike(address: string): string | undefined {
  const hrp = segwit(address)?.hrp;
  if (hrp) {
    for (const chain of Object.values(UTXO)) {
      if (chain.hrp.includes(hrp)) return `a ${chain.name} address`;
      if (chain.testHrp.includes(hrp)) return `a ${chain.name} test network address`;
    }
  }
  const version = base58Version(address);
  if (version !== undefined) {
    if (version === 0x41) return 'a TRON address';
    if (version === 0x30 || version === 0x32) return 'a Litecoin address';
    if (version === 0x00 || version === 0x05) return 'a Bitcoin address';
    return 'a test network address';
  }
  if (isTronAddress(address)) return 'a TRON address';
  if (decodeCashAddr(address.includes(':') ? address : `bitcoincash:${address}`)) return 'a Bitcoin Cash address';
  if (/^0x[0-9a-fA-F]{40}$/.test(address)) return 'an Ethereum-style (EVM) address';
  if (/^(lightning:)?ln(bc|tb|bcrt)/i.test(address)) return 'a Lightning invoice';
  if (isSolanaAddress(address)) return 'a Solana address';
  if (/^[a-z1-5.]{1,12}$/.test(address)) return 'an EOS account name';
  return undefined;
}

/** "… but this refund is paid in USDT_ERC20 on Ethereum": the reason for an address of another kind. */
function wrongKind(address: string, code: string, expected: string): RefundAddressCheck {
  const network = networkName(code) ?? code;
  const seen = looksLike(address);
  return refuse(seen ? `This is ${seen}, but this refund is paid in ${code} on ${network}: give ${expected}.` : `This is not ${expected} (this refund is paid in ${code} on ${network}).`);
}

function checkUtxo(code: 'BTC' | 'LTC', address: string, sandbox: boolean): RefundAddressCheck {
  const chain = UTXO[code];
  const expected = `a ${chain.name} address`;
  const hrp = segwit(address)?.hrp;
  if (hrp !== undefined) {
    if (chain.hrp.includes(hrp) || (sandbox && chain.testHrp.includes(hrp))) return { ok: true, address: address.toLowerCase() };
    if (chain.testHrp.includes(hrp)) return refuse(`This is a ${chain.name} test network address; this refund is paid on ${chain.name} itself (mainnet).`);
    return wrongKind(address, code, expected);
  }
  const version = base58Version(address);
  if (version !== undefined) {
    if (chain.versions.includes(version) || (sandbox && chain.testVersions.includes(version))) return { ok: true, address };
    if (chain.testVersions.includes(version) && !chain.versions.includes(version)) return refuse(`This is a test network address; this refund is paid on ${chain.name} itself (mainnet).`);
    return wrongKind(address, code, expected);
  }
  if (/^(bc|tb|bcrt|ltc|tltc)1/i.test(address) || /^[13LMmn2Q]/.test(address)) return refuse(`This ${chain.name} address has a typo: its checksum does not match. Copy it again from your wallet.`);
  return wrongKind(address, code, expected);
}

function checkBitcoinCash(address: string, sandbox: boolean): RefundAddressCheck {
  const prefixed = address.includes(':') ? address : `bitcoincash:${address}`;
  const decoded = decodeCashAddr(prefixed) ?? (sandbox && !address.includes(':') ? decodeCashAddr(`bchtest:${address}`) : undefined);
  if (!decoded) {
    if (base58Version(address) === 0x00 || base58Version(address) === 0x05) {
      return refuse('This is a legacy-format address, which reads as a Bitcoin address too: give the CashAddr form (bitcoincash:q…).');
    }
    if (/^(bitcoincash:)?[qp][02-9ac-hj-np-z]{41}$/i.test(address)) return refuse('This Bitcoin Cash address has a typo: its checksum does not match. Copy it again from your wallet.');
    return wrongKind(address, 'BCH', 'a Bitcoin Cash address (bitcoincash:q…)');
  }
  const prefixes = sandbox ? ['bitcoincash', 'bchtest', 'bchreg'] : ['bitcoincash'];
  if (!prefixes.includes(decoded.prefix)) return refuse(`This is a ${decoded.prefix} address; this refund is paid on Bitcoin Cash itself (bitcoincash:).`);
  if ((decoded.version !== CASHADDR_P2PKH_160 && decoded.version !== CASHADDR_P2SH_160) || decoded.hash.length !== 20) {
    return refuse('This CashAddr is of a kind wallets do not receive coins at (not P2PKH or P2SH).');
  }
  return { ok: true, address: prefixed.toLowerCase() };
}

/** Every token contract of every EVM network, configured and official (lower case), with its code and network. */
function evmContracts(): Map<string, string> {
  const contracts = new Map<string, string>();
  for (const network of EVM_NETWORKS) {
    for (const [code, contract] of Object.entries(network.tokens)) contracts.set(contract.toLowerCase(), `the ${code} token contract on ${network.name}`);
  }
  for (const settings of Object.values(evmSettings())) {
    for (const [code, contract] of Object.entries(settings.contracts)) contracts.set(contract.toLowerCase(), `the ${code} token contract on ${settings.name}`);
  }
  return contracts;
}

function checkEvm(code: string, address: string): RefundAddressCheck {
  const network = evmNetwork(currencyOf(code).chain ?? code)?.name ?? code;
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return wrongKind(address, code, `an address on ${network} (0x…)`);
  const hex = address.slice(2);
  if (/^0+$/.test(hex)) return refuse('This is the zero address: nothing sent there can be spent.');
  if (!isChecksumAddress(address)) {
    // All one case (and not what the checksum spells): no checksum at all, so a typo would pass unseen.
    if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return refuse('This address is all one case, so it carries no checksum: copy it from your wallet in its mixed-case (EIP-55) form.');
    return refuse('This address has a typo: its EIP-55 checksum does not match. Copy it again from your wallet.');
  }
  const contract = evmContracts().get(address.toLowerCase());
  if (contract) return refuse(`This is ${contract}, not a wallet: tokens sent there are lost. Give your own wallet's address on ${network}.`);
  if (/^0{38}/.test(hex)) return refuse('This is a precompiled contract address, not a wallet.');
  return { ok: true, address };
}

function checkTron(address: string): RefundAddressCheck {
  if (!isTronAddress(address)) {
    if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return refuse('This TRON address has a typo: its checksum does not match. Copy it again from your wallet.');
    return wrongKind(address, 'USDT_TRC20', 'a TRON address (T…)');
  }
  if (address === tronSettings().contract || address === MAINNET_USDT_TRC20) return refuse('This is the USDT token contract on TRON, not a wallet: tokens sent there are lost.');
  return { ok: true, address };
}

function checkSolana(code: string, address: string): RefundAddressCheck {
  if (!isSolanaAddress(address)) return wrongKind(address, code, 'a Solana wallet address');
  const programs = new Map([
    [solanaSettings().mint, 'the USDC mint'],
    [MAINNET_USDC_SOL_MINT, 'the USDC mint'],
    ...(solanaSettings().pyusdMint !== undefined ? ([[solanaSettings().pyusdMint!, 'the PYUSD mint']] as const) : []),
    [MAINNET_PYUSD_MINT, 'the PYUSD mint'],
    [TOKEN_PROGRAM_ID, 'the SPL Token program'],
    [TOKEN_2022_PROGRAM_ID, 'the Token-2022 program'],
    [ASSOCIATED_TOKEN_PROGRAM_ID, 'the Associated Token program'],
    ['11111111111111111111111111111111', 'the System program'],
  ]);
  const known = programs.get(address);
  if (known) return refuse(`This is ${known}, not a wallet: give your own wallet's address.`);
  if (!onCurve(base58.decode(address))) {
    return refuse(`This is a program-derived address (such as a token account), not a wallet: give your wallet's own address; the refund goes to its ${code === 'PYUSD' ? 'PYUSD' : 'USDC'} account.`);
  }
  return { ok: true, address };
}

function checkLightning(refund: Pick<Refund, 'amount' | 'sandbox'>, given: string, now: Date): RefundAddressCheck {
  const invoice = given.replace(/^lightning:/i, '');
  if (!/^ln(bc|tb|bcrt)/i.test(invoice)) return wrongKind(given, 'LBTC', 'a Lightning invoice (lnbc…)');
  let decoded;
  try {
    decoded = decodeBolt11(invoice);
  } catch (error) {
    return refuse(`This Lightning invoice cannot be read (${(error as Error).message}): copy it again from your wallet.`);
  }
  if (!decoded.signatureValid) return refuse('This Lightning invoice is not validly signed: copy it again from your wallet.');
  if (decoded.network !== 'bc' && !refund.sandbox) return refuse('This Lightning invoice is for a test network; this refund is paid on Bitcoin itself (lnbc…).');
  const expected = toMinorUnits(parseDecimal(refund.amount), currencyOf('LBTC').precision);
  if (decoded.amountMsat === undefined) return refuse(`This Lightning invoice has no amount: make one for exactly ${refund.amount} BTC (${expected / 1000n} sat).`);
  if (compare({ units: decoded.amountMsat, scale: 0 }, { units: expected, scale: 0 }) !== 0) {
    return refuse(`This Lightning invoice is for ${decoded.amountMsat} msat, not the refund's ${expected} msat: make one for exactly ${refund.amount} BTC.`);
  }
  const expiresAt = (decoded.timestamp + decoded.expirySeconds) * 1000;
  if (expiresAt < now.getTime() + MIN_INVOICE_VALIDITY_SECONDS * 1000) {
    return refuse(
      `This Lightning invoice expires ${expiresAt <= now.getTime() ? 'already' : 'too soon'}: make one valid for at least ${MIN_INVOICE_VALIDITY_SECONDS / 3600} hour(s) more (a day is safer).`,
    );
  }
  return { ok: true, address: invoice.toLowerCase() };
}

/** The longest comment a TON refund carries (bytes): what fits one cell beside the op (127 bytes less 4), as wallets send it. */
export const MAX_TON_COMMENT_BYTES = 123;

/** A TON wallet (any form, kept canonical), not a known contract; the comment an exchange's deposit needs, if any. */
function checkTon(code: string, address: string, memo: string | undefined): RefundAddressCheck {
  const canonical = canonicalTonAddress(address);
  if (canonical === undefined) {
    if (parseTonAddress(address)?.testOnly) return refuse('This TON address is a testnet one; this refund is paid on TON mainnet.');
    return wrongKind(address, code, 'a TON wallet address (UQ… or EQ…)');
  }
  const contract = knownTonContract(canonical);
  if (contract) return refuse(`This is ${contract}, not a wallet: coins sent there are lost.`);
  const comment = memo?.trim();
  if (comment !== undefined && Buffer.byteLength(comment, 'utf8') > MAX_TON_COMMENT_BYTES) return refuse(`The comment is longer than ${MAX_TON_COMMENT_BYTES} bytes.`);
  return { ok: true, address: canonical, ...(comment ? { memo: comment } : {}) };
}

function checkEos(address: string, memo: string | undefined): RefundAddressCheck {
  if (!/^[a-z1-5.]{1,12}$/.test(address) || address.endsWith('.')) return wrongKind(address, 'EOS', 'an EOS account name (a-z, 1-5 and dots, at most 12 characters)');
  if (address === 'eosio' || address.startsWith('eosio.')) return refuse('This is an EOS system account, not yours: give your own account name.');
  if (memo !== undefined && Buffer.byteLength(memo, 'utf8') > MAX_EOS_MEMO_BYTES) return refuse(`The memo is longer than ${MAX_EOS_MEMO_BYTES} bytes.`);
  return { ok: true, address, ...(memo ? { memo } : {}) };
}

/** Checks an address (and for EOS a memo) for a refund's currency and network; never throws. */
export function checkRefundAddress(refund: Pick<Refund, 'currency' | 'amount' | 'sandbox'>, given: unknown, memo: unknown, now: Date): RefundAddressCheck {
  if (typeof given !== 'string' || given.trim() === '') return refuse('address is required');
  const address = given.trim();
  if (address.length > 1500) return refuse('This is too long for an address or a Lightning invoice.');
  if (memo !== undefined && typeof memo !== 'string') return refuse('memo must be a string');
  if (memo !== undefined && !['EOS', 'TON', 'USDT_TON', 'USDC_XLM'].includes(refund.currency) && memo !== '') return refuse(`${refund.currency} refunds take no memo.`);
  const code = refund.currency;
  if (isGateway(code)) return refuse(`${code} payments are refunded by the gateway, not to an address.`);
  if (code === 'BTC' || code === 'LTC') return checkUtxo(code, address, refund.sandbox);
  if (code === 'BCH') return checkBitcoinCash(address, refund.sandbox);
  if (code === 'LBTC') return checkLightning(refund, address, now);
  if (code === 'EOS') return checkEos(address, memo === '' ? undefined : memo);
  if (code === 'USDT_TRC20') return checkTron(address);
  if (isSolanaCurrency(code)) return checkSolana(code, address);
  if (code === 'TON' || code === 'USDT_TON') return checkTon(code, address, memo === '' ? undefined : memo);
  if (code === 'USDC_XLM') {
    const checked = checkStellarRefundAddress(address, { ...(memo ? { memo } : {}), issuer: stellarSettings().issuer });
    return checked.ok ? { ok: true, address: checked.address, ...(checked.memo ? { memo: checked.memo } : {}) } : refuse(checked.reason);
  }
  if (code === 'ETH' || evmNetwork(currencyOf(code).chain ?? '')) return checkEvm(code, address);
  return refuse(`Refunds in ${code} cannot be sent to an address.`);
}
