import { fill, h, type Child } from '../../../src/dom';

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
