/**
 * Where the API token key comes from (shared/services/api-tokens.ts): locally a file created
 * on first use with mode 0600 and kept across restarts; one source only; long enough. Each
 * case loads the modules afresh, as a new process (a cold start) would.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const saved = { ...process.env };
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'token-key-'));
  delete process.env.TOKEN_HMAC_KEY;
  delete process.env.TOKEN_HMAC_KEY_FILE;
  delete process.env.TOKEN_HMAC_KEY_PARAMETER;
});
afterEach(() => {
  process.env = { ...saved };
  rmSync(dir, { recursive: true, force: true });
});

/** apiTokenHash of a freshly loaded module graph (a new process). */
async function coldStartHash(token: string): Promise<string> {
  vi.resetModules();
  const { apiTokenHash } = await import('#shared/services/api-tokens');
  return apiTokenHash(token);
}

describe('the API token key', () => {
  it('is created in TOKEN_HMAC_KEY_FILE on first use, mode 0600, and read again by the next process', async () => {
    const file = join(dir, 'token-hmac.key');
    process.env.TOKEN_HMAC_KEY_FILE = file;
    const first = await coldStartHash('a-chosen-token-1234');
    const text = readFileSync(file, 'utf8').trim();
    expect(text).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first).toBe(createHmac('sha256', text).update('a-chosen-token-1234').digest('hex'));
    expect(await coldStartHash('a-chosen-token-1234')).toBe(first);
  });

  it('is created once when two processes start at the same time', async () => {
    const file = join(dir, 'token-hmac.key');
    process.env.TOKEN_HMAC_KEY_FILE = file;
    vi.resetModules();
    const one = await import('#shared/services/api-tokens');
    vi.resetModules();
    const two = await import('#shared/services/api-tokens');
    expect(one.apiTokenHash).not.toBe(two.apiTokenHash);
    const [a, b] = await Promise.all([one.apiTokenHash('same-token-0000000'), two.apiTokenHash('same-token-0000000')]);
    expect(a).toBe(b);
    expect(readdirSync(dir)).toEqual(['token-hmac.key']);
  });

  it('uses an existing key file as it is', async () => {
    const file = join(dir, 'token-hmac.key');
    writeFileSync(file, 'k'.repeat(40), { mode: 0o600 });
    process.env.TOKEN_HMAC_KEY_FILE = file;
    expect(await coldStartHash('token-for-existing-key')).toBe(createHmac('sha256', 'k'.repeat(40)).update('token-for-existing-key').digest('hex'));
  });

  it('refuses a short key, two sources, and none', async () => {
    process.env.TOKEN_HMAC_KEY = 'too-short';
    await expect(coldStartHash('any-token-000000')).rejects.toThrow(/TOKEN_HMAC_KEY: the token key must be at least 32 characters/);
    process.env.TOKEN_HMAC_KEY_FILE = join(dir, 'k');
    await expect(coldStartHash('any-token-000000')).rejects.toThrow(/set only one of TOKEN_HMAC_KEY_FILE, TOKEN_HMAC_KEY/);
    delete process.env.TOKEN_HMAC_KEY;
    delete process.env.TOKEN_HMAC_KEY_FILE;
    await expect(coldStartHash('any-token-000000')).rejects.toThrow(/TOKEN_HMAC_KEY_PARAMETER, TOKEN_HMAC_KEY_FILE or TOKEN_HMAC_KEY is required/);
  });
});
