import { describe, expect, it } from 'vitest';
import { emailRetryDelay } from '#shared/email/sender';

/**
 * When a failed email try's retry comes (shared/email/sender.ts): after the backoff, later when
 * another try holds one of its emails (until that lease ends), and earlier when it sent emails it
 * could not record: before their own claims' leases end, which a copy of the job would otherwise
 * take over and send again.
 */
const end = new Date('2026-12-06T22:00:00.000Z');
const inSeconds = (seconds: number) => new Date(end.getTime() + seconds * 1000).toISOString();
const sent = (leaseInSeconds: number) => [{ recipient: 'buyer', lease: inSeconds(leaseInSeconds), message_id: '<m@shop.test>' }];

describe("an email try's retry delay", () => {
  it('is the backoff when nothing is held or carried', () => {
    expect(emailRetryDelay(60, { reason: 'SMTP down' }, end)).toBe(60);
  });

  it('waits for another try’s lease to end, a lease at most', () => {
    expect(emailRetryDelay(5, { reason: 'held', heldUntil: inSeconds(30) }, end)).toBe(31);
    expect(emailRetryDelay(5, { reason: 'held', heldUntil: inSeconds(3600) }, end)).toBe(61);
    expect(emailRetryDelay(120, { reason: 'held', heldUntil: inSeconds(30) }, end)).toBe(120);
  });

  it('comes back ten seconds before its sent emails’ leases end, and never later than the backoff', () => {
    expect(emailRetryDelay(60, { reason: 'sent, not recorded', sent: sent(57) }, end)).toBe(47);
    expect(emailRetryDelay(5, { reason: 'sent, not recorded', sent: sent(57) }, end)).toBe(5);
    // The earliest lease counts; a held email elsewhere does not make it wait past it.
    expect(emailRetryDelay(60, { reason: 'held', heldUntil: inSeconds(40), sent: [...sent(57), ...sent(30)] }, end)).toBe(20);
  });

  it('keeps the backoff once the leases have (nearly) ended: there is nothing left to come back before', () => {
    expect(emailRetryDelay(120, { reason: 'sent, not recorded', sent: sent(8) }, end)).toBe(120);
    expect(emailRetryDelay(120, { reason: 'sent, not recorded', sent: sent(-30) }, end)).toBe(120);
  });
});
