import { fill, h } from '../../../common/dom';
import { languageSwitch } from '../../../common/i18n';
import { currentLang, setLang, t } from '../i18n';
import { navigate, screensOf } from '../router';
import { signedInMerchant, signedInUser, signOut } from '../session';

/** Who is signed in: the name and the role, or the name alone where it is the role's word ("Owner", not "Owner (Owner)"). */
function signedInLabel(name: string, role: string): string {
  return name.trim().toLowerCase() === role.toLowerCase() ? name : t().signedInAs(name, role);
}

/** The frame around every screen: skip link, header (product, navigation, user, language, sign-out), main. */
export function renderLayout(root: HTMLElement, rerender: () => void): HTMLElement {
  const strings = t();
  const user = signedInUser();
  const merchant = signedInMerchant();
  const NAV: [string, string][] = [
    ['orders', strings.orders],
    ['links', strings.links],
    ['plans', strings.plans],
    ['subscriptions', strings.subscriptions],
    ['refunds', strings.refundsWaiting],
    ['unmatched', strings.unmatched],
    ['developers', strings.developers],
    ['settings', strings.settings],
    ['audit', strings.audit],
    ['team', strings.team],
    ['email', strings.email],
  ];
  const current = location.hash.replace(/^#\//, '').split(/[/?]/)[0] || 'orders';
  const main = h('main', { id: 'main', class: 'content' });
  const language = languageSwitch(
    currentLang(),
    strings,
    (next) => {
      setLang(next);
      rerender();
    },
    'link',
  );
  const header = h(
    'header',
    { class: 'top' },
    h('p', { class: 'product' }, strings.product),
    user
      ? h(
          'nav',
          { 'aria-label': strings.nav },
          NAV.filter(([name]) => screensOf(user.role).includes(name)).map(([name, label]) => h('a', { href: `#/${name}`, 'aria-current': current === name ? 'page' : undefined }, label)),
        )
      : null,
    // The mode, plainly, on every signed-in page: a sandbox merchant's payments are not real.
    merchant ? h('p', { class: merchant.sandbox ? 'mode sandbox' : 'mode live', id: 'mode' }, `${merchant.name}: ${merchant.sandbox ? strings.modeSandbox : strings.modeLive}`) : null,
    h(
      'div',
      { class: 'account' },
      user ? h('span', { class: 'user' }, signedInLabel(user.name, strings.roles[user.role] ?? user.role)) : null,
      language,
      user
        ? h(
            'button',
            {
              type: 'button',
              class: 'link',
              onclick: async () => {
                await signOut();
                navigate('#/sign-in');
              },
            },
            strings.signOut,
          )
        : null,
    ),
  );
  fill(
    root,
    h(
      'a',
      {
        class: 'skip',
        href: '#main',
        onclick: (event: Event) => {
          event.preventDefault();
          main.querySelector<HTMLElement>('h1')?.focus();
        },
      },
      strings.skip,
    ),
    header,
    main,
  );
  return main;
}
