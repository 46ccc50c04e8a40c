import { fill, h, type Child } from '../../../common/dom';
import { answerOrder, type Look, type Pace, poller } from '../../../common/poller';
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

/** How often a live screen (an order, a payment link, a subscription) reads itself again: every 4 s, every 30 s in a hidden tab, at most 8 s apart after failures. */
export const LIVE_PACE: Pace = { visibleMs: 4000, hiddenMs: 30_000, maxBackoffMs: 8000 };

/**
 * Keeps a live screen fresh at {@link LIVE_PACE} (web/common/poller.ts: one read at a time, a
 * read asked during one follows it, none once the screen is left). An answer is drawn (`show`)
 * and takes back a "could not refresh" notice in `region`, and only that one (an action's
 * outcome shown since stays). A failure the service may get over (no answer, a 5xx, a 429) is
 * said there ("could not refresh, trying again") instead of leaving the page silently as it
 * was, and the read is tried again (not before a 429's Retry-After); a missing item says `missing`, and a lost session goes back
 * to sign-in; those and any other refusal end the polling. `now` reads at once (after an
 * action); `leave` is the screen's leave function. `drawn` takes an action's request as it is
 * sent, when its answer is the screen's item too, and draws that answer with `show` unless a read
 * sent after it was drawn first (web/common/poller.ts, answerOrder): a read on its way when the
 * action was sent does not draw its older answer over the action's.
 */
export function keepFresh<T>(
  region: HTMLElement,
  read: () => Promise<Result<T>>,
  show: (data: T) => void,
  missing: string,
): { now(): Promise<void>; leave(): void; drawn(request: Promise<Result<T>>): Promise<Result<T>> } {
  const turn = answerOrder();
  const polls = poller(LIVE_PACE, async (): Promise<Look> => {
    const current = turn();
    const result = await read();
    if (result.ok) {
      if (current()) show(result.data);
      if (region.textContent === t().refreshFailed) say(region, '');
      return { ok: true };
    }
    if (result.status === 404) say(region, missing, 'error');
    else if (result.status !== 0 && result.status !== 429 && result.status < 500) sayFailure(region, result);
    else {
      say(region, t().refreshFailed, 'error');
      return { ok: false, retryAfterMs: result.retryAfterMs };
    }
    return 'stop';
  });
  void polls.now();
  const drawn = async (request: Promise<Result<T>>): Promise<Result<T>> => {
    const current = turn();
    const result = await request;
    if (result.ok && current()) show(result.data);
    return result;
  };
  return { now: polls.now, leave: polls.stop, drawn };
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

/** A table's column: its heading and its cell of a row. */
export type Column<T> = [label: string, cell: (row: T) => Child];

/** A row of `columns`, each cell labelled with its column's heading (what a phone's layout shows beside the cell). */
export const columnRow =
  <T>(columns: Column<T>[]) =>
  (item: T): HTMLElement =>
    h(
      'tr',
      null,
      columns.map(([label, cell]) => h('td', { 'data-label': label }, cell(item))),
    );

/**
 * A table of the portal in its wrapper (which scrolls it sideways when a phone is too narrow):
 * its class, its name (a caption, or `labelledBy`, the id of the heading above it: a caption
 * would say the same words a second time), its columns' headings and its body.
 */
export function dataTable<T>(name: { class: string; caption: string } | { class: string; labelledBy: string }, columns: Column<T>[], body: HTMLElement): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      'caption' in name ? { class: name.class } : { class: name.class, 'aria-labelledby': name.labelledBy },
      'caption' in name ? h('caption', null, name.caption) : null,
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          columns.map(([label]) => h('th', { scope: 'col' }, label)),
        ),
      ),
      body,
    ),
  );
}

/** What a list screen shows: its words, its columns, and how to read one page after a cursor. */
export interface PagedList<T> {
  title: string;
  lead: string;
  caption: string;
  empty: string;
  columns: Column<T>[];
  page: (cursor?: string) => Promise<ListPage<T>>;
}

/** A screen of one table read a page at a time ({@link pagedRows}). */
export function pagedListScreen<T>(main: HTMLElement, list: PagedList<T>): void {
  const { body, outcome, more, load } = pagedRows(list.page, columnRow(list.columns), list.empty);
  showScreen(main, list.title, h('p', null, list.lead), dataTable({ class: 'orders', caption: list.caption }, list.columns, body), more, outcome);
  void load();
}

/** An order's status as its coloured label. */
export const statusPill = (status: string): HTMLElement => h('span', { class: `pill s-${status.toLowerCase()}` }, t().statuses[status] ?? status);

/** A section named by its heading (`id`: the heading's, which the section is labelled by). */
export const section = (id: string, title: string, ...content: Child[]): HTMLElement => h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...content);

/** Facts as terms and their values (a value of null is left out). */
export const facts = (pairs: [string, string | Node | null][]) =>
  h(
    'dl',
    { class: 'facts' },
    pairs.filter(([, value]) => value !== null).map(([term, value]) => [h('dt', null, term), h('dd', null, value)]),
  );
