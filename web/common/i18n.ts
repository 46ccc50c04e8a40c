import { h } from './dom';

/**
 * The i18n skeleton every web app shares: its two languages, English and Chinese (the merchants
 * of this API sell in both), picked from the browser, switchable, and remembered on this device
 * under the app's own key. Each app keeps its own catalogue of strings (`Record<Lang, Strings>`).
 */
export type Lang = 'en' | 'zh';

/** The `lang` attribute of the document for a language. */
export const htmlLang = (lang: Lang): string => (lang === 'zh' ? 'zh-CN' : 'en');

/** The remembered choice under `storageKey`, else the browser's language (zh-CN, zh-TW, zh... -> zh). */
export function initialLang(storageKey: string): Lang {
  try {
    const saved = localStorage.getItem(storageKey);
    if (saved === 'en' || saved === 'zh') return saved;
  } catch {
    // Storage may be disabled (private mode): the browser's language decides.
  }
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export function rememberLang(storageKey: string, lang: Lang): void {
  try {
    localStorage.setItem(storageKey, lang);
  } catch {
    // Not remembered; the switch still works for this visit.
  }
}

/** The strings the language switch needs, in each catalogue. */
export interface SwitchStrings {
  /** The other language's name, in that language ("中文", "English"). */
  switchTo: string;
  /** What the button does, in the other language (its accessible name). */
  switchLabel: string;
}

/** The button that switches to the other language (marked as that language for screen readers). */
export function languageSwitch(current: Lang, strings: SwitchStrings, onSwitch: (next: Lang) => void, className: string): HTMLButtonElement {
  const other: Lang = current === 'en' ? 'zh' : 'en';
  return h('button', { type: 'button', class: className, lang: htmlLang(other), 'aria-label': strings.switchLabel, onclick: () => onSwitch(other) }, strings.switchTo);
}
