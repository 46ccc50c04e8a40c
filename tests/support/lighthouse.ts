import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { defaultConfig, snapshot, type Config } from 'lighthouse';
import { pageFunctions } from 'lighthouse/core/lib/page-functions.js';
import type { Browser, Page } from 'playwright-core';
import puppeteer, { type Browser as PuppeteerBrowser, type Page as PuppeteerPage } from 'puppeteer-core';
import { launchChromium } from './browser';
import { getOrMake } from './memo';

/** What Lighthouse's accessibility category said about one screen. */
export interface AccessibilityScore {
  /** 0..1; 1 when every weighted audit passed. */
  score: number | null;
  /** How many of the category's weighted audits applied to the screen and passed. */
  passed: number;
  /** Each failing audit: `<id>: <selector> <html snippet>` per element it names. */
  failures: string[];
}

const ACCESSIBILITY = defaultConfig.categories!.accessibility!;
const ACCESSIBILITY_IDS = new Set(ACCESSIBILITY.auditRefs.map((ref) => ref.id));

/**
 * Lighthouse's own accessibility category and its audits (the default config's, without the
 * other categories' audits, which Lighthouse would load on every run only to drop them); the
 * page audited as it stands (snapshot mode: no reload, no emulation of its own: the Playwright
 * context sets the viewport, so a 375 px mobile context is Lighthouse's mobile form factor at
 * that width). No full-page screenshot: the audits do not need it and it would resize the page.
 */
const config = (formFactor: 'mobile' | 'desktop'): Config => ({
  artifacts: defaultConfig.artifacts,
  audits: defaultConfig.audits!.filter((audit) => ACCESSIBILITY_IDS.has(String(audit).split('/').at(-1)!)),
  categories: { accessibility: ACCESSIBILITY },
  groups: defaultConfig.groups,
  settings: { onlyCategories: ['accessibility'], formFactor, screenEmulation: { disabled: true }, disableFullPageScreenshot: true },
});

/**
 * Before every run Lighthouse measures the machine (its BenchmarkIndex: two busy loops of at
 * least 500 ms each in the audited tab), for its performance metrics and a slow-CPU warning. No
 * accessibility audit reads it: each lists the artifacts it needs, and together they need only
 * axe-core's (`Accessibility`), which `accessibilityNeeds` checks before the first run, so a
 * Lighthouse release that changed this fails the test instead of skipping something it needs.
 * Measuring is skipped (the report's benchmarkIndex reads -1): a busy core for every screen
 * audited (docs/performance.md, "The test suite's time").
 */
pageFunctions.computeBenchmarkIndex = () => -1;

/**
 * Lighthouse formats every message it makes (each audit's title, description and details, in
 * English, as it makes it) with a new IntlMessageFormat, which looks its locale up in `Intl` and
 * parses the message again each time: half of this process's CPU for a screen, with the garbage
 * it left (docs/performance.md, "The test suite's time"). Both are pure functions of their
 * arguments, so they are remembered here (the package as Lighthouse itself loads it). The
 * messages and what they format to are unchanged.
 */
{
  type Formatter = { resolveLocale: (locales: string | string[]) => unknown; __parse: (message: string, options?: Record<string, unknown>) => unknown };
  const loaded = createRequire(createRequire(import.meta.url).resolve('lighthouse'))('intl-messageformat') as { IntlMessageFormat?: Formatter } & Formatter;
  const Formatter = loaded.IntlMessageFormat ?? loaded;
  const resolveLocale = Formatter.resolveLocale.bind(Formatter);
  const parse = Formatter.__parse;
  const locales = new Map<string, unknown>();
  const parsed = new Map<string, Map<string, unknown>>();
  Formatter.resolveLocale = (requested) => getOrMake(locales, JSON.stringify(requested), () => resolveLocale(requested));
  Formatter.__parse = (message, options = {}) => {
    // The options IntlMessageFormat passes; any other would be a new version's, parsed each time.
    if (Object.keys(options).some((name) => name !== 'ignoreTag' && name !== 'locale')) return parse(message, options);
    // By the message itself (its hash is kept with the string), within its options.
    const asts = getOrMake(parsed, `${String(options.ignoreTag)} ${String(options.locale)}`, () => new Map<string, unknown>());
    return getOrMake(asts, message, () => parse(message, options));
  };
}

/** The artifacts the accessibility audits need (the audit modules' own `requiredArtifacts`). */
async function accessibilityNeeds(): Promise<string[]> {
  const needs = new Set<string>();
  for (const audit of config('desktop').audits!) {
    const module = (await import(`lighthouse/core/audits/${String(audit)}.js`)) as { default: { meta: { requiredArtifacts: string[] } } };
    for (const artifact of module.default.meta.requiredArtifacts) needs.add(artifact);
  }
  return [...needs];
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * One headless Chromium that Playwright drives (sign-in with the virtual authenticator, clicks,
 * waits) and Lighthouse audits: Chromium opens a remote debugging port beside Playwright's pipe,
 * puppeteer-core attaches to it, and Lighthouse runs on the same tab, so the screen it audits
 * is the signed-in one Playwright left.
 */
export async function lighthouseChromium(): Promise<{
  browser: Browser;
  accessibility: (page: Page, formFactor: 'mobile' | 'desktop') => Promise<AccessibilityScore>;
  close: () => Promise<void>;
}> {
  const needs = await accessibilityNeeds();
  if (needs.join() !== 'Accessibility') throw new Error(`the accessibility audits need ${needs.join(', ')}: is measuring the machine still safe to skip (tests/support/lighthouse.ts)?`);
  const port = await freePort();
  const browser = await launchChromium([`--remote-debugging-port=${port}`]);
  let inspector: PuppeteerBrowser;
  try {
    inspector = await puppeteer.connect({ browserURL: `http://127.0.0.1:${port}`, defaultViewport: null });
  } catch (error) {
    await browser.close();
    throw error;
  }
  /**
   * Puppeteer's handle on the tab Playwright shows: the one page at this URL, asked of the page
   * itself (puppeteer's own record of a tab's URL misses a history.replaceState).
   */
  const sameTab = async (page: Page): Promise<PuppeteerPage> => {
    const pages = await inspector.pages();
    const urls = await Promise.all(pages.map((candidate) => candidate.evaluate(() => location.href)));
    const matching = pages.filter((_, index) => urls[index] === page.url());
    if (matching.length !== 1) throw new Error(`${matching.length} tabs at ${page.url()}: audit one open page at a time`);
    return matching[0]!;
  };
  return {
    browser,
    accessibility: async (page, formFactor) => {
      const result = await snapshot(await sameTab(page), { config: config(formFactor) });
      if (!result) throw new Error('Lighthouse gave no result');
      const { lhr } = result;
      if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
      const category = lhr.categories.accessibility!;
      const weighted = category.auditRefs.filter((ref) => ref.weight > 0).map((ref) => lhr.audits[ref.id]!);
      const failures = weighted
        .filter((audit) => audit.score !== null && audit.score < 1)
        .flatMap((audit) => {
          const items = ((audit.details as { items?: { node?: { selector?: string; snippet?: string } }[] } | undefined)?.items ?? []).map((item) => item.node);
          return items.length ? items.map((node) => `${audit.id}: ${node?.selector ?? '?'} ${node?.snippet ?? ''}`) : [`${audit.id}: ${audit.title}`];
        });
      return { score: category.score, passed: weighted.filter((audit) => audit.score === 1).length, failures };
    },
    close: async () => {
      await inspector.disconnect();
      await browser.close();
    },
  };
}
