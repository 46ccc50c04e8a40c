import { fill, h, type Child } from '../../../common/dom';
import type { Result } from '../api';
import { t } from '../i18n';
import { navigate } from '../router';

/** A screen draws itself into the page's main element and returns what stops it (timers). */
export type Screen = (main: HTMLElement, params: Record<string, string>) => (() => void) | void;

/** Shows a screen's heading and content, and moves keyboard focus to the heading (a new page for screen readers). */
export function showScreen(main: HTMLElement, title: string, ...content: Child[]): HTMLHeadingElement {
  const heading = h('h1', { tabindex: '-1', id: 'screen-title' }, title);
  fill(main, heading, ...content);
  document.title = title;
  heading.focus();
  return heading;
}

/** A polite live region for outcomes ("Done.", errors), read out by screen readers. */
export const notice = (): HTMLParagraphElement => h('p', { class: 'notice', role: 'status', 'aria-live': 'polite' });

export function say(region: HTMLElement, text: string, kind: 'ok' | 'error' = 'ok'): void {
  region.className = `notice ${kind}`;
  region.textContent = text;
}

/** Says why a call failed (a lost session goes back to sign-in). */
export function sayFailure(region: HTMLElement, result: { status: number; code: string; message?: string }): void {
  const strings = t();
  if (result.status === 401) return navigate('#/sign-in');
  const text = result.code === 'ROLE_REFUSED' ? strings.roleRefused : result.code === 'INVALID_INPUT' && result.message ? strings.invalidInput(result.message) : strings.error;
  say(region, text, 'error');
}

/** A labelled form field. */
export const field = (id: string, label: string, control: HTMLElement, hint?: string): HTMLElement =>
  h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('p', { id: `${id}-hint`, class: 'hint' }, hint) : null);

/** What a list screen shows: its words, its columns, and how to read one page after a cursor. */
export interface PagedList<T> {
  title: string;
  lead: string;
  caption: string;
  empty: string;
  /** Each column's heading and its cell of a row. */
  columns: [string, (row: T) => Child][];
  page: (cursor?: string) => Promise<Result<{ rows: T[]; next_cursor: string | null }>>;
}

/**
 * A screen of one table read a page at a time: "Load more" shows only while a next page is
 * there, and appends it (each row once: the cursor is the last page's).
 */
export function pagedListScreen<T>(main: HTMLElement, list: PagedList<T>): void {
  const strings = t();
  const body = h('tbody');
  const outcome = notice();
  const more = h('button', { type: 'button', hidden: true }, strings.more);
  let cursor: string | undefined;
  const load = async () => {
    const result = await list.page(cursor);
    if (!result.ok) return sayFailure(outcome, result);
    body.append(...result.data.rows.map((row) => h('tr', null, list.columns.map(([label, cell]) => h('td', { 'data-label': label }, cell(row))))));
    cursor = result.data.next_cursor ?? undefined;
    more.hidden = !cursor;
    if (!body.firstChild) say(outcome, list.empty);
  };
  // Only ever the next page: without a cursor the first page would be appended again.
  more.onclick = () => cursor && void load();
  showScreen(
    main,
    list.title,
    h('p', null, list.lead),
    h(
      'div',
      { class: 'table-wrap' },
      h('table', { class: 'orders' }, h('caption', null, list.caption), h('thead', null, h('tr', null, list.columns.map(([label]) => h('th', { scope: 'col' }, label)))), body),
    ),
    more,
    outcome,
  );
  void load();
}
