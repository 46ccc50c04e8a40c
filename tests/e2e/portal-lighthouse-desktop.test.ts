/**
 * Lighthouse's accessibility score is exactly 1 on every merchant portal screen at 1100 px, in
 * English and in Chinese (tests/support/portal-lighthouse.ts: the screens and how).
 */
import { describePortalLighthouse } from '../support/portal-lighthouse';

const DESKTOP = { viewport: { width: 1100, height: 900 } };

describePortalLighthouse('desktop', [
  { name: 'en', formFactor: 'desktop', options: { ...DESKTOP, locale: 'en-US' } },
  { name: 'zh', formFactor: 'desktop', options: { ...DESKTOP, locale: 'zh-CN' } },
]);
