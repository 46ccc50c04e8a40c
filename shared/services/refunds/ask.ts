/**
 * Asking a refund, without holding a key (docs/merchant-guide.md, "Refunds"), from the API and
 * the portal: its amount by the merchant's choices (what is left, the overpaid part, a custom
 * amount, or a fiat value at a rate locked when asked), and what a refund could be now (the
 * portal's quote). The refund is made in the order's own conditional transaction
 * (changeOrder), so refunds add up to at most what was paid however many requests race.
 */
import { refundLinkHash as linkHash, refundUrl } from '#shared/core/server-key';
import { countMetric } from '#shared/core/metrics';
import type { AuditActor } from '#shared/domain/audit';
import { currency, isGateway } from '#shared/domain/currencies';
import { InvalidParameterError, RefundFailedError } from '#shared/domain/errors';
import { newTimeOrderedId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { type Decimal, decimalPlaces, formatDecimal, isPositive, parseDecimal } from '#shared/domain/money';
import { type Change, type Found, moveTo, touch } from '#shared/domain/order';
import {
  checkRefundAmount,
  MAX_REFUNDS_PER_ORDER,
  type Refund,
  type RefundBasis,
  refundNotice,
  RefundRefusal,
  type RefundRate,
  refundable,
  REFUNDABLE_STATUSES,
  withRefund,
} from '#shared/domain/refund';
import { rateProvider, sandboxRateProvider } from '#shared/payments/providers';
import { convert, RateUnavailableError } from '#shared/payments/rates';
import { requestRefund as requestGatewayRefund } from '#shared/services/gateway-payments';
import { changeOrder, checkedId, unknownOrder } from '#shared/services/order-changes';
import { auditEntry } from '#shared/services/refunds/audit';

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

/** The refund's amount in the paid currency, by its basis; the fiat rate locked when fiat. */
async function amountOf(choices: RefundChoices, found: Found, limits: { left: Decimal; overpaid: Decimal }, sandbox: boolean, now: Date): Promise<{ amount: Decimal; rate?: RefundRate }> {
  const basis = choices.basis ?? 'crypto';
  const code = found.invoice!.pay_currency;
  if (basis === 'crypto' || basis === 'overpaid') {
    if (choices.amount !== undefined)
      throw new InvalidParameterError(`amount is only for a custom or fiat refund (${basis} refunds ${basis === 'crypto' ? 'what is left of the payment' : 'the overpaid part'})`);
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
