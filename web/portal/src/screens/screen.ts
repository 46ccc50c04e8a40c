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

/**
 * A polling screen's word on its polls, in `region`: a poll that failed (not for a lost session
 * or a missing item, which the screen answers itself) is said ("could not refresh, trying
 * again") instead of leaving the page silently as it was; the next poll that answers takes that
 * message back, and only that one (an action's outcome shown since stays).
 */
export function pollNotice(region: HTMLElement): { failed(): void; answered(): void } {
  return {
    failed: () => say(region, t().refreshFailed, 'error'),
    answered: () => {
      if (region.textContent === t().refreshFailed) say(region, '');
    },
  };
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

/**
 * A list's filters as a search form (orders, subscriptions): submitted, it goes to the screen's
 * fragment with each filled field as its query (#/orders?status=PAID&q=...), so a filtered list
 * is a link, and the list reads its filters from there.
 */
export function filtersForm(screen: string, controls: Record<string, HTMLInputElement | HTMLSelectElement>, ...content: Child[]): HTMLFormElement {
  return h(
    'form',
    {
      class: 'filters',
      role: 'search',
      'aria-label': t().filters,
      onsubmit: (event: Event) => {
        event.preventDefault();
        const next = new URLSearchParams();
        for (const [name, control] of Object.entries(controls)) if (control.value.trim()) next.set(name, control.value.trim());
        navigate(`#/${screen}${next.size ? `?${next}` : ''}`);
      },
    },
    ...content,
  );
}

/** One page of a list read by cursor: its rows and, while there is one, the next page's cursor. */
export type ListPage<T> = Result<{ rows: T[]; next_cursor: string | null }>;

type Failure = Extract<Result<unknown>, { ok: false }>;

/**
 * A list read a page at a time (orders, links, refunds, unmatched payments, the audit log): `load`
 * appends the next page's rows to `body`; "Load more" (`more`) shows only while a next page is
 * there and loads only it (each row once: without a cursor the first page would be appended
 * again); `outcome` says the list is empty, or why a page failed (`failed`, sayFailure by default).
 */
export function pagedRows<T>(read: (cursor?: string) => Promise<ListPage<T>>, row: (item: T) => HTMLElement, empty: string, failed: (region: HTMLElement, failure: Failure) => void = sayFailure) {
  const body = h('tbody');
  const outcome = notice();
  const more = h('button', { type: 'button', hidden: true }, t().more);
  let cursor: string | undefined;
  const load = async () => {
    const result = await read(cursor);
    if (!result.ok) return failed(outcome, result);
    body.append(...result.data.rows.map(row));
    cursor = result.data.next_cursor ?? undefined;
    more.hidden = !cursor;
    if (!body.firstChild) say(outcome, empty);
  };
  more.onclick = () => cursor && void load();
  return { body, outcome, more, load };
}

/** What a list screen shows: its words, its columns, and how to read one page after a cursor. */
export interface PagedList<T> {
  title: string;
  lead: string;
  caption: string;
  empty: string;
  /** Each column's heading and its cell of a row. */
  columns: [string, (row: T) => Child][];
  page: (cursor?: string) => Promise<ListPage<T>>;
}

/** A screen of one table read a page at a time ({@link pagedRows}). */
export function pagedListScreen<T>(main: HTMLElement, list: PagedList<T>): void {
  const { body, outcome, more, load } = pagedRows(
    list.page,
    (item: T) =>
      h(
        'tr',
        null,
        list.columns.map(([label, cell]) => h('td', { 'data-label': label }, cell(item))),
      ),
    list.empty,
  );
  showScreen(
    main,
    list.title,
    h('p', null, list.lead),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'orders' },
        h('caption', null, list.caption),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            list.columns.map(([label]) => h('th', { scope: 'col' }, label)),
          ),
        ),
        body,
      ),
    ),
    more,
    outcome,
  );
  void load();
}
