import type { BrowserContext, Locator, Page } from 'playwright-core';

/**
 * Layout checks of a page as Chromium drew it (issue #41), run in the page with page.evaluate:
 * what a person would see as broken at a phone's or a laptop's width, in either language.
 *
 * - sideways: the page scrolls sideways (it is wider than its viewport), or a box inside it does.
 * - hidden-shown: an element marked `hidden` (or one inside it) is drawn all the same, as when a
 *   rule gives a button or a form a display that overrides the attribute.
 * - squeezed: text or a control is narrower than a word of its own: a word broken over lines in
 *   a box too narrow for it, a word sticking out of its box, or text wrapped in a box so narrow
 *   that its lines hold a word or a few letters each.
 * - control-size: a form control not at its natural size: a checkbox or radio button stretched
 *   to a text field's height or a column's width, a text field too narrow to read, or a single
 *   line field stretched tall.
 *
 * The thresholds are in ems of the text's or control's own font, so they hold at any font size.
 */
export const LAYOUT_RULES = {
  /**
   * A word may break over lines where no line could hold it (a long address, a URL), its pieces
   * then as wide as its box. A word broken in a box under 6em wide (six letters or so) was broken
   * by the squeeze: a column a few letters wide, a button a letter a line.
   */
  brokenWordEm: 6,
  /**
   * Text over two or more lines in a box under 5em wide holds a word or a few letters a line (a
   * caption as narrow as its longest word, a button one letter a line). Legitimately narrow boxes
   * (a code, a pill, a currency button) hold their text on one line or are wider than this.
   */
  wrappedBoxEm: 5,
  /** A text field or select narrower than 8em shows too little of what is typed (unless its container is narrower). */
  fieldMinEm: 8,
  /** A single-line text field or select taller than 4em has been stretched (to its row in a grid or flex layout). */
  fieldMaxHeightEm: 4,
  /**
   * A checkbox or radio button may be drawn larger than Chromium's natural 13 px for touch, up to
   * twice; one larger than that (44 px tall like a text field, or as wide as its form) no longer
   * reads as a box beside its label. Under three quarters of it, it is too small to hit.
   */
  controlScale: 2,
  controlMinScale: 0.75,
} as const;

export type LayoutCheck = 'sideways' | 'hidden-shown' | 'squeezed' | 'control-size';

export interface LayoutProblem {
  check: LayoutCheck;
  /** The element, as a short path of tags, ids and classes, and the start of its text. */
  where: string;
  detail: string;
}

/** Every layout problem of the page as it is drawn now (nothing is scrolled or changed). */
export function layoutProblems(page: Page): Promise<LayoutProblem[]> {
  return page.evaluate(inspectLayout, LAYOUT_RULES);
}

/**
 * The problems as lines a person reads in a failed assertion: one line for the problems of a kind
 * at the same place in the page (a squeezed column's every cell), the first of them with a count.
 */
export function describeProblems(problems: LayoutProblem[]): string[] {
  const groups = new Map<string, { first: LayoutProblem; count: number }>();
  for (const problem of problems) {
    const key = `${problem.check} ${problem.where.split(' "')[0]}`;
    const group = groups.get(key);
    if (group) group.count += 1;
    else groups.set(key, { first: problem, count: 1 });
  }
  return [...groups.values()].map(({ first, count }) => `${first.check}: ${first.where}: ${first.detail}${count > 1 ? ` (and ${count - 1} more like it)` : ''}`);
}

/**
 * The checks themselves, evaluated in the page: self-contained (Playwright sends the function's
 * source), reading only the DOM and the computed layout.
 */
function inspectLayout(rules: typeof LAYOUT_RULES): LayoutProblem[] {
  const problems: LayoutProblem[] = [];
  const reported = new Map<string, Set<Element>>();
  const px = (value: string) => Number.parseFloat(value) || 0;
  const round = (value: number) => Math.round(value);

  const nameOf = (element: Element) =>
    element.tagName.toLowerCase() +
    (element.id ? `#${element.id}` : '') +
    Array.from(element.classList)
      .map((name) => `.${name}`)
      .join('');
  const describe = (element: Element) => {
    const chain: string[] = [];
    for (let at: Element | null = element; at && at !== document.body && chain.length < 4; at = at.parentElement) chain.unshift(nameOf(at));
    const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 40);
    return (chain.join(' > ') || nameOf(element)) + (text ? ` "${text}"` : '');
  };
  // One problem of a kind per element: a squeezed column reports itself once, not once a word.
  const report = (check: LayoutCheck, element: Element, detail: string) => {
    const elements = reported.get(check) ?? new Set<Element>();
    reported.set(check, elements);
    if (elements.has(element)) return;
    elements.add(element);
    problems.push({ check, where: describe(element), detail });
  };

  // Elements drawn for screen readers only (clipped to nothing) or moved off the page's top or
  // left edge on purpose (a skip link, a phone table's column headings) are not seen.
  const unseen = new Map<Element, boolean>();
  const meantUnseen = (element: Element | null): boolean => {
    if (!element || element === document.body) return false;
    const known = unseen.get(element);
    if (known !== undefined) return known;
    const style = getComputedStyle(element);
    const box = element.getBoundingClientRect();
    const off = box.right + scrollX <= 0 || box.bottom + scrollY <= 0;
    const result = (style.clip !== 'auto' && style.clip !== '') || style.clipPath !== 'none' || off || meantUnseen(element.parentElement);
    unseen.set(element, result);
    return result;
  };
  // Inside a box that clips or scrolls what is wider than it (a table's scroll wrapper).
  const clippedByAncestor = (element: Element): boolean => {
    for (let at = element.parentElement; at && at !== document.body && at !== document.documentElement; at = at.parentElement) {
      if (getComputedStyle(at).overflowX !== 'visible') return true;
    }
    return false;
  };
  const drawn = (element: Element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility === 'visible';

  // --- sideways ---------------------------------------------------------------------------
  const viewport = document.documentElement.clientWidth;
  const scrolling = document.scrollingElement ?? document.documentElement;
  if (scrolling.scrollWidth > viewport) {
    // What reaches past the right edge: a box, or the text of an element (a box keeps its width when its text overflows it).
    const reaches = (element: Element) => {
      if (element.getBoundingClientRect().right + scrollX > viewport + 0.5) return true;
      for (const child of Array.from(element.childNodes)) {
        if (child.nodeType !== Node.TEXT_NODE) continue;
        const text = document.createRange();
        text.selectNodeContents(child);
        if (text.getBoundingClientRect().right + scrollX > viewport + 0.5) return true;
      }
      return false;
    };
    const past = Array.from(document.body.querySelectorAll('*')).filter((element) => drawn(element) && !meantUnseen(element) && !clippedByAncestor(element) && reaches(element));
    const deepest = past.filter((element) => !past.some((other) => other !== element && element.contains(other)));
    const detail = `the page is ${scrolling.scrollWidth} px wide in a ${viewport} px viewport`;
    if (deepest.length === 0) report('sideways', document.body, detail);
    for (const element of deepest.slice(0, 5)) report('sideways', element, `${detail}; this reaches past its right edge`);
  }
  for (const element of Array.from(document.body.querySelectorAll('*'))) {
    const overflow = getComputedStyle(element).overflowX;
    if ((overflow === 'auto' || overflow === 'scroll') && drawn(element) && element.scrollWidth > element.clientWidth + 1) {
      report('sideways', element, `scrolls sideways inside: ${element.scrollWidth} px of content in a ${element.clientWidth} px box`);
    }
  }

  // --- hidden-shown -----------------------------------------------------------------------
  for (const element of Array.from(document.querySelectorAll('[hidden]'))) {
    const shown = [element, ...Array.from(element.querySelectorAll('*'))].find((inner) => inner.getClientRects().length > 0);
    if (getComputedStyle(element).display !== 'none' || shown)
      report('hidden-shown', element, `marked hidden but drawn (display: ${getComputedStyle(element).display})${shown && shown !== element ? `, with ${nameOf(shown)} inside it` : ''}`);
  }

  // --- squeezed ---------------------------------------------------------------------------
  interface Line {
    top: number;
    bottom: number;
    left: number;
    right: number;
  }
  // A text's rectangles grouped into the lines they stand on (a line's pieces side by side).
  const linesOf = (rects: DOMRectList | DOMRect[]): Line[] => {
    const lines: Line[] = [];
    for (const rect of Array.from(rects)
      .filter((one) => one.width > 0.5 && one.height > 0.5)
      .sort((a, b) => a.top - b.top)) {
      const line = lines.find((known) => rect.top < known.bottom - rect.height / 2 && rect.bottom > known.top + rect.height / 2);
      if (line) {
        line.left = Math.min(line.left, rect.left);
        line.right = Math.max(line.right, rect.right);
      } else lines.push({ top: rect.top, bottom: rect.bottom, left: rect.left, right: rect.right });
    }
    return lines;
  };
  const widest = (lines: Line[]) => Math.max(...lines.map((line) => line.right - line.left));
  // A word is what a line may not break inside of: a run without spaces, ending after a hyphen;
  // in Chinese (and Japanese, Korean) each character may start a line.
  const CJK = '\\u2e80-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff\\uff00-\\uffef';
  const WORD = new RegExp(`[${CJK}]|[^\\s${CJK}\\u200b-]+-?`, 'gu');
  const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'OPTION', 'TEXTAREA', 'TITLE']);
  const range = document.createRange();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    const parent = node.parentElement;
    if (!parent || !node.data.trim() || SKIPPED.has(parent.tagName) || parent.closest('svg') || !drawn(parent) || meantUnseen(parent)) continue;
    const em = px(getComputedStyle(parent).fontSize);
    // The box the text's lines are laid in: the nearest element that is not inline.
    let box: Element = parent;
    while (box.parentElement && ['inline', 'contents'].includes(getComputedStyle(box).display)) box = box.parentElement;
    const boxStyle = getComputedStyle(box);
    const edges = box.getBoundingClientRect();
    const inner = { left: edges.left + px(boxStyle.borderLeftWidth), right: edges.right - px(boxStyle.borderRightWidth) };
    // Text straight inside a flex or grid container is a box of its own (an anonymous item): its lines are its width.
    const anonymous = box === parent && /flex|grid/.test(boxStyle.display);
    const contentWidth = box.clientWidth - px(boxStyle.paddingLeft) - px(boxStyle.paddingRight);

    range.selectNodeContents(node);
    const lines = linesOf(range.getClientRects());
    // How wide the text's lines may be.
    const measure = anonymous && lines.length ? widest(lines) : contentWidth;
    if (lines.length >= 2 && measure < rules.wrappedBoxEm * em) {
      report('squeezed', box, `text wraps over ${lines.length} lines in a box ${round(measure)} px wide (under ${rules.wrappedBoxEm}em, ${round(rules.wrappedBoxEm * em)} px)`);
    }
    // Each word's own rectangles only where a word could be found wrong: a word broken over lines
    // needs the text on two lines or more in a box under brokenWordEm, and a word sticking out
    // needs a line of the text sticking out (a word's pieces lie in its lines). Most text is one
    // line inside its box, and a range per word was most of this check's time.
    const within = (line: Line) => line.right <= inner.right + 1 && line.left >= inner.left - 1;
    const mayBreakWords = lines.length >= 2 && measure < rules.brokenWordEm * em;
    const mayStickOut = boxStyle.overflowX === 'visible' && !lines.every(within);
    if (!mayBreakWords && !mayStickOut) continue;
    for (const match of node.data.matchAll(WORD)) {
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const pieces = linesOf(range.getClientRects());
      if (pieces.length === 0) continue;
      // A long word breaks where it must in a box of a reasonable width (an address filling its
      // lines, break-all filling each to its end); in a box under 6em it was broken by the squeeze.
      if (pieces.length > 1 && measure < rules.brokenWordEm * em) {
        report(
          'squeezed',
          box,
          `"${match[0].slice(0, 30)}" is broken over ${pieces.length} lines in a box ${round(measure)} px wide (under ${rules.brokenWordEm}em, ${round(rules.brokenWordEm * em)} px)`,
        );
      }
      if (boxStyle.overflowX === 'visible' && pieces.some((piece) => piece.right > inner.right + 1 || piece.left < inner.left - 1)) {
        report('squeezed', box, `"${match[0].slice(0, 30)}" sticks out of its box (${round(inner.right - inner.left)} px wide)`);
      }
    }
  }

  // --- control-size -----------------------------------------------------------------------
  // A control's natural size: one of the same type with the browser's own styles only.
  const natural = new Map<string, { width: number; height: number }>();
  const naturalSize = (type: string) => {
    const known = natural.get(type);
    if (known) return known;
    const probe = document.createElement('input');
    probe.type = type;
    probe.style.setProperty('all', 'revert');
    probe.style.setProperty('position', 'absolute');
    probe.style.setProperty('visibility', 'hidden');
    document.body.append(probe);
    const { width, height } = probe.getBoundingClientRect();
    probe.remove();
    natural.set(type, { width, height });
    return { width, height };
  };
  const TEXT_LIKE = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', 'datetime-local', 'month', 'week', 'time']);
  for (const control of Array.from(document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('input, select, textarea'))) {
    if (!drawn(control) || meantUnseen(control)) continue;
    const { width, height } = control.getBoundingClientRect();
    const type = control instanceof HTMLInputElement ? control.type : control.tagName.toLowerCase();
    if (type === 'checkbox' || type === 'radio') {
      const size = naturalSize(type);
      const scale = Math.max(width / size.width, height / size.height);
      const least = Math.min(width / size.width, height / size.height);
      if (scale > rules.controlScale || least < rules.controlMinScale) {
        report(
          'control-size',
          control,
          `${type} drawn ${round(width)}×${round(height)} px; its natural size is ${round(size.width)}×${round(size.height)} px (from ${rules.controlMinScale} to ${rules.controlScale} times it)`,
        );
      }
      continue;
    }
    if (!(TEXT_LIKE.has(type) || type === 'select' || type === 'textarea')) continue;
    const em = px(getComputedStyle(control).fontSize);
    const container = control.parentElement;
    const room = container ? container.clientWidth - px(getComputedStyle(container).paddingLeft) - px(getComputedStyle(container).paddingRight) : Number.POSITIVE_INFINITY;
    if (width < Math.min(rules.fieldMinEm * em, room) - 1) report('control-size', control, `${type} field ${round(width)} px wide (under ${rules.fieldMinEm}em, ${round(rules.fieldMinEm * em)} px)`);
    if (type !== 'textarea' && height > rules.fieldMaxHeightEm * em)
      report('control-size', control, `${type} field ${round(height)} px tall (over ${rules.fieldMaxHeightEm}em, ${round(rules.fieldMaxHeightEm * em)} px)`);
  }
  return problems;
}

/**
 * Counts the page's requests in flight from its first script on (an init script of `context`):
 * a fetch counts until the answer's body was read as JSON and the page's code that awaited it
 * ran (a task later), so "none in flight" means a screen has drawn what it asked for. The apps
 * read every answer with response.json().
 */
export async function countRequests(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const counted = window as unknown as { layoutRequests: number };
    counted.layoutRequests = 0;
    const done = () => setTimeout(() => (counted.layoutRequests -= 1));
    const fetch = window.fetch.bind(window);
    window.fetch = (...args: Parameters<typeof window.fetch>) => {
      counted.layoutRequests += 1;
      return fetch(...args).catch((error: unknown) => {
        done();
        throw error;
      });
    };
    const json = Response.prototype.json;
    Response.prototype.json = function (this: Response) {
      return json.call(this).finally(done);
    };
  });
}

/** Waits until the page has no request in flight ({@link countRequests}) and its fonts are loaded. */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => (window as unknown as { layoutRequests?: number }).layoutRequests === 0);
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
}

export interface Paged {
  /** Each row's key: its data-* attributes when it has any, else its text. */
  keys: string[];
  /** The keys seen more than once. */
  repeated: string[];
  clicks: number;
  /** Load more was still shown after this many clicks. */
  endless: boolean;
}

/**
 * Pages through a list to its end: clicks "Load more" while it is shown, then clicks it once
 * more as a script could while it is hidden (a handler that loads without a next page would
 * append the first page again), and reads every row. Needs {@link countRequests} on the page's
 * context (or a list that loads without fetching, as a planted page's).
 */
export async function pageThrough(page: Page, rows: string, more: Locator, maxClicks = 20): Promise<Paged> {
  let clicks = 0;
  while (clicks < maxClicks && (await more.isVisible())) {
    await more.click();
    clicks += 1;
    await settled(page);
  }
  const endless = await more.isVisible();
  if ((await more.count()) > 0) {
    await more.dispatchEvent('click');
    await settled(page);
  }
  const keys = await page.locator(rows).evaluateAll((elements) =>
    elements.map((row) => {
      const data = Object.entries((row as HTMLElement).dataset);
      return data.length ? JSON.stringify(data) : (row.textContent ?? '').replace(/\s+/g, ' ').trim();
    }),
  );
  const repeated = [...new Set(keys.filter((key, index) => keys.indexOf(key) !== index))];
  return { keys, repeated, clicks, endless };
}
