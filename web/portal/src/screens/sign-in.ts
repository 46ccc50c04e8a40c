import { h } from '../../../common/dom';
import { t } from '../i18n';
import { navigate } from '../router';
import { addPasskey, signInWithPasskey, signInWithRecoveryCode } from '../session';
import { notice, say, showScreen, type Screen } from './screen';

/** Sign in with a passkey (the browser offers this site's), or with a recovery code. */
export const signInScreen: Screen = (main) => {
  const strings = t();
  const outcome = notice();
  const failed = (status: number) => say(outcome, status === 429 ? strings.rateLimited : strings.signInFailed, 'error');
  const passkeyButton = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: async () => {
        const result = await signInWithPasskey();
        if (result.ok) navigate('#/orders');
        else failed(result.status);
      },
    },
    strings.signInButton,
  );
  const codeInput = h('input', { id: 'recovery-code', name: 'code', autocomplete: 'one-time-code', spellcheck: 'false', required: true, maxlength: '64' });
  const recovery = h(
    'form',
    {
      class: 'recovery',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const result = await signInWithRecoveryCode(codeInput.value);
        if (!result.ok) return failed(result.status);
        // A recovery code means the passkey is gone: offer a new one at once.
        const main2 = main;
        const add = h(
          'button',
          {
            type: 'button',
            class: 'primary',
            onclick: async () => {
              const added = await addPasskey();
              if (added.ok) navigate('#/orders');
              else say(outcome, strings.error, 'error');
            },
          },
          strings.addPasskey,
        );
        showScreen(main2, strings.addPasskey, h('p', null, strings.recoveryAfter), add, h('p', null, h('a', { href: '#/orders' }, strings.orders)), outcome);
      },
    },
    h('h2', null, strings.recoveryTitle),
    h('label', { for: 'recovery-code' }, strings.recoveryLabel),
    codeInput,
    h('button', { type: 'submit' }, strings.recoveryButton),
  );
  showScreen(main, strings.signInTitle, h('p', null, strings.signInLead), passkeyButton, outcome, recovery);
};
