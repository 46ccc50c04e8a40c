import { h } from '../../../common/dom';
import type { PortalAuditEntry } from '#shared/schemas/portal-responses';
import { portalApi } from '../api';
import { formatTime } from '../format';
import { t } from '../i18n';
import { pagedRows, showScreen, type Screen, type Column, columnRow, dataTable } from './screen';

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
  const columns: Column<PortalAuditEntry>[] = [
    [strings.colWhen, (entry) => formatTime(entry.at)],
    [strings.colAction, (entry) => [strings.auditActions[entry.action] ?? entry.action, ' ', h('code', { class: 'hint' }, entry.action)]],
    [strings.colWho, (entry) => entry.who],
    [strings.colFrom, (entry) => entry.from],
    [strings.colDetails, (entry) => detailsText(entry.details)],
  ];
  // The log pages by the last entry's time (`before`), which the list reads as its cursor.
  const read = async (before?: string) => {
    const result = await portalApi.audit(before);
    return result.ok ? { ...result, data: { rows: result.data.entries, next_cursor: result.data.next_before } } : result;
  };
  const { body, outcome, more, load } = pagedRows(read, columnRow(columns), strings.noEntries);
  showScreen(main, strings.audit, dataTable({ class: 'audit', caption: strings.auditCaption }, columns, body), outcome, more);
  void load();
};
