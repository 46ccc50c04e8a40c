/**
 * Lighthouse's accessibility score is exactly 1 on every merchant portal screen at 375 px as a
 * phone (Playwright's mobile emulation; Lighthouse's mobile form factor), in English and in
 * Chinese (tests/support/portal-lighthouse.ts: the screens and how).
 */
import { describePortalLighthouse } from '../support/portal-lighthouse';

const PHONE = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

describePortalLighthouse('375 px phone', [
  { name: 'en-375', formFactor: 'mobile', options: { ...PHONE, locale: 'en-US' } },
  { name: 'zh-375', formFactor: 'mobile', options: { ...PHONE, locale: 'zh-CN' } },
]);
