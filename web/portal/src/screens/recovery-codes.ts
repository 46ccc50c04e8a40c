import { h } from '../../../common/dom';
import { t } from '../i18n';
import { navigate } from '../router';
import { showScreen } from './screen';

/** The recovery codes, shown once right after the invite was accepted. */
export function showRecoveryCodes(main: HTMLElement, codes: readonly string[]): void {
  const strings = t();
  showScreen(
    main,
    strings.codesTitle,
    h('p', null, strings.codesLead),
    h(
      'ol',
      { class: 'codes' },
      codes.map((code) => h('li', null, h('code', null, code))),
    ),
    h('button', { type: 'button', class: 'primary', onclick: () => navigate('#/orders') }, strings.codesDone),
  );
}
