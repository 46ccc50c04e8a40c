import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { expect } from 'vitest';
import { addAxe, keepScreenshot } from './browser';
import type { Started } from './processes';

/**
 * A Chromium page for the merchant portal with the browser's own passkey authenticator (the
 * DevTools WebAuthn domain's virtual authenticator, as a laptop's platform authenticator would
 * be), English unless `options` say otherwise, and Playwright's steps failing after 15 s rather
 * than at the test's timeout.
 */
export async function portalPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'en-US', ...options });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return page;
}

/** axe-core on the page as it is: no violation; with SCREENSHOTS=1, a full-page screenshot to tests/artifacts/page-<name>.png. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await addAxe(page);
  const result = await page.evaluate(async () => (window as unknown as { axe: { run: () => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe.run());
  await keepScreenshot(page, name);
  expect(
    result.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`),
    name,
  ).toEqual([]);
}

/**
 * `npm start` as a child process, on the run's DynamoDB Local with a table of its own
 * (`sharedDynamoDb`; `env` may name the table), with what it prints: the API, the mailbox, the
 * demo's invite and token.
 */
export async function startLocalRuntime(dataDir: string, env: Record<string, string> = {}) {
  const { sharedDynamoDb, startScript } = await import('./processes');
  const runtime = startScript('infra/local/start.ts', [], { PORT: '0', DATA_DIR: dataDir, TOKEN_HMAC_KEY: '', ...sharedDynamoDb(), ...env });
  const api = (await runtime.waitFor(/API:\s+(http:\/\/\S+)/))[1]!;
  const mailbox = (await runtime.waitFor(/Mailbox:\s+(http:\/\/\S+)/))[1]!;
  const inviteUrl = (await runtime.waitFor(/Portal invite:\s+(http:\/\/\S+)/))[1]!;
  const token = (await runtime.waitFor(/Demo API token:\s+(\S+)/))[1]!;
  await runtime.waitFor(/Ctrl-C stops everything/);
  return { runtime, api, mailbox, inviteUrl, token };
}

/** Stops what {@link startLocalRuntime} started (its process group; its table stays in the run's DynamoDB Local) and the browser, and removes its data folder. */
export async function stopLocalRuntime(runtime: Started | undefined, dataDir: string, browser?: { close(): Promise<void> }): Promise<void> {
  const { killGroup } = await import('./processes');
  const { rmSync } = await import('node:fs');
  await browser?.close();
  if (runtime) killGroup(runtime.child);
  rmSync(dataDir, { recursive: true, force: true });
}

/** A message the local runtime's SMTP server captured, as its mailbox page's messages.json lists it. */
export interface ListedMail {
  to: string;
  subject: string;
  text: string;
}

/** Every message the runtime's SMTP server received so far (`mailbox` is the URL it prints). */
export const listedMail = async (mailbox: string): Promise<ListedMail[]> => (await (await fetch(`${mailbox}messages.json`)).json()) as ListedMail[];

/** Sets the signed-in user's email preferences in the portal's Email screen: an address, a language, each payment. */
export async function chooseEmail(page: Page, address: string, language: 'en' | 'zh' = 'en'): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: 'Email' }).click();
  await page.getByRole('heading', { level: 1, name: 'Email' }).waitFor();
  await page.getByLabel('Email address').fill(address);
  await page.getByLabel('Language of the emails').selectOption(language);
  await page.getByLabel('Payments received').selectOption('each');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved.').waitFor();
}

/** Opens an invite in `page` and registers a passkey with Chromium's virtual authenticator: signed in, on Orders. */
export async function acceptInvite(page: Page, inviteUrl: string): Promise<void> {
  await page.goto(inviteUrl);
  await page.getByRole('button', { name: 'Create a passkey' }).click();
  await page.getByRole('button', { name: 'I have saved them' }).click();
  await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
}

/**
 * A polling portal screen's word on a failed refresh: the service answers `page`'s GETs of
 * `path` (a glob) with `status` (a 503 by default; a 429 comes with its Retry-After) until the
 * screen says "Could not refresh this page"; `stillShown` checks what the screen keeps meanwhile,
 * and once the service answers again the next poll takes the message back (so a 429, as a 5xx,
 * is one to try again, not the end of the polling).
 */
export async function expectRefreshFailureSaid(page: Page, path: string, stillShown: () => Promise<void>, status: 429 | 503 = 503): Promise<void> {
  await page.route(path, (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    return status === 429
      ? route.fulfill({ status, headers: { 'retry-after': '1' }, json: { status, error: 'Too many requests from this client, retry after 1 s.', error_code: 'API_LIMIT_EXCEEDED' } })
      : route.fulfill({ status, json: { status, error: 'Service unavailable', error_code: 'SERVICE_UNAVAILABLE' } });
  });
  const failed = page.getByRole('status').filter({ hasText: 'Could not refresh this page' });
  try {
    await failed.waitFor({ timeout: 20_000 });
    await stillShown();
  } finally {
    await page.unroute(path);
  }
  await failed.waitFor({ state: 'detached', timeout: 20_000 });
}

/**
 * A polling portal screen left while its read of `path` (a glob) is still on its way reads it no
 * more: the read is held, the screen left with `leave`, the read answered, and no GET of `path`
 * follows within one and a half of the screens' poll intervals (4 s).
 */
export async function expectNoReadAfterLeaving(page: Page, path: string, leave: () => Promise<void>): Promise<void> {
  let reads = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(path, async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    reads += 1;
    if (reads === 1) await released;
    return route.continue();
  });
  try {
    await expect.poll(() => reads, { timeout: 20_000 }).toBe(1);
    await leave();
    release();
    await page.waitForTimeout(6_000);
    expect(reads).toBe(1);
  } finally {
    release();
    await page.unroute(path);
  }
}
