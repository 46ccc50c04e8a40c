/**
 * Lighthouse's accessibility score is exactly 1 on every merchant portal screen, in English and
 * in Chinese, at 1100 px on a desktop and at 375 px as a phone (Playwright's mobile emulation;
 * Lighthouse's mobile form factor). tests/support/portal-lighthouse.ts: the screens and how.
 * The four passes share one `npm start` and one Chromium.
 */
import { describePortalLighthouse } from '../support/portal-lighthouse';

const DESKTOP = { viewport: { width: 1100, height: 900 } };
const PHONE = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

describePortalLighthouse('desktop and 375 px phone', [
  { name: 'en', formFactor: 'desktop', options: { ...DESKTOP, locale: 'en-US' } },
  { name: 'zh', formFactor: 'desktop', options: { ...DESKTOP, locale: 'zh-CN' } },
  { name: 'en-375', formFactor: 'mobile', options: { ...PHONE, locale: 'en-US' } },
  { name: 'zh-375', formFactor: 'mobile', options: { ...PHONE, locale: 'zh-CN' } },
]);
