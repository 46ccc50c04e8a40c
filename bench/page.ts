/** The payment page's weight: gzipped bytes of the built JavaScript and CSS in web/dist. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { REPO_ROOT } from './child';

export interface PageReport {
  /** Null when web/dist is not built. */
  js_gzip_bytes: number | null;
  css_gzip_bytes: number | null;
  total_gzip_bytes: number | null;
  files: { path: string; bytes: number; gzip_bytes: number }[];
  note?: string;
  goals: { total_gzip_bytes_max: number };
}

const GOALS = { total_gzip_bytes_max: 50 * 1024 };

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

export function measurePage(dist = join(REPO_ROOT, 'web', 'dist')): PageReport {
  if (!existsSync(dist)) {
    return { js_gzip_bytes: null, css_gzip_bytes: null, total_gzip_bytes: null, files: [], note: 'web/dist is not built yet; build the page and run the bench again', goals: GOALS };
  }
  const files = walk(dist)
    .filter((path) => ['.js', '.mjs', '.css'].includes(extname(path)))
    .sort()
    .map((path) => {
      const content = readFileSync(path);
      return { path: relative(REPO_ROOT, path), bytes: content.length, gzip_bytes: gzipSync(content, { level: 9 }).length };
    });
  const sum = (css: boolean) => files.filter((f) => (extname(f.path) === '.css') === css).reduce((total, f) => total + f.gzip_bytes, 0);
  const js = sum(false);
  const css = sum(true);
  return {
    js_gzip_bytes: js,
    css_gzip_bytes: css,
    total_gzip_bytes: js + css,
    files,
    ...(files.length === 0 ? { note: 'web/dist has no .js or .css file' } : {}),
    goals: GOALS,
  };
}
