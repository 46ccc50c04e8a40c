import { h } from '../../../common/dom';
import type { PortalUnmatchedPayments } from '#shared/schemas/portal-responses';
import { refundsApi } from '../api';
import { formatAmount, formatTime } from '../format';
import { t } from '../i18n';
import { pagedListScreen, type Screen } from './screen';

type Payment = PortalUnmatchedPayments['payments'][number];

/**
 * Payments to the merchant's own TON or Stellar wallet that no invoice took (every role reads
 * them), newest first: when, how much, the comment or memo they carried, why, and the
 * transaction on its explorer. The money is the merchant's to return or settle.
 */
export const unmatchedScreen: Screen = (main) => {
  const strings = t();
  pagedListScreen<Payment>(main, {
    title: strings.unmatched,
    lead: strings.unmatchedLead,
    caption: strings.unmatchedCaption,
    empty: strings.noUnmatched,
    columns: [
      [strings.colSeen, (payment) => formatTime(payment.seen_at)],
      [strings.amount, (payment) => formatAmount(payment.amount, payment.currency)],
      [strings.colMemo, (payment) => (payment.memo !== undefined ? h('code', null, payment.memo) : strings.noMemo)],
      [strings.colWhy, (payment) => strings.unmatchedReasons[payment.reason] ?? payment.reason],
      // A transaction's hash breaks anywhere (app.css): the column gives way to the words beside it.
      [
        strings.colTransaction,
        (payment) =>
          payment.explorer_url ? h('a', { class: 'hash', href: payment.explorer_url, rel: 'noopener noreferrer', target: '_blank' }, payment.txid) : h('code', { class: 'hash' }, payment.txid),
      ],
    ],
    page: async (cursor) => {
      const result = await refundsApi.unmatched(cursor);
      return result.ok ? { ...result, data: { rows: result.data.payments, next_cursor: result.data.next_cursor } } : result;
    },
  });
};
