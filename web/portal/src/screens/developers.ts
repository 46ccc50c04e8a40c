import { fill, h } from '../../../common/dom';
import type { PortalToken } from '#shared/schemas/portal-responses';
import { portalApi } from '../api';
import { formatTime } from '../format';
import { t } from '../i18n';
import { field, notice, say, sayFailure, showScreen, type Screen, type Column, columnRow, dataTable, section } from './screen';

/** API tokens (create: shown once; list; revoke) and the callback secret (shown on demand, rolled with an overlap). */
export const developersScreen: Screen = (main) => {
  const strings = t();
  const outcome = notice();
  const body = h('tbody');
  const fresh = h('div', { class: 'card', hidden: true });
  const columns: Column<{ token: PortalToken; revoke: HTMLElement }>[] = [
    [strings.colName, ({ token }) => token.name],
    [strings.colPrefix, ({ token }) => (token.prefix ? h('code', null, `${token.prefix}…`) : '—')],
    [strings.colCreated, ({ token }) => formatTime(token.created_at)],
    [strings.colLastUsed, ({ token }) => (token.last_used_at ? formatTime(token.last_used_at) : strings.never)],
    [strings.actions, ({ revoke }) => revoke],
  ];
  const tokenRow = columnRow(columns);
  const row = (token: PortalToken) => {
    const revoke = h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          if (!window.confirm(strings.confirmRevoke(token.name))) return;
          const result = await portalApi.revokeToken(token.token_id);
          if (!result.ok) return sayFailure(outcome, result);
          say(outcome, strings.revoked);
          await load();
        },
      },
      strings.revoke(token.name),
    );
    return tokenRow({ token, revoke });
  };
  const load = async () => {
    const result = await portalApi.tokens();
    if (!result.ok) return sayFailure(outcome, result);
    body.replaceChildren(...result.data.tokens.map(row));
  };
  const name = h('input', { id: 'token-name', name: 'name', maxlength: '64', required: true, autocomplete: 'off' });
  const create = h(
    'form',
    {
      class: 'inline-form',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const result = await portalApi.createToken(name.value.trim());
        if (!result.ok) return sayFailure(outcome, result);
        name.value = '';
        fresh.hidden = false;
        fresh.replaceChildren(h('p', { role: 'alert' }, strings.tokenShownOnce), h('p', null, h('code', { id: 'new-token' }, result.data.token.api_token)));
        say(outcome, strings.done);
        await load();
      },
    },
    field('token-name', strings.tokenName, name),
    h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, strings.createToken)),
  );

  const secret = h('div', { id: 'secret', 'aria-live': 'polite' });
  const showSecret = (current: string, previous?: string, until?: string) =>
    fill(
      secret,
      h('p', null, strings.currentSecret, ': ', h('code', { id: 'current-secret' }, current)),
      previous && until ? h('p', null, strings.previousSecret(formatTime(until)), ': ', h('code', null, previous)) : null,
    );
  const overlap = h('input', { id: 'overlap-hours', name: 'overlap_hours', type: 'number', min: '0', max: '720', step: '1', value: '24', inputmode: 'numeric' });
  const secretSection = section(
    'secret-title',
    strings.secretTitle,
    h('p', null, strings.secretLead),
    h(
      'div',
      { class: 'buttons' },
      h(
        'button',
        {
          type: 'button',
          onclick: async () => {
            const result = await portalApi.showSecret();
            if (!result.ok) return sayFailure(outcome, result);
            showSecret(result.data.callback_secret, result.data.previous_callback_secret, result.data.previous_valid_until);
          },
        },
        strings.showSecret,
      ),
    ),
    h(
      'form',
      {
        class: 'inline-form',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          if (!window.confirm(strings.confirmRoll)) return;
          const result = await portalApi.rollSecret(Number(overlap.value || '24'));
          if (!result.ok) return sayFailure(outcome, result);
          const shown = await portalApi.showSecret();
          if (shown.ok) showSecret(shown.data.callback_secret, shown.data.previous_callback_secret, shown.data.previous_valid_until);
          say(outcome, strings.done);
        },
      },
      field('overlap-hours', strings.overlapHours, overlap),
      h('div', { class: 'buttons' }, h('button', { type: 'submit' }, strings.rollSecret)),
    ),
    secret,
  );
  showScreen(
    main,
    strings.developers,
    outcome,
    section('tokens-title', strings.tokensTitle, h('p', null, strings.tokensLead), create, fresh, dataTable({ class: 'tokens', caption: strings.tokensCaption }, columns, body)),
    secretSection,
  );
  void load();
};
