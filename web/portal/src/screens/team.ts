import { h } from '../../../common/dom';
import { ROLES, type Role } from '#shared/domain/portal';
import type { PortalMember } from '#shared/schemas/portal-responses';
import { portalApi } from '../api';
import { formatTime } from '../format';
import { t } from '../i18n';
import { signedInUser } from '../session';
import { field, notice, say, sayFailure, showScreen, type Screen } from './screen';

/** The team (owners): members and their roles, invite by link, change a role, remove a member. */
export const teamScreen: Screen = (main) => {
  const strings = t();
  const outcome = notice();
  const body = h('tbody');
  const link = h('div', { class: 'card', hidden: true });
  const roleOptions = (selected: string) => ROLES.map((role) => h('option', { value: role, selected: role === selected }, strings.roles[role] ?? role));
  const row = (member: PortalMember) => {
    const me = member.user_id === signedInUser()?.user_id;
    const active = !member.removed_at && !me;
    const role = h(
      'select',
      {
        id: `role-${member.user_id}`,
        'aria-label': strings.changeRole(member.name),
        onchange: async () => {
          const result = await portalApi.changeRole(member.user_id, role.value as Role);
          if (!result.ok) return sayFailure(outcome, result);
          say(outcome, strings.roleChanged);
        },
      },
      roleOptions(member.role),
    );
    const remove = h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          if (!window.confirm(strings.confirmRemove(member.name))) return;
          const result = await portalApi.removeMember(member.user_id);
          if (!result.ok) return sayFailure(outcome, result);
          say(outcome, strings.removed);
          await load();
        },
      },
      strings.remove(member.name),
    );
    return h(
      'tr',
      null,
      h('td', { 'data-label': strings.colName }, member.name, me ? ` ${strings.you}` : ''),
      h('td', { 'data-label': strings.colRole }, active ? role : (strings.roles[member.role] ?? member.role)),
      h('td', { 'data-label': strings.colCreated }, member.removed_at ? strings.removedAt(formatTime(member.removed_at)) : formatTime(member.created_at)),
      h('td', { 'data-label': strings.actions }, active ? remove : ''),
    );
  };
  const load = async () => {
    const result = await portalApi.team();
    if (!result.ok) return sayFailure(outcome, result);
    body.replaceChildren(...result.data.members.map(row));
  };
  const name = h('input', { id: 'member-name', name: 'name', maxlength: '100', required: true, autocomplete: 'off' });
  const newRole = h('select', { id: 'member-role', name: 'role' }, roleOptions('viewer'));
  const invite = h(
    'form',
    {
      class: 'inline-form',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const result = await portalApi.invite(name.value.trim(), newRole.value as Role);
        if (!result.ok) return sayFailure(outcome, result);
        name.value = '';
        link.hidden = false;
        link.replaceChildren(h('p', null, strings.inviteLink), h('p', null, h('code', { id: 'invite-link' }, result.data.invite.url)));
        say(outcome, strings.done);
      },
    },
    field('member-name', strings.memberName, name),
    field('member-role', strings.memberRole, newRole),
    h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, strings.sendInvite)),
  );
  const table = h(
    'table',
    { class: 'team' },
    h('caption', null, strings.teamCaption),
    h('thead', null, h('tr', null, ...[strings.colName, strings.colRole, strings.colCreated, strings.actions].map((label) => h('th', { scope: 'col' }, label)))),
    body,
  );
  showScreen(main, strings.team, outcome, h('div', { class: 'table-wrap' }, table), h('h2', null, strings.inviteMember), invite, link);
  void load();
};
