/**
 * A refund's entries in its order's audit log, shared by every step that writes one (asking it,
 * setting its address, a new link, its payment): the entry names the order, the refund, its
 * amount and currency, and who acted. The API's actor is here as its handlers name it.
 */
import type { AuditActor, AuditEntry } from '#shared/domain/audit';
import type { Refund } from '#shared/domain/refund';

/** A request with an API token, in the audit log. */
export const apiActor = (clientIp: string | undefined): AuditActor => ({ who: 'api', from: clientIp ?? 'unknown' });

export function auditEntry(action: AuditEntry['action'], actor: AuditActor, refund: Refund, now: Date, details: AuditEntry['details'] = {}): AuditEntry {
  return {
    at: now.toISOString(),
    action,
    ...actor,
    details: { order_id: refund.order_id, refund_id: refund.refund_id, amount: refund.amount, currency: refund.currency, ...details },
  };
}
