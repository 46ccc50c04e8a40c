import { createHash } from 'node:crypto';
import type { emailConfig } from '#shared/core/config';
import { takeFromWindow, type WindowLimit } from '#shared/store/quotas';

/**
 * How much mail the service sends, so that nobody can make it mail an address at will
 * (docs/security.md "Outbound mail"). Anyone who can open a payment link that asks for an email
 * chooses the buyer's address, and a sandbox merchant's orders are paid by a click: without
 * limits one anonymous client mailed a stranger 155 receipts in a minute. Every email counts
 * against fixed windows in the table (the request quotas' counters, shared/store/quotas.ts: one
 * atomic conditional ADD each, TTL-expired); past one, it is recorded LIMITED and not sent.
 */

export type EmailLimits = ReturnType<typeof emailConfig>['limits'];

/** Which limit stopped an email (kept on its email item as `limited_by`). */
export type LimitName = 'team_address_day' | 'buyer_address_day' | 'link_hour' | 'sandbox_day' | 'merchant_hour' | 'merchant_day';

/** One window an email counts against: its name, its counter and its limit. */
export interface MailWindow {
  name: LimitName;
  counter: string;
  limit: WindowLimit;
}

/** Who an email is for: the merchant's own team (an address a member gave), or a buyer anyone may have typed. */
export type Audience = 'team' | 'buyer';

/** One email to count: its audience, address, merchant and the payment link its order came from. */
export interface CountedMail {
  audience: Audience;
  address: string;
  merchantId: number;
  sandbox: boolean;
  linkId?: string;
}

const HOUR = 3600;
const DAY = 86_400;
/** Providers known to ignore dots in the local part (one mailbox, many spellings). */
const DOTLESS = new Set(['gmail.com', 'googlemail.com']);

/**
 * The mailbox an address delivers to, as far as counting goes: lower-cased, without a `+tag`
 * (sub-addressing delivers to the same mailbox nearly everywhere), and Gmail's dots dropped, so
 * `Victim+1@gmail.com` and `v.ictim+2@googlemail.com` count as one. Only counted, never sent to.
 */
export function mailboxOf(address: string): string {
  const trimmed = address.trim().toLowerCase();
  const at = trimmed.lastIndexOf('@');
  if (at < 0) return trimmed;
  let local = trimmed.slice(0, at);
  let domain = trimmed.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (DOTLESS.has(domain)) {
    local = local.replaceAll('.', '');
    domain = 'gmail.com';
  }
  return `${local}@${domain}`;
}

/** A mailbox's counter name: its SHA-256, so the table holds no address in a counter key. */
const mailboxCounter = (address: string): string => createHash('sha256').update(mailboxOf(address)).digest('hex');

/**
 * The windows one email counts against, narrowest first (the one an attack on a single address
 * fills first is taken first, and a refused take changes nothing, so a flood against one mailbox
 * uses no place in the merchant's or the link's windows):
 * - team mail: the member's mailbox a day (members gave it themselves; a higher limit);
 * - buyer mail: the mailbox a day across all merchants, the link an hour, a sandbox merchant's
 *   whole buyer mail a day, the merchant an hour and a day.
 */
export function windowsOf(mail: CountedMail, limits: EmailLimits): MailWindow[] {
  const mailbox = mailboxCounter(mail.address);
  if (mail.audience === 'team') return [{ name: 'team_address_day', counter: `ET${mailbox}`, limit: { limit: limits.teamPerAddressDay, windowSeconds: DAY } }];
  return [
    { name: 'buyer_address_day', counter: `EB${mailbox}`, limit: { limit: limits.buyerPerAddressDay, windowSeconds: DAY } },
    ...(mail.linkId ? [{ name: 'link_hour' as const, counter: `EL${mail.linkId}`, limit: { limit: limits.buyerPerLinkHour, windowSeconds: HOUR } }] : []),
    ...(mail.sandbox ? [{ name: 'sandbox_day' as const, counter: `ES${mail.merchantId}`, limit: { limit: limits.sandboxBuyerPerDay, windowSeconds: DAY } }] : []),
    { name: 'merchant_hour', counter: `EH${mail.merchantId}`, limit: { limit: limits.buyerPerMerchantHour, windowSeconds: HOUR } },
    { name: 'merchant_day', counter: `ED${mail.merchantId}`, limit: { limit: limits.buyerPerMerchantDay, windowSeconds: DAY } },
  ];
}

/**
 * Counts one email in each of its windows at `nowMs`, in order, and stops at the first that is
 * full: answers that one's name, or undefined when every window had room. One after another, not
 * in a transaction: a transaction on the merchant's hot counters would fail on every concurrent
 * send (TransactionConflict), where ADDs never conflict. The cost: an email stopped by a later
 * window has used its place in the earlier ones, so what is counted is emails tried, erring
 * towards less mail. A store error is thrown (the job is retried).
 */
export async function firstFullWindow(windows: readonly MailWindow[], nowMs: number): Promise<LimitName | undefined> {
  for (const window of windows) {
    const taken = await takeFromWindow(window.counter, window.limit, nowMs);
    if (!taken.allowed) return window.name;
  }
  return undefined;
}
