import { h } from '../../../common/dom';
import type { PortalAuditEntry } from '#shared/schemas/portal-responses';
import { portalApi } from '../api';
import { formatTime } from '../format';
import { t } from '../i18n';
import { pagedRows, showScreen, type Screen } from './screen';

const detailsText = (details: PortalAuditEntry['details']): string =>
  Object.entries(details)
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join('; ');

/**
 * The audit log: who changed what, when and from where, newest first, by page. Its pages are read
 * as the other lists' are ({@link pagedRows}): its own "Load more" loaded the first page again when
 * clicked after the last one.
 */
export const auditScreen: Screen = (main) => {
  const strings = t();
  const row = (entry: PortalAuditEntry) =>
    h(
      'tr',
      null,
      h('td', { 'data-label': strings.colWhen }, formatTime(entry.at)),
      h('td', { 'data-label': strings.colAction }, strings.auditActions[entry.action] ?? entry.action, ' ', h('code', { class: 'hint' }, entry.action)),
      h('td', { 'data-label': strings.colWho }, entry.who),
      h('td', { 'data-label': strings.colFrom }, entry.from),
      h('td', { 'data-label': strings.colDetails }, detailsText(entry.details)),
    );
  // The log pages by the last entry's time (`before`), which the list reads as its cursor.
  const read = async (before?: string) => {
    const result = await portalApi.audit(before);
    return result.ok ? { ...result, data: { rows: result.data.entries, next_cursor: result.data.next_before } } : result;
  };
  const { body, outcome, more, load } = pagedRows(read, row, strings.noEntries);
  const table = h(
    'table',
    { class: 'audit' },
    h('caption', null, strings.auditCaption),
    h('thead', null, h('tr', null, ...[strings.colWhen, strings.colAction, strings.colWho, strings.colFrom, strings.colDetails].map((label) => h('th', { scope: 'col' }, label)))),
    body,
  );
  showScreen(main, strings.audit, h('div', { class: 'table-wrap' }, table), outcome, more);
  void load();
};
