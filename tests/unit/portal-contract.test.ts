import { describe, expect, it } from 'vitest';
import { ROUTES } from '#shared/http/routes';
import { PORTAL_RESPONSES, type PortalSession } from '#shared/schemas/portal-responses';
import { portalAnswerProblems, portalRouteOf } from '../support/portal-contract';

/**
 * The portal's contract (shared/schemas/portal-responses.ts): every portal route declares the
 * view it answers, and the check the portal's integration tests run on every answer
 * (tests/support/portal-contract.ts) refuses what its schema does not allow.
 */
const session: PortalSession = {
  status: 200,
  user: { user_id: '5b0c8a43-5d6e-4c1f-9a8e-2b7d0f3c4e51', name: 'Ada', role: 'owner', merchant_id: 7 },
  merchant: { name: 'Shop', sandbox: true },
  csrf_token: 'c5rf',
  expires_at: '2026-11-27T12:00:00.000Z',
};

describe('the portal contract', () => {
  it('declares an answer for every portal route but the streamed export, and for nothing else', () => {
    const portal = ROUTES.filter((route) => route.portal);
    expect(portal.length).toBeGreaterThan(25);
    expect(portal.filter((route) => !route.stream && !(route.fn in PORTAL_RESPONSES)).map((route) => route.fn)).toEqual([]);
    expect(Object.keys(PORTAL_RESPONSES).filter((fn) => !portal.some((route) => route.fn === fn && !route.stream))).toEqual([]);
  });

  it('finds the route of a request (the export is not an order id)', () => {
    expect(portalRouteOf('GET', '/v1/portal/orders/export?status=PAID')?.fn).toBe('portal-export-orders');
    expect(portalRouteOf('GET', '/v1/portal/orders/5b0c8a43-5d6e-4c1f-9a8e-2b7d0f3c4e51')?.fn).toBe('portal-get-order');
    expect(portalRouteOf('POST', '/v1/portal/orders/x/callbacks/resend')?.fn).toBe('portal-resend-callback');
    expect(portalRouteOf('DELETE', '/v1/portal/session')).toBeUndefined();
  });

  it('takes a well-formed answer, and refuses a stray field, a missing one or a wrong type', () => {
    expect(portalAnswerProblems('GET', '/v1/portal/session', session)).toEqual([]);
    expect(portalAnswerProblems('GET', '/v1/portal/session', { ...session, merchant: undefined, recovery_codes: ['a'] })).toEqual([]);
    expect(portalAnswerProblems('GET', '/v1/portal/session', { ...session, secret: 'x' }).join()).toMatch(/PortalSession must NOT have additional properties.*secret/);
    const { csrf_token: _dropped, ...missing } = session;
    expect(portalAnswerProblems('GET', '/v1/portal/session', missing).join()).toMatch(/must have required property.*csrf_token/);
    expect(portalAnswerProblems('GET', '/v1/portal/session', { ...session, user: { ...session.user, role: 'admin' } }).join()).toMatch(/\/user\/role must be equal to one of the allowed values/);
    expect(portalAnswerProblems('GET', '/v1/portal/orders', { status: 200, orders: [{ order_id: 'x' }], next_cursor: null }).length).toBeGreaterThan(0);
    expect(portalAnswerProblems('GET', '/v1/portal/orders', { status: 200, orders: [], next_cursor: null })).toEqual([]);
  });
});
