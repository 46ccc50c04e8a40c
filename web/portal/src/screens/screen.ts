import { fill, h, type Child } from '../../../common/dom';
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
