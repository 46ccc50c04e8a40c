import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import jsQR from 'jsqr';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { createApiServer } from '#infra/local/http-adapter';
import { apiFunctions } from '#infra/local/handlers';
import { staticFiles } from '#infra/local/static-files';
import { ROUTES } from '#shared/http/routes';

/** Debian's Chromium (.ci/run installs it). */
export const CHROMIUM = '/usr/bin/chromium';

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
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
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
    [staticFiles('/pay/', resolve('web/dist'))],
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

/** tests/artifacts/page-<name>.png (gitignored), for a human to review each state. */
export function artifact(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, `page-${name}.png`);
}

/** The text of the QR code in `element`, read from its pixels as the browser drew them. */
export async function decodeQr(element: Locator): Promise<string | undefined> {
  return decodeQrPng(element.page().context(), await element.screenshot());
}

/** The text of the QR code in a PNG image (a screenshot, or a downloaded file). */
export async function decodeQrPng(context: BrowserContext, png: Buffer): Promise<string | undefined> {
  // Let Chromium decode the PNG: a scratch page draws it on a canvas and hands back the RGBA pixels.
  const scratch = await context.newPage();
  try {
    const { width, height, pixels } = await scratch.evaluate(async (base64) => {
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      const context = canvas.getContext('2d')!;
      context.drawImage(image, 0, 0);
      const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
      return { width: canvas.width, height: canvas.height, pixels: Array.from(data) };
    }, png.toString('base64'));
    return jsQR(Uint8ClampedArray.from(pixels), width, height)?.data;
  } finally {
    await scratch.close();
  }
}

/** True when the page is no wider than its viewport (nothing to scroll sideways). */
export function fitsViewport(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
}
