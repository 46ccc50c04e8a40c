/**
 * The audit log: every security-relevant change of a merchant's account, with who made it,
 * when and from where. Entries are written in the same transaction as the change they record
 * and are kept (no expiry).
 */
export const AUDIT_ACTIONS = [
  'merchant.created',
  'merchant.disabled',
  'merchant.enabled',
  'settings.changed',
  'token.created',
  'token.revoked',
  'callback_secret.rolled',
  // The portal's team (issue 20, item 5).
  'member.invited',
  'member.joined',
  'member.removed',
  'member.role_changed',
  'passkey.added',
  'sign_in.new_passkey',
  // Refunds (issue 30): asked by the merchant, addressed by the buyer, sent from the merchant's wallet.
  'refund.asked',
  'refund.address_set',
  'refund.link_renewed',
  'refund.sent',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who made a change and from where: an operator at the CLI, or (later) a portal user. */
export interface AuditActor {
  /** `operator:<os user>` for the CLI; a portal user's id and e-mail for the portal. */
  who: string;
  /** `cli@<host>`, or the client address of a portal request. */
  from: string;
}

export interface AuditEntry extends AuditActor {
  at: string;
  action: AuditAction;
  /** What changed, without secrets (a token's id and name, a setting's new value). */
  details: Record<string, string | number | boolean | string[] | null>;
}
