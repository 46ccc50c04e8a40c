import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#infra/cdk/paths';
import { slugOf } from '../support/markdown';

/**
 * The docs' links hold (issue 29): every relative link of README.md and docs/*.md names a file
 * of the repository, every `#anchor` a heading of its target, and no doc points outside the
 * repository (a link that climbs out of it, an absolute path, a file: URL, a path on someone's
 * machine named in the prose).
 */
const DOCS = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];
const text = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

/** The text outside fenced code blocks and inline code (where `[x](y)` is code, not a link). */
const prose = (markdown: string) => markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');

/** The anchors of a Markdown file: its headings' (numbered -1, -2 when repeated) and explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = slugOf(heading!);
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  for (const [, id] of markdown.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

interface Link {
  doc: string;
  target: string;
}

const links: Link[] = DOCS.flatMap((doc) => [...prose(text(doc)).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)|^\[[^\]]+\]:\s*(\S+)/gm)].map((match) => ({ doc, target: (match[1] ?? match[2])! })));
const relativeLinks = links.filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target));

describe('documentation links', () => {
  it('reads the links (the check sees what it checks)', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'docs/deploy.md', 'docs/reference.md', 'docs/operator-guide.md']));
    expect(relativeLinks.length).toBeGreaterThan(40);
    expect(relativeLinks.filter(({ target }) => target.includes('#')).length).toBeGreaterThan(20);
  });

  it('finds the heading anchors GitHub makes', () => {
    expect(slugOf('Lightning (LND) and EOS (Hyperion)')).toBe('lightning-lnd-and-eos-hyperion');
    expect(slugOf('Gateway credentials (SSM)')).toBe('gateway-credentials-ssm');
    expect(slugOf('`pay_currency` codes')).toBe('pay_currency-codes');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n### B: c, d')]).toEqual(['a', 'a-1', 'b-c-d']);
  });

  it('every relative link names a file of the repository, and every #anchor a heading of it', () => {
    const broken = relativeLinks.flatMap(({ doc, target }) => {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? join(REPO_ROOT, doc) : resolve(dirname(join(REPO_ROOT, doc)), decodeURIComponent(path));
      if (relative(REPO_ROOT, file).startsWith('..')) return [`${doc}: ${target} is outside the repository`];
      if (!existsSync(file)) return [`${doc}: ${target} does not exist`];
      if (anchor === undefined || anchor === '') return [];
      if (statSync(file).isDirectory() || !file.endsWith('.md')) return [`${doc}: ${target} has an anchor into a file without headings`];
      return anchorsOf(text(relative(REPO_ROOT, file))).has(anchor) ? [] : [`${doc}: ${target} names no heading of ${relative(REPO_ROOT, file)}`];
    });
    expect(broken).toEqual([]);
  });

  it('no doc points at a file outside the repository (absolute paths, file: links, home folders)', () => {
    // Shell examples (code) name the operator's own files (`~/.lnd/tls.cert`, `file://macaroon.hex` for the AWS CLI); the prose and links may not.
    const outside = DOCS.flatMap((doc) => [...prose(text(doc)).matchAll(/(?<![\w.~-])(?:\/(?:work|home|Users|tmp|root|mnt|opt|srv)\/[\w./-]+|~\/[\w./-]+)/g)].map((match) => `${doc}: ${match[0]}`));
    expect(outside).toEqual([]);
    expect(links.filter(({ target }) => target.startsWith('/') || target.startsWith('~') || /^file:/i.test(target))).toEqual([]);
  });
});
