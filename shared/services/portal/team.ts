import type { AuditActor, AuditEntry } from '#shared/domain/audit';
import { portalConfig } from '#shared/core/config';
import { INVITE_TTL_HOURS, type Invite, type PortalUser, type Role, TEAM_MANAGERS } from '#shared/domain/portal';
import { PortalInputError, PortalNotFoundError, TeamChangeRefusedError } from '#shared/domain/portal-errors';
import { CLI_ACTOR } from '#shared/services/merchants';
import { MerchantNotFoundError } from '#shared/services/api-tokens';
import type { PortalInvite, PortalMember } from '#shared/schemas/portal-responses';
import { requireRole } from '#shared/services/portal/account';
import { type PortalContext, randomToken, sha256 } from '#shared/services/portal/sessions';
import { insertInvite } from '#shared/store/invites';
import { changeUserRole, findPortalUser, listMerchantUsers, removeUser } from '#shared/store/portal-users';

/**
 * A merchant's team in the portal: owners invite members by link with a role, change a role,
 * remove a member (whose sessions end at once). Each change is written with its audit entry.
 * Apart from auth.ts (WebAuthn) so the team's routes carry no WebAuthn library.
 */

/** A member's name as an invite gives it: 1 to 100 characters, no control characters. */
const NAME_PATTERN = /^[^\p{Cc}]{1,100}$/u;

/** A one-time invite link for a merchant's user: the link is shown once, only its hash is kept. */
export async function createInvite(input: { merchantId: number; role?: Role; name?: string; ttlHours?: number }, now = new Date(), actor: AuditActor = CLI_ACTOR): Promise<PortalInvite['invite']> {
  const token = randomToken();
  const invite: Invite = {
    merchant_id: input.merchantId,
    role: input.role ?? 'owner',
    name: input.name ?? 'Owner',
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + (input.ttlHours ?? INVITE_TTL_HOURS) * 3_600_000).toISOString(),
  };
  const audit: AuditEntry = { at: invite.created_at, action: 'member.invited', ...actor, details: { name: invite.name, role: invite.role, expires_at: invite.expires_at } };
  if (!(await insertInvite(sha256(token), invite, audit))) throw new MerchantNotFoundError(input.merchantId);
  return { url: `${portalConfig().appUrl}#/invite/${token}`, expires_at: invite.expires_at, role: invite.role, name: invite.name };
}

/** Who a portal user is in the audit log: their id and name, from the request's client address. */
export function portalActor(context: PortalContext, clientIp: string | undefined): AuditActor {
  return { who: `${context.user.user_id} (${context.user.name})`, from: clientIp ?? 'unknown' };
}

/** What the team page shows of a member. */
export function memberView(user: PortalUser): PortalMember {
  return { user_id: user.user_id, name: user.name, role: user.role, created_at: user.created_at, removed_at: user.removed_at ?? null };
}

/** The merchant's members (owners only), the removed ones last. */
export async function listTeam(context: PortalContext) {
  requireRole(context, TEAM_MANAGERS);
  const users = await listMerchantUsers(context.user.merchant_id);
  return [...users.filter((user) => !user.removed_at), ...users.filter((user) => user.removed_at)].map(memberView);
}

/** An owner invites a member with a role (the link works once, for INVITE_TTL_HOURS). */
export async function inviteMember(context: PortalContext, input: { name: string; role: Role }, clientIp: string | undefined, now = new Date()) {
  requireRole(context, TEAM_MANAGERS);
  if (!NAME_PATTERN.test(input.name) || input.name.trim() === '') throw new PortalInputError('A name is 1 to 100 characters.');
  return createInvite({ merchantId: context.user.merchant_id, role: input.role, name: input.name.trim() }, now, portalActor(context, clientIp));
}

/** Another active member of the signed-in owner's merchant (anyone else's is a missing one). */
async function otherMember(context: PortalContext, memberId: string): Promise<PortalUser> {
  requireRole(context, TEAM_MANAGERS);
  if (memberId === context.user.user_id) throw new TeamChangeRefusedError('You cannot change your own membership: ask another owner.');
  const member = memberId.length <= 100 ? await findPortalUser(memberId) : undefined;
  if (!member || member.merchant_id !== context.user.merchant_id || member.removed_at) throw new PortalNotFoundError();
  return member;
}

/** An owner changes another member's role. */
export async function changeMemberRole(context: PortalContext, memberId: string, role: Role, clientIp: string | undefined, now = new Date()) {
  const member = await otherMember(context, memberId);
  const audit: AuditEntry = {
    at: now.toISOString(),
    action: 'member.role_changed',
    ...portalActor(context, clientIp),
    details: { user_id: member.user_id, name: member.name, from_role: member.role, role },
  };
  if (!(await changeUserRole(member.user_id, context.user.merchant_id, role, audit))) throw new PortalNotFoundError();
  return memberView({ ...member, role });
}

/** An owner removes another member: disabled, every session of theirs ends at once. */
export async function removeMember(context: PortalContext, memberId: string, clientIp: string | undefined, now = new Date()) {
  const member = await otherMember(context, memberId);
  const audit: AuditEntry = { at: now.toISOString(), action: 'member.removed', ...portalActor(context, clientIp), details: { user_id: member.user_id, name: member.name, role: member.role } };
  if (!(await removeUser(member.user_id, context.user.merchant_id, now, audit))) throw new PortalNotFoundError();
  return memberView({ ...member, removed_at: now.toISOString() });
}
