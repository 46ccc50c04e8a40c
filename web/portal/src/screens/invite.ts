import { h } from '../../../common/dom';
import { t } from '../i18n';
import { navigate } from '../router';
import { acceptInvite } from '../session';
import { showRecoveryCodes } from './recovery-codes';
import { notice, say, showScreen, type Screen } from './screen';

/** An invite link: make a passkey here, then see the recovery codes once. */
export const inviteScreen: Screen = (main, params) => {
  const strings = t();
  const outcome = notice();
  const button = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: async () => {
        const result = await acceptInvite(params.token ?? '');
        if (result.ok) {
          // The token is spent: keep it out of the history, then show the codes.
          history.replaceState(null, '', '#/orders');
          showRecoveryCodes(main, result.data.recovery_codes ?? []);
        } else if (result.code === 'INVITE_UNUSABLE') {
          say(outcome, strings.inviteUnusable, 'error');
        } else {
          say(outcome, result.status === 429 ? strings.rateLimited : strings.error, 'error');
        }
      },
    },
    strings.inviteButton,
  );
  showScreen(main, strings.inviteTitle, h('p', null, strings.inviteLead), button, outcome, h('p', null, h('a', { href: '#/sign-in', onclick: () => navigate('#/sign-in') }, strings.signInTitle)));
};
