/**
 * `npm run docs`: writes docs/reference.md from tools/docs/reference.ts.
 * `npm run docs -- --check`: writes nothing; exits 1 when the committed file is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { REFERENCE_FILE, renderReference } from '#tools/docs/reference';

const file = relative(process.cwd(), REFERENCE_FILE);
const generated = renderReference();

if (process.argv.includes('--check')) {
  const committed = await readFile(REFERENCE_FILE, 'utf8').catch(() => undefined);
  if (committed !== generated) {
    console.error(`${file} is out of date: run \`npm run docs\` and commit the result.`);
    process.exit(1);
  }
  console.log(`${file} is up to date.`);
} else {
  await writeFile(REFERENCE_FILE, generated);
  console.log(`Wrote ${file}.`);
}
