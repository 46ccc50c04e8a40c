import { h } from '../../../common/dom';
import type { PortalAuditEntry } from '#shared/schemas/portal-responses';
import { portalApi } from '../api';
import { formatTime } from '../format';
import { t } from '../i18n';
import { notice, say, sayFailure, showScreen, type Screen } from './screen';

const detailsText = (details: PortalAuditEntry['details']): string =>
  Object.entries(details)
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join('; ');

/** The audit log: who changed what, when and from where, newest first, by page. */
export const auditScreen: Screen = (main) => {
  const strings = t();
  const outcome = notice();
  const body = h('tbody');
  const more = h('button', { type: 'button', hidden: true }, strings.more);
  let before: string | null = null;
  const row = (entry: PortalAuditEntry) =>
    h(
      'tr',
      null,
      h('td', { 'data-label': strings.colWhen }, formatTime(entry.at)),
      h('td', { 'data-label': strings.colAction }, h('code', null, entry.action)),
      h('td', { 'data-label': strings.colWho }, entry.who),
      h('td', { 'data-label': strings.colFrom }, entry.from),
      h('td', { 'data-label': strings.colDetails }, detailsText(entry.details)),
    );
  const load = async () => {
    const result = await portalApi.audit(before ?? undefined);
    if (!result.ok) return sayFailure(outcome, result);
    body.append(...result.data.entries.map(row));
    before = result.data.next_before;
    more.hidden = !before;
    if (!body.children.length) say(outcome, strings.noEntries);
  };
  more.addEventListener('click', () => void load());
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
