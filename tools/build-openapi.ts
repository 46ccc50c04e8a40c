/**
 * `npm run openapi`: writes docs/openapi.json from tools/openapi/document.ts.
 * `npm run openapi -- --check`: writes nothing; exits 1 when the committed file is stale
 * (missing or different from what would be generated), for CI and pre-commit hooks.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';

// The 503 example goes through the real error mapper, which logs a warning for every 5xx:
// keep the build's output to its own messages. (Set before the logger module loads.)
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
const { OPENAPI_DOCUMENT_FILE, renderOpenApiDocument } = await import('#tools/openapi/document');

const file = relative(process.cwd(), OPENAPI_DOCUMENT_FILE);
const generated = renderOpenApiDocument();

async function committed(): Promise<string | undefined> {
  try {
    return await readFile(OPENAPI_DOCUMENT_FILE, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

if (process.argv.includes('--check')) {
  if ((await committed()) !== generated) {
    console.error(`${file} is out of date: run \`npm run openapi\` and commit the result.`);
    process.exit(1);
  }
  console.log(`${file} is up to date.`);
} else {
  await mkdir(dirname(OPENAPI_DOCUMENT_FILE), { recursive: true });
  await writeFile(OPENAPI_DOCUMENT_FILE, generated);
  console.log(`Wrote ${file}.`);
}
