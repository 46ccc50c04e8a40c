import { fill, h } from '../../../src/dom';
import { currentLang, setLang, t } from '../i18n';
import { navigate } from '../router';
import { signedInUser, signOut } from '../session';

/** The frame around every screen: skip link, header (product, navigation, user, language, sign-out), main. */
export function renderLayout(root: HTMLElement, rerender: () => void): HTMLElement {
  const strings = t();
  const user = signedInUser();
  const main = h('main', { id: 'main', class: 'content' });
  const language = h('button', { type: 'button', class: 'link', lang: currentLang() === 'zh' ? 'en' : 'zh-CN', 'aria-label': strings.switchLabel, onclick: () => {
    setLang(currentLang() === 'zh' ? 'en' : 'zh');
    rerender();
  } }, strings.switchTo);
  const header = h(
    'header',
    { class: 'top' },
    h('p', { class: 'product' }, strings.product),
    user
      ? h('nav', { 'aria-label': strings.nav }, h('a', { href: '#/orders' }, strings.orders))
      : null,
    h(
      'div',
      { class: 'account' },
      user ? h('span', { class: 'user' }, strings.signedInAs(user.name, user.role)) : null,
      language,
      user
        ? h('button', { type: 'button', class: 'link', onclick: async () => {
            await signOut();
            navigate('#/sign-in');
          } }, strings.signOut)
        : null,
    ),
  );
  fill(root, h('a', { class: 'skip', href: '#main', onclick: (event: Event) => {
    event.preventDefault();
    main.querySelector<HTMLElement>('h1')?.focus();
  } }, strings.skip), header, main);
  return main;
}
