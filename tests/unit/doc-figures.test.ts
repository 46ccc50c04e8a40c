import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '#shared/http/routes';
import { type Finding, routeCountsOf, unexplainedFigures } from '../support/doc-figures';

/**
 * No figure in the docs is written by hand (issue #41): a figure someone measured or worked out
 * from measurements (a size, a time, a cost, requests a day, a share) lives in
 * docs/performance.md with its date, and README.md and the other docs quote it from there with a
 * link, or it is generated, or it is a setting's declared default named beside it
 * (tests/support/doc-figures.ts has the rules). The README's "about 17 KB" of page JS and CSS,
 * written while the build printed 23.1 KB and performance.md said 19,370 B, is what this stops.
 */
const PERFORMANCE = readFileSync('docs/performance.md', 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync('docs')
    .filter((file) => file.endsWith('.md') && file !== 'performance.md')
    .map((file) => `docs/${file}`),
];
const linkFrom = (file: string) => (file === 'README.md' ? 'docs/performance.md' : 'performance.md');

/**
 * Figures the rules take for measured that are someone else's published figure, not ours to
 * measure: each with why. An entry that no longer matches a figure fails too (it is removed with
 * its figure).
 */
const STATED: (Omit<Finding, 'why' | 'line'> & { because: string })[] = [
  { file: 'docs/merchant-guide.md', figure: '10,240 bytes', because: "API Gateway's HTTP API quota for the request line and headers" },
  { file: 'docs/merchant-guide.md', figure: '13 minutes', because: "Ethereum's finality: two epochs of 32 slots of 12 s" },
  { file: 'docs/operator-guide.md', figure: '100 requests per 10', because: "the Solana public endpoint's published rate limit" },
  { file: 'docs/security.md', figure: '10%', because: 'the fault rate tests/integration/watch-steps-faults.test.ts sets (0.1)' },
];

const findings = DOCS.flatMap((file) => unexplainedFigures(file, readFileSync(file, 'utf8'), PERFORMANCE, linkFrom(file)));
const stated = (finding: Finding) => STATED.some((entry) => entry.file === finding.file && entry.figure === finding.figure);

describe('figures in the docs', () => {
  it('every measured figure outside docs/performance.md is quoted from it, generated, or a named default', () => {
    expect(findings.filter((finding) => !stated(finding)).map(({ file, line, figure, why }) => `${file}:${line}: ${figure} (${why})`)).toEqual([]);
  });

  it('each figure stated from elsewhere is still in its doc', () => {
    expect(STATED.filter((entry) => !findings.some((finding) => finding.file === entry.file && finding.figure === entry.figure))).toEqual([]);
  });

  it("a count of a path's routes is the route table's (the README once said four /v1/pay/ routes: there were eight)", () => {
    const wrong = DOCS.flatMap((file) =>
      routeCountsOf(readFileSync(file, 'utf8')).flatMap(({ line, count, prefix }) => {
        const routes = ROUTES.filter((route) => route.path.startsWith(prefix)).length;
        return routes === count ? [] : [`${file}:${line}: ${count} ${prefix} routes; the route table has ${routes}`];
      }),
    );
    expect(wrong).toEqual([]);
    // Planted: the old sentence is found, with its count and prefix.
    expect(routeCountsOf('Quotas apply to the public routes:\nthe four `/v1/pay/` routes and health.')).toEqual([{ line: 2, count: 4, prefix: '/v1/pay/' }]);
    expect(ROUTES.filter((route) => route.path.startsWith('/v1/pay/')).length).not.toBe(4);
  });

  describe('the scanner (planted)', () => {
    const performance = ['# Performance', '', '## Payment page', '', 'JS and CSS together: 19,370 B gzipped.', '', '## Load', '', 'p50 184 ms; TronGrid 13.6 a minute (19,584 a day).', ''].join('\n');
    const scan = (markdown: string) => unexplainedFigures('planted.md', markdown, performance, 'performance.md').map(({ line, figure }) => `${line}: ${figure}`);

    it('finds a hand-written size, cost, time or share, with its line', () => {
      expect(scan('Intro.\n\nThe page is about 17 KB of JS and CSS.')).toEqual(['3: 17 KB']);
      expect(scan('The build prints 23.1 KB for both.')).toEqual(['1: 23.1 KB']);
      expect(scan('A secret costs $0.40 a month.')).toEqual(['1: $0.40']);
      expect(scan('Detection took 9.2 s at the median.')).toEqual(['1: 9.2 s']);
      expect(scan('It uses about 20% of the key.')).toEqual(['1: 20%']);
      // A figure that wraps is still one figure, on the line it starts.
      expect(scan('Text.\nThe page is about\n17\nKB.')).toEqual(['3: 17 KB']);
    });

    it('takes a figure quoted from performance.md with a link, in the section the link names', () => {
      expect(scan('The page is 19,370 B ([performance.md](performance.md#payment-page)).')).toEqual([]);
      expect(scan('The page is 19,370 B ([performance.md](performance.md)).')).toEqual([]);
      // Not the section linked, no link, or another figure: found.
      expect(scan('The page is 19,370 B ([performance.md](performance.md#load)).')).toEqual(['1: 19,370 B']);
      expect(scan('The page is 19,370 B gzipped.')).toEqual(['1: 19,370 B']);
      expect(scan('The page is 19,371 B ([performance.md](performance.md#payment-page)).')).toEqual(['1: 19,371 B']);
      // In a section a link names, the number as written is enough; not one rounded by hand.
      expect(scan('About 19,584 requests a day ([measured](performance.md#load)).')).toEqual([]);
      expect(scan('About 19,600 requests a day ([measured](performance.md#load)).')).toEqual(['1: 19,600 requests a day']);
      expect(scan('About 19,584 requests a day ([measured](performance.md)).')).toEqual(['1: 19,584 requests a day']);
      // A table row counts its header's link.
      expect(scan('| Page | Size ([measured](performance.md#payment-page)) |\n|---|---|\n| pay | 19,370 B |')).toEqual([]);
      expect(scan('| Page | Size |\n|---|---|\n| pay | 19,370 B |')).toEqual(['3: 19,370 B']);
    });

    it("takes a setting's default named beside it, in the setting's unit", () => {
      expect(scan('Each watcher looks every `WATCH_INTERVAL_SECONDS` (about 10 s).')).toEqual([]);
      expect(scan('Each watcher looks every `WATCH_INTERVAL_SECONDS` (about 11 s).')).toEqual(['1: 11 s']);
      expect(scan('The watcher looks at the tip about 10 s apart.')).toEqual(['1: 10 s']);
    });

    it('leaves rules and generated sections alone', () => {
      expect(scan('A request times out after 10 s; bodies are limited to 64 KB.')).toEqual([]);
      expect(scan('Ethereum: 12 blocks (about 2.4 minutes).')).toEqual([]);
      expect(scan('<!-- table:begin (generated) -->\nIt took 13.0 s.\n<!-- table:end -->\nIt took 13.0 s.')).toEqual(['4: 13.0 s']);
      expect(scan('<!-- Generated by `npm run docs` -->\n\nIt took 13.0 s.')).toEqual([]);
    });
  });
});
