/**
 * Refunds, without holding a key (docs/merchant-guide.md, "Refunds"): asking one (API and portal), the
 * buyer's address through the one-time link, and the refund's payment (seen by a watcher, or a
 * transaction the merchant reports and a check confirms on chain). Every write goes through the
 * order's own conditional transaction (changeOrder), so refunds add up to at most what was paid
 * however many requests race, and the order moves REFUND_PENDING -> REFUNDED with its callback
 * in the same write that sends its last refund.
 */
import { refundLinkHash as linkHash, refundUrl } from '#shared/core/server-key';
import { countMetric } from '#shared/core/metrics';
import type { AuditActor, AuditEntry } from '#shared/domain/audit';
import { currency, isGateway } from '#shared/domain/currencies';
import {
  InvalidParameterError,
  ParametersMissingError,
  RefundAddressError,
  RefundFailedError,
  RefundLinkInvalidError,
  RefundNotFoundError,
  RefundTransactionError,
  RefundTransactionNotFinalError,
  UnknownOrderError,
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
import { requestRefund as requestGatewayRefund } from '#shared/services/gateway-payments';
import { changeOrder, checkedId, unknownOrder } from '#shared/services/order-changes';
import { completeRefund } from '#shared/services/payment-reports';
import { findRefund, findRefundByLinkHash, listRefunds } from '#shared/store/refunds';
import { claimRefundPayment, refuseInvoiceAddress, stopWatchingRefund, watchRefund } from '#shared/store/refund-watches';
import { findOrderWithInvoice } from '#shared/store/orders';
import { refundPaymentUri } from '#shared/payments/refund-uri';
import { type PayRefundView, payRefundView } from '#shared/schemas/refunds';
import { findMerchant } from '#shared/store/merchants';

// ---------------------------------------------------------------------------------------------
// The contract with the watchers (docs/merchant-guide.md, "How a refund's payment is seen"): what they report, and the check of a txid.

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
// The refund link (its secret and URL: shared/core/server-key.ts, shared with the email sender).

export { linkHash, refundUrl };

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
  refund?: Refund;
}

/** A request with an API token, in the audit log. */
export const apiActor = (clientIp: string | undefined): AuditActor => ({ who: 'api', from: clientIp ?? 'unknown' });

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
  return { found, refund: made };
}

/**
 * What a refund of the order could be now (the portal shows it before asking): what is left,
 * the overpaid part, and the order's price at today's rate (not locked until asked).
 */
export async function refundQuote(found: Found, now: Date) {
  const invoice = found.invoice;
  if (!invoice || isGateway(invoice.pay_currency)) return null;
  const limits = refundable(found.order, invoice);
  let fiat: { amount: string; currency: string; crypto: string; rate: RefundRate } | null = null;
  try {
    const { amount, rate } = await amountOf({ basis: 'fiat' }, found, limits, found.order.sandbox, now);
    fiat = { amount: found.order.price_amount, currency: found.order.price_currency, crypto: formatDecimal(amount), rate: rate! };
  } catch (error) {
    if (!(error instanceof RefundRefusal)) throw error;
  }
  return { currency: invoice.pay_currency, paid: formatDecimal(limits.paid), left: formatDecimal(limits.left), overpaid: formatDecimal(limits.overpaid), fiat };
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

/** A refund as the merchant sees it (schemas/refunds.ts `Refund`): the link while usable, the wallet URI once addressed. */
export async function refundView(refund: Refund) {
  const notice = await noticeOf(refund);
  return {
    refund_id: refund.refund_id,
    order_id: refund.order_id,
    status: refund.status,
    amount: refund.amount,
    currency: refund.currency,
    network: networkName(refund.currency) ?? null,
    basis: refund.basis,
    rate: refund.rate ?? null,
    reason: refund.reason ?? null,
    address: notice.address,
    memo: notice.memo,
    payment_uri: refund.status === 'AWAITING_PAYMENT' ? (refundPaymentUri(refund) ?? null) : null,
    txid: notice.txid,
    refund_url: notice.refund_url,
    short_payments: (refund.short_payments ?? []).map(({ txid, amount, seen_at }) => ({ txid, amount, seen_at })),
    created_at: refund.created_at,
    address_set_at: refund.address_set_at ?? null,
    sent_at: notice.sent_at,
  };
}

export type RefundView = Awaited<ReturnType<typeof refundView>>;

/** An order's refunds as the merchant sees them, oldest first (an order without any: no read). */
export async function orderRefunds(found: Found): Promise<RefundView[]> {
  if (!found.order.refunds) return [];
  return Promise.all((await listRefunds(found.order.order_id)).map(refundView));
}

/** The merchant's order's refunds (GET /v1/orders/:id/refunds); another merchant's order is missing. */
export async function listOrderRefunds(owner: MerchantProfile, orderId: unknown): Promise<RefundView[]> {
  const found = isId(orderId) ? await findOrderWithInvoice(orderId) : undefined;
  if (!found || found.order.user_id !== owner.user_id) throw new UnknownOrderError();
  return orderRefunds(found);
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
  // A live refund's address is watched before anyone is shown it (store/refund-watches.ts): its
  // payment is seen as an invoice's. An address this service receives payments on is refused,
  // in the sandbox too (not watched there: the merchant completes it), so that a sandbox never
  // takes what live would refuse.
  const address = { currency: opened.currency, address: checked.address, ...(checked.memo !== undefined ? { memo: checked.memo } : {}) };
  if (opened.sandbox) {
    await refuseInvoiceAddress(address);
  } else {
    await watchRefund(
      { userId: opened.user_id, orderId: opened.order_id, refundId: opened.refund_id, ...address, amount: opened.amount, since: input.now.toISOString() },
      input.now,
    );
  }
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
export async function newRefundLink(owner: MerchantProfile, orderId: unknown, refundId: unknown, actor: AuditActor, now: Date): Promise<Refund> {
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
  // The old address no longer pays it (a payment there is the buyer's and the merchant's to settle).
  if (current.address !== undefined && !current.sandbox) {
    await stopWatchingRefund({ currency: current.currency, address: current.address, ...(current.memo !== undefined ? { memo: current.memo } : {}), refundId: current.refund_id });
  }
  return renewed!;
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
 * The merchant reports the transaction that paid a refund (sent some other way than the watchers
 * saw): checked on its chain (`liveCheck`; the sandbox's check for a sandbox merchant) before it
 * counts, then booked as a watcher's report would be.
 */
export async function reportRefundTransaction(
  owner: MerchantProfile,
  orderId: unknown,
  refundId: unknown,
  txid: string | undefined,
  liveCheck: RefundTxCheck,
  actor: AuditActor,
  now: Date,
): Promise<Refund> {
  const refund = await merchantRefund(owner, orderId, refundId);
  if (txid === undefined) throw new ParametersMissingError('txid');
  if (refund.status === 'SENT') {
    if (refund.txid === txid) return refund;
    throw new RefundTransactionError(`the refund is sent already (transaction ${refund.txid})`);
  }
  if (refund.status === 'AWAITING_ADDRESS') throw new RefundTransactionError('the buyer has not set the refund address yet: nothing can pay it');
  const check = owner.sandbox ? sandboxRefundCheck : liveCheck;
  const result = await check(refund, txid);
  if (!result.found) throw new RefundTransactionError(result.reason);
  if (!result.final) throw new RefundTransactionNotFinalError();
  // One transfer pays one refund: a transfer the watcher booked on another refund to the same address is not this one's.
  const claimed = await claimRefundPayment(refund.currency, result.key, { userId: owner.user_id, orderId: refund.order_id, refundId: refund.refund_id, amount: refund.amount, since: refund.address_set_at ?? refund.created_at });
  if (claimed.refundId !== refund.refund_id) throw new RefundTransactionError('the transaction paid another refund');
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
  if (outcome === 'SENT' && !owner.sandbox) await stopWatchingRefund({ currency: refund.currency, address: refund.address!, ...(refund.memo !== undefined ? { memo: refund.memo } : {}), refundId: refund.refund_id });
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

// ---------------------------------------------------------------------------------------------
// The buyer's refund page (public: the link's secret is the only capability).

async function pageOf(refund: Refund): Promise<PayRefundView> {
  const [found, merchant] = await Promise.all([findOrderWithInvoice(refund.order_id), findMerchant(refund.user_id)]);
  if (!found) throw new RefundLinkInvalidError();
  return payRefundView(refund, found.order, merchant?.name ?? '');
}

/** What the refund link shows: its own order and refund, while it may still be used. */
export async function openRefundPage(secret: unknown): Promise<PayRefundView> {
  return pageOf(await refundOfLink(secret));
}

/** The buyer's address, set through the link: the page as it is after (the link no longer opens). */
export async function addressRefundPage(body: { secret: string; address: string; memo?: string }, clientIp: string | undefined, now: Date): Promise<PayRefundView> {
  return pageOf(await setRefundAddress({ ...body, clientIp, now }));
}
