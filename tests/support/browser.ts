import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import jsQR from 'jsqr';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { createApiServer } from '#infra/local/http-adapter';
import { apiFunctions } from '#infra/local/handlers';
import { staticFiles } from '#infra/local/static-files';
import { ROUTES } from '#shared/http/routes';

/**
 * Debian's Chromium headless shell (`chromium-headless-shell`, which .ci/run installs): the same
 * Blink and V8 without the browser around them, as Playwright's own headless Chromium is. The
 * browser files took about a third less CPU on it than on the full browser run headless
 * (docs/performance.md, "The browser files on Chromium's headless shell"). The full browser
 * (`chromium`) where only it is installed.
 */
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
export const CHROMIUM = existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium';

const ARTIFACTS = resolve('tests/artifacts');

/**
 * Headless Chromium for the page tests. Playwright gives every launch a fresh temporary
 * profile (its own --user-data-dir), removed on close. `extraArgs` adds switches (the
 * Lighthouse test opens a remote debugging port).
 */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', ...extraArgs],
  });
}

const listen = async (server: Server) => {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const closer = (server: Server) => () =>
  new Promise<void>((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });

/**
 * What `npm start` serves on its one port, in this process: the API's real handlers behind
 * the API Gateway adapter, and the built page (web/dist) under /pay/. PAYMENT_PAGE_URL points
 * at it before any handler loads, so `payment_url` and the sandbox gateway links lead here.
 */
export async function startPageServer(): Promise<{ url: string; pageUrl: string; close: () => Promise<void> }> {
  const server = createApiServer(
    ROUTES.map((route) => ({ ...route, load: apiFunctions[route.fn]! })),
    [staticFiles('/pay/', resolve('web/dist'), 'page')],
  );
  const url = await listen(server);
  const previous = process.env.PAYMENT_PAGE_URL;
  process.env.PAYMENT_PAGE_URL = `${url}/pay/`;
  const close = closer(server);
  return {
    url,
    pageUrl: `${url}/pay/`,
    close: async () => {
      await close();
      process.env.PAYMENT_PAGE_URL = previous;
    },
  };
}

/** A stand-in for the merchant's own site: success_url and cancel_url land here. */
export async function startShopSite(): Promise<{ url: string; visits: string[]; close: () => Promise<void> }> {
  const visits: string[] = [];
  const server = createServer((request, response) => {
    visits.push(request.url ?? '/');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>Shop</title><h1>Shop page ${request.url?.replace(/[<>&"]/g, '') ?? ''}</h1>`);
  });
  return { url: await listen(server), visits, close: closer(server) };
}

/** axe-core's browser build, for an accessibility audit. */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * Puts axe-core (`window.axe`) in the page through DevTools, not as a script tag: the apps are
 * served under their CSP (script-src 'self', shared/core/site-headers.ts), which rightly refuses
 * an inline script, and DevTools' evaluation is outside the page's CSP.
 */
export async function addAxe(page: Page): Promise<void> {
  await page.evaluate(readFileSync(AXE, 'utf8'));
}

/**
 * Whether the browser tests write screenshots for a person to review (`SCREENSHOTS=1`): each
 * state's to tests/artifacts/, each layout view's to test-results/layout/. Not by default: no
 * check reads them, and full-page captures are Chromium's rasterizing and encoding (about a
 * quarter of the layout file's CPU).
 */
export const SCREENSHOTS = process.env.SCREENSHOTS === '1';

/** With SCREENSHOTS=1: the whole page to tests/artifacts/page-<name>.png (gitignored), for a person to review the state. */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `page-${name}.png`), fullPage: true });
}

/** The text of the QR code in `element`, read from its pixels as the browser drew them. */
export async function decodeQr(element: Locator): Promise<string | undefined> {
  return decodeQrPng(await element.screenshot());
}

/** The text of the QR code in a PNG image (a screenshot, or a downloaded file). */
export function decodeQrPng(png: Buffer): string | undefined {
  // pngjs gives 8-bit RGBA whatever the file holds, as jsQR reads it.
  const { width, height, data } = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), width, height)?.data;
}

/** True when the page is no wider than its viewport (nothing to scroll sideways). */
export function fitsViewport(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
}
