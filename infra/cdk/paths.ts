import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root, wherever the CDK app or a test is started from. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The lock file NodejsFunction hashes and whose folder esbuild runs in. */
export const LOCK_FILE = join(REPO_ROOT, 'package-lock.json');

/** The built payment page (made by the web build; absent until then). */
export const PAYMENT_PAGE_DIR = join(REPO_ROOT, 'web', 'dist');

/** The entry file of a function folder under functions/. */
export const functionEntry = (fn: string): string => join(REPO_ROOT, 'functions', fn, 'handler.ts');

/** The built merchant portal (made by the web build; absent until then). */
export const PORTAL_DIR = join(REPO_ROOT, 'web', 'portal', 'dist');
