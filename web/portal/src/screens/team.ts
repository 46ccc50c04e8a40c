import { h } from '../../../common/dom';
import { ROLES, type Role } from '#shared/domain/portal';
import type { PortalMember } from '#shared/schemas/portal-responses';
import { portalApi } from '../api';
import { formatTime } from '../format';
import { t } from '../i18n';
import { signedInUser } from '../session';
import { field, notice, say, sayFailure, showScreen, type Screen, type Column, columnRow, dataTable } from './screen';

/** The team (owners): members and their roles, invite by link, change a role, remove a member. */
export const teamScreen: Screen = (main) => {
  const strings = t();
  const outcome = notice();
  const body = h('tbody');
  const link = h('div', { class: 'card', hidden: true });
  const roleOptions = (selected: string) => ROLES.map((role) => h('option', { value: role, selected: role === selected }, strings.roles[role] ?? role));
  const columns: Column<{ member: PortalMember; me: boolean; active: boolean; role: HTMLElement; remove: HTMLElement }>[] = [
    [strings.colName, ({ member, me }) => [member.name, me ? ` ${strings.you}` : '']],
    [strings.colRole, ({ member, active, role }) => (active ? role : (strings.roles[member.role] ?? member.role))],
    [strings.colCreated, ({ member }) => (member.removed_at ? strings.removedAt(formatTime(member.removed_at)) : formatTime(member.created_at))],
    [strings.actions, ({ active, remove }) => (active ? remove : '')],
  ];
  const memberRow = columnRow(columns);
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
    return memberRow({ member, me, active, role, remove });
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
  showScreen(main, strings.team, outcome, dataTable({ class: 'team', caption: strings.teamCaption }, columns, body), h('h2', null, strings.inviteMember), invite, link);
  void load();
};
