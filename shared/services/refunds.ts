/**
 * Refunds, without holding a key (DESIGN.md section 11): asking one (API and portal), the
 * buyer's address through the one-time link, and the refund's payment (seen by a watcher, or a
 * transaction the merchant reports and a check confirms on chain). Every write goes through the
 * order's own conditional transaction (changeOrder), so refunds add up to at most what was paid
 * however many requests race, and the order moves REFUND_PENDING -> REFUNDED with its callback
 * in the same write that sends its last refund.
 */
import { createHash } from 'node:crypto';
import { apiConfig } from '#shared/core/config';
import { countMetric } from '#shared/core/metrics';
import type { AuditActor, AuditEntry } from '#shared/domain/audit';
import { currency, isGateway } from '#shared/domain/currencies';
import {
  InvalidParameterError,
  RefundAddressError,
  RefundFailedError,
  RefundLinkInvalidError,
  RefundNotFoundError,
  RefundTransactionError,
  RefundCheckUnavailableError,
} from '#shared/domain/errors';
import { isId, newTimeOrderedId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { type Decimal, decimalPlaces, formatDecimal, isPositive, parseDecimal } from '#shared/domain/money';
import { type Change, type Found, moveTo, touch } from '#shared/domain/order';
import {
  checkRefundAmount,
  MAX_REFUNDS_PER_ORDER,
  type Refund,
  type RefundBasis,
  type RefundNotice,
  refundNotice,
  RefundRefusal,
  type RefundRate,
  refundable,
  REFUNDABLE_STATUSES,
  sentRefund,
  settles,
  withRefund,
  withShortPayment,
} from '#shared/domain/refund';
import { networkName } from '#shared/domain/networks';
import { checkRefundAddress } from '#shared/payments/refund-addresses';
import { rateProvider, sandboxRateProvider } from '#shared/payments/providers';
import { convert, RateUnavailableError } from '#shared/payments/rates';
import { serverSecret } from '#shared/services/api-tokens';
import { requestRefund as requestGatewayRefund } from '#shared/services/gateway-payments';
import { changeOrder, checkedId, unknownOrder } from '#shared/services/order-changes';
import { completeRefund } from '#shared/services/payment-reports';
import { findRefund, findRefundByLinkHash, listRefunds } from '#shared/store/refunds';

// ---------------------------------------------------------------------------------------------
// The contract with the watchers (REFUND-CONTRACT.md): what they report, and the check of a txid.

export interface RefundPaymentReport {
  userId: number;
  orderId: string;
  refundId: string;
  /** The chain's own key of the transfer (txid:vout, txhash:logIndex, ...): idempotent by it. */
  key: string;
  txid: string;
  /** What this transfer paid to the refund address, exact decimal in the refund's currency. */
  amount: string;
  /** At the currency's confirmations (final). Not final: ignored, never SENT. */
  final: boolean;
  now: Date;
  /** Who reported it (the audit entry's actor); default: the chain watcher. */
  actor?: AuditActor;
}

/** Checks a transaction id a merchant reports for a refund, on its chain. */
export type RefundTxCheck = (refund: Refund, txid: string) => Promise<{ found: false; reason: string } | { found: true; key: string; amount: string; final: boolean }>;

/** The watcher's actor in the audit log. */
const WATCHER: AuditActor = { who: 'watcher', from: 'chain' };

/** The buyer's actor in the audit log (the refund link's holder). */
const buyer = (clientIp: string | undefined): AuditActor => ({ who: 'buyer', from: clientIp ?? 'unknown' });

function auditEntry(action: AuditEntry['action'], actor: AuditActor, refund: Refund, now: Date, details: AuditEntry['details'] = {}): AuditEntry {
  return {
    at: now.toISOString(),
    action,
    ...actor,
    details: { order_id: refund.order_id, refund_id: refund.refund_id, amount: refund.amount, currency: refund.currency, ...details },
  };
}

// ---------------------------------------------------------------------------------------------
// The refund link.

const LINK_PURPOSE = 'refund-link';

/** A refund link's secret: made again from the refund by the server's key, never stored. */
const linkSecret = (refund: Pick<Refund, 'refund_id' | 'link_version'>): Promise<string> =>
  serverSecret(LINK_PURPOSE, `${refund.refund_id}\n${refund.link_version}`);

/** What the table keeps of a link's secret. */
export const linkHash = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** The buyer's one-time link on the payment site: the secret in the fragment, so no server log sees it. */
export async function refundUrl(refund: Pick<Refund, 'refund_id' | 'link_version'>): Promise<string> {
  const url = new URL(apiConfig().paymentPageUrl);
  url.hash = `refund=${await linkSecret(refund)}`;
  return url.toString();
}

/** A refund as the merchant is told of it (its link while the buyer may use it). */
export async function noticeOf(refund: Refund): Promise<RefundNotice> {
  return refundNotice(refund, refund.status === 'AWAITING_ADDRESS' ? await refundUrl(refund) : undefined);
}

// ---------------------------------------------------------------------------------------------
// Asking a refund.

/** What a merchant may say when asking a refund (all optional: none is the full amount). */
export interface RefundChoices {
  basis?: RefundBasis;
  /** custom: in the paid currency (required); fiat: in the order's price currency (default its price). */
  amount?: string;
  reason?: string;
}

/** A refund asked: the order after it, and the refund (none for a gateway's own refund). */
export interface RefundAsked {
  found: Found;
  refund?: RefundNotice;
}

/** The refund's amount in the paid currency, by its basis; the fiat rate locked when fiat. */
async function amountOf(
  choices: RefundChoices,
  found: Found,
  limits: { left: Decimal; overpaid: Decimal },
  sandbox: boolean,
  now: Date,
): Promise<{ amount: Decimal; rate?: RefundRate }> {
  const basis = choices.basis ?? 'crypto';
  const code = found.invoice!.pay_currency;
  if (basis === 'crypto' || basis === 'overpaid') {
    if (choices.amount !== undefined) throw new InvalidParameterError(`amount is only for a custom or fiat refund (${basis} refunds ${basis === 'crypto' ? 'what is left of the payment' : 'the overpaid part'})`);
    if (basis === 'crypto') return { amount: limits.left };
    if (found.order.status !== 'UNRESOLVED' || !isPositive(limits.overpaid)) throw new RefundRefusal('only an overpaid UNRESOLVED order has an overpaid part to refund');
    return { amount: limits.overpaid };
  }
  if (basis === 'custom') {
    if (choices.amount === undefined) throw new InvalidParameterError(`amount is required for a custom refund (in ${code})`);
    return { amount: parseDecimal(choices.amount) };
  }
  const fiat = found.order.price_currency;
  const value = choices.amount === undefined ? parseDecimal(found.order.price_amount) : parseDecimal(choices.amount);
  if (!isPositive(value)) throw new RefundRefusal('amount must be above 0');
  if (decimalPlaces(value) > currency(fiat).precision) throw new RefundRefusal(`amount has more decimals than ${fiat} has`);
  try {
    const rate = await (sandbox ? sandboxRateProvider : rateProvider()).getRate(fiat, code, now);
    // Rounded down: a refund at today's rate never sends more than the fiat value.
    const amount = convert(value, rate, currency(code).payPrecision, 'down');
    return {
      amount,
      rate: {
        fiat_amount: formatDecimal(value),
        fiat_currency: fiat,
        numerator: formatDecimal(rate.numerator),
        denominator: formatDecimal(rate.denominator),
        source: rate.source,
        as_of: rate.asOf.toISOString(),
      },
    };
  } catch (error) {
    if (error instanceof RateUnavailableError) throw new RefundRefusal(`no current ${fiat}/${code} rate: ask a crypto or custom refund instead`);
    throw error;
  }
}

/**
 * Refund Order: a refund of the paid invoice's currency, PAID or UNRESOLVED -> REFUND_PENDING
 * (a further partial refund while REFUND_PENDING). No choices: all that is left of the
 * payment (MugglePay's full refund). A gateway's order is refunded in full at its gateway, as
 * before. Refunds add up to at most what was paid: the order's summary is updated in the same
 * conditional write as the refund is made, so racing requests cannot both take the last part.
 */
export async function askRefund(owner: MerchantProfile, orderId: unknown, choices: RefundChoices, actor: AuditActor, now: Date): Promise<RefundAsked> {
  const id = checkedId(orderId);
  let made: Refund | undefined;
  let atGateway = false;
  const refundId = newTimeOrderedId(now.getTime());
  const url = await refundUrl({ refund_id: refundId, link_version: 1 });
  const found = await changeOrder(id, owner, unknownOrder, async (current) => {
    const invoice = current.invoice;
    if (!invoice || isGateway(invoice.pay_currency)) {
      atGateway = true;
      return undefined;
    }
    const status = current.order.status;
    // An order whose refund was asked before refunds were items is refunded as it was then.
    if (!(REFUNDABLE_STATUSES as readonly string[]).includes(status) || (status === 'REFUND_PENDING' && !current.order.refunds)) throw new RefundFailedError();
    if ((current.order.refunds?.count ?? 0) >= MAX_REFUNDS_PER_ORDER) throw new RefundRefusal(`an order has at most ${MAX_REFUNDS_PER_ORDER} refunds`);
    if (current.order.unresolved_reason === 'PAID_TO_REPLACED_INVOICE' && status === 'UNRESOLVED') {
      throw new RefundRefusal('the payment went to a replaced invoice of the order: its refund is not supported here, refund it from your wallet and resolve the order');
    }
    const limits = refundable(current.order, invoice);
    const { amount, rate } = await amountOf(choices, current, limits, current.order.sandbox, now);
    checkRefundAmount(amount, limits.left, invoice.pay_currency);
    const secret = new URL(url).hash.slice('#refund='.length);
    made = {
      refund_id: refundId,
      order_id: id,
      user_id: current.order.user_id,
      status: 'AWAITING_ADDRESS',
      currency: invoice.pay_currency,
      amount: formatDecimal(amount),
      created_at: now.toISOString(),
      invoice_id: invoice.invoice_id,
      basis: choices.basis ?? 'crypto',
      ...(rate ? { rate } : {}),
      ...(choices.reason ? { reason: choices.reason } : {}),
      sandbox: current.order.sandbox,
      link_version: 1,
      link_hash: linkHash(secret),
    };
    const summary = withRefund(current.order.refunds, amount, invoice.pay_currency);
    const moved: Change = status === 'REFUND_PENDING' ? { order: touch(current.order, now) } : moveTo(current, 'REFUND_PENDING', now);
    return {
      ...moved,
      order: { ...moved.order, refunds: summary },
      refunds: [made],
      callbackRefunds: [refundNotice(made, url)],
      audit: auditEntry('refund.asked', actor, made, now, { basis: made.basis }),
    };
  }).catch((error: unknown) => {
    if (error instanceof RefundRefusal) throw new RefundFailedError(error.message);
    throw error;
  });
  if (atGateway) {
    if (choices.basis !== undefined || choices.amount !== undefined) {
      throw new InvalidParameterError('a gateway (ALIPAY, ALIGLOBAL, WECHAT) order is refunded in full at its gateway: send no basis or amount');
    }
    return { found: await requestGatewayRefund(owner, id, now) };
  }
  if (!made) return { found };
  countMetric('RefundsAsked');
  return { found, refund: refundNotice(made, url) };
}

// ---------------------------------------------------------------------------------------------
// Reading refunds.

/** One of the merchant's refunds; another merchant's (or none) is answered as missing. */
export async function merchantRefund(owner: MerchantProfile, orderId: unknown, refundId: unknown): Promise<Refund> {
  if (!isId(orderId) || !isId(refundId)) throw new RefundNotFoundError();
  const refund = await findRefund(orderId, refundId);
  if (!refund || refund.user_id !== owner.user_id) throw new RefundNotFoundError();
  return refund;
}

/** An order's refunds as the merchant is told of them, oldest first (none: no read). */
export async function orderRefunds(found: Found): Promise<RefundNotice[]> {
  if (!found.order.refunds) return [];
  return Promise.all((await listRefunds(found.order.order_id)).map(noticeOf));
}

// ---------------------------------------------------------------------------------------------
// The buyer's address.

/** The refund a link's secret opens, while it may still be used; anything else is an invalid link. */
export async function refundOfLink(secret: unknown): Promise<Refund> {
  if (typeof secret !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(secret)) throw new RefundLinkInvalidError();
  const hash = linkHash(secret);
  const refund = await findRefundByLinkHash(hash);
  if (!refund || refund.link_hash !== hash || refund.status !== 'AWAITING_ADDRESS') throw new RefundLinkInvalidError();
  return refund;
}

/**
 * The buyer sets the refund's address through its one-time link: checked for the refund's
 * currency and network (a wrong one is refused with its reason), then the refund waits for
 * its payment and the link stops working (changing the address needs the merchant: a new link).
 */
export async function setRefundAddress(input: { secret: unknown; address: unknown; memo?: unknown; clientIp?: string; now: Date }): Promise<Refund> {
  const opened = await refundOfLink(input.secret);
  const checked = checkRefundAddress(opened, input.address, input.memo, input.now);
  if (!checked.ok) throw new RefundAddressError(checked.reason);
  let addressed: Refund | undefined;
  await changeOrder(opened.order_id, undefined, () => new RefundLinkInvalidError(), async (found) => {
    const refund = await findRefund(opened.order_id, opened.refund_id);
    // Used (or replaced by a new link) since it was opened: the link no longer works.
    if (!refund || refund.status !== 'AWAITING_ADDRESS' || refund.link_hash !== opened.link_hash) throw new RefundLinkInvalidError();
    const { link_hash: _used, ...rest } = refund;
    addressed = {
      ...rest,
      status: 'AWAITING_PAYMENT',
      address: checked.address,
      ...(checked.memo !== undefined ? { memo: checked.memo } : {}),
      address_set_at: input.now.toISOString(),
    };
    return {
      order: touch(found.order, input.now),
      refunds: [addressed],
      audit: auditEntry('refund.address_set', buyer(input.clientIp), addressed, input.now, { address: checked.address }),
    };
  });
  return addressed!;
}

/**
 * The merchant replaces a refund's link (the buyer lost it, or the address must change): the
 * old link and any address set through it stop counting; the refund waits for an address again.
 */
export async function newRefundLink(owner: MerchantProfile, orderId: unknown, refundId: unknown, actor: AuditActor, now: Date): Promise<RefundNotice> {
  const current = await merchantRefund(owner, orderId, refundId);
  if (current.status === 'SENT') throw new RefundFailedError('The refund is sent already: its address cannot change.');
  let renewed: Refund | undefined;
  const url = await refundUrl({ ...current, link_version: current.link_version + 1 });
  await changeOrder(current.order_id, owner, () => new RefundNotFoundError(), async (found) => {
    const refund = await findRefund(current.order_id, current.refund_id);
    if (!refund || refund.status === 'SENT') throw new RefundFailedError('The refund is sent already: its address cannot change.');
    if (refund.link_version !== current.link_version) throw new RefundFailedError('Another new link was made at the same time: reload the refund.');
    const { address: _address, memo: _memo, address_set_at: _at, ...rest } = refund;
    renewed = { ...rest, status: 'AWAITING_ADDRESS', link_version: refund.link_version + 1, link_hash: linkHash(new URL(url).hash.slice('#refund='.length)) };
    return { order: touch(found.order, now), refunds: [renewed], audit: auditEntry('refund.link_renewed', actor, renewed, now) };
  });
  return refundNotice(renewed!, url);
}

// ---------------------------------------------------------------------------------------------
// The refund's payment.

/**
 * A transfer to a refund's address: final and >= amount on an AWAITING_PAYMENT refund -> SENT
 * (and the order REFUNDED with its callback when every refund of it is SENT); final and less ->
 * recorded as a short payment (shown, does not complete it); anything else -> IGNORED.
 * Conditional writes; idempotent by `key`.
 */
export async function recordRefundPayment(report: RefundPaymentReport): Promise<'SENT' | 'SHORT' | 'IGNORED'> {
  if (!isId(report.orderId) || !isId(report.refundId)) return 'IGNORED';
  let outcome: 'SENT' | 'SHORT' | 'IGNORED' = 'IGNORED';
  const paid = parseDecimal(report.amount);
  await changeOrder(report.orderId, undefined, () => new RefundNotFoundError(), async (found) => {
    outcome = 'IGNORED';
    if (found.order.user_id !== report.userId) return undefined;
    const refund = await findRefund(report.orderId, report.refundId);
    if (!refund || refund.user_id !== report.userId) return undefined;
    if (refund.status === 'SENT') {
      if (refund.sent_key === report.key) outcome = 'SENT';
      return undefined;
    }
    if (refund.status !== 'AWAITING_PAYMENT' || !report.final || !isPositive(paid)) return undefined;
    const actor = report.actor ?? WATCHER;
    if (!settles(refund, paid)) {
      outcome = 'SHORT';
      if (refund.short_payments?.some((seen) => seen.key === report.key)) return undefined;
      const short = withShortPayment(refund, { key: report.key, txid: report.txid, amount: formatDecimal(paid), seen_at: report.now.toISOString() });
      return { order: touch(found.order, report.now), refunds: [short] };
    }
    outcome = 'SENT';
    const sent = sentRefund(refund, { key: report.key, txid: report.txid }, report.now);
    const summary = found.order.refunds!;
    const open = Math.max(0, summary.open - 1);
    const audit = auditEntry('refund.sent', actor, sent, report.now, { txid: report.txid, address: sent.address ?? null });
    if (open > 0 || found.order.status !== 'REFUND_PENDING') {
      return { order: { ...touch(found.order, report.now), refunds: { ...summary, open } }, refunds: [sent], audit };
    }
    const others = (await listRefunds(report.orderId)).filter((other) => other.refund_id !== sent.refund_id);
    const moved = moveTo(found, 'REFUNDED', report.now);
    const all = [...others, sent].sort((a, b) => a.refund_id.localeCompare(b.refund_id));
    return {
      ...moved,
      order: { ...moved.order, refunds: { ...summary, open } },
      refunds: [sent],
      callbackRefunds: all.map((one) => refundNotice(one, undefined)),
      audit,
    };
  });
  const result = outcome as 'SENT' | 'SHORT' | 'IGNORED';
  if (result === 'SENT') countMetric('RefundsSent');
  return result;
}

/** The sandbox's check: any transaction id pays the refund in full, final (sandbox merchants only). */
export const sandboxRefundCheck: RefundTxCheck = async (refund, txid) => ({ found: true, key: txid, amount: refund.amount, final: true });

/**
 * A live merchant's check until the watchers' check of the network is wired in: refuses (fail
 * closed), never accepts a transaction it has not seen on chain.
 */
export const unavailableRefundCheck: RefundTxCheck = async (refund) => {
  throw new RefundCheckUnavailableError(networkName(refund.currency) ?? refund.currency);
};

/**
 * The merchant reports the transaction that paid a refund (sent some other way than the watchers
 * saw): checked on its chain (`liveCheck`; the sandbox's check for a sandbox merchant) before it
 * counts, then booked as a watcher's report would be.
 */
export async function reportRefundTransaction(
  owner: MerchantProfile,
  orderId: unknown,
  refundId: unknown,
  txid: string,
  liveCheck: RefundTxCheck,
  actor: AuditActor,
  now: Date,
): Promise<Refund> {
  const refund = await merchantRefund(owner, orderId, refundId);
  if (refund.status === 'SENT') {
    if (refund.txid === txid) return refund;
    throw new RefundTransactionError(`the refund is sent already (transaction ${refund.txid})`);
  }
  if (refund.status === 'AWAITING_ADDRESS') throw new RefundTransactionError('the buyer has not set the refund address yet: nothing can pay it');
  const check = owner.sandbox ? sandboxRefundCheck : liveCheck;
  const result = await check(refund, txid);
  if (!result.found) throw new RefundTransactionError(result.reason);
  if (!result.final) throw new RefundTransactionError('the transaction is not final yet: report it again once it has its confirmations', 409);
  const outcome = await recordRefundPayment({
    userId: owner.user_id,
    orderId: refund.order_id,
    refundId: refund.refund_id,
    key: result.key,
    txid,
    amount: result.amount,
    final: true,
    now,
    actor,
  });
  const after = (await findRefund(refund.order_id, refund.refund_id))!;
  if (outcome === 'SHORT') throw new RefundTransactionError(`the transaction pays ${result.amount} ${refund.currency} to the refund address, less than the refund's ${refund.amount}: recorded as a short payment`);
  if (outcome === 'IGNORED') throw new RefundTransactionError('the transaction does not pay this refund');
  return after;
}

/**
 * The sandbox's refund is sent (REFUND_PENDING -> REFUNDED): every refund not sent yet is SENT
 * under `txid`, with or without an address; an order refunded before refunds were items (or a
 * gateway's) completes as it did then.
 */
export async function completeSandboxRefunds(owner: MerchantProfile, orderId: string, txid: string, now: Date): Promise<Found> {
  let legacy = false;
  const found = await changeOrder(checkedId(orderId), owner, unknownOrder, async (current) => {
    if (!current.order.refunds) {
      legacy = true;
      return undefined;
    }
    const refunds = await listRefunds(current.order.order_id);
    if (current.order.status === 'REFUNDED' && refunds.every((refund) => refund.txid === txid)) return undefined;
    if (current.order.status !== 'REFUND_PENDING') throw new RefundFailedError('The order has no refund pending.');
    const sent = refunds.map((refund) => (refund.status === 'SENT' ? refund : sentRefund(refund, { key: `${txid}:${refund.refund_id}`, txid }, now)));
    const moved = moveTo(current, 'REFUNDED', now);
    return {
      ...moved,
      order: { ...moved.order, refunds: { ...current.order.refunds, open: 0 } },
      refunds: sent.filter((refund, index) => refund !== refunds[index]),
      callbackRefunds: sent.map((refund) => refundNotice(refund, undefined)),
    };
  });
  return legacy ? completeRefund({ orderId, txid, owner, now }) : found;
}
