/**
 * Routes by URL fragment (#/orders, #/orders/<id>, #/links, #/links/<id>, #/plans, #/plans/<id>, #/subscriptions, #/subscriptions/<id>,
 * #/refunds, #/unmatched, #/developers, #/settings, #/audit, #/team, #/email,
 * #/invite/<token>, #/sign-in): the app is
 * one index.html however it is served, and the invite token never reaches a server log.
 */
export interface Route {
  name:
    | 'invite'
    | 'sign-in'
    | 'orders'
    | 'order'
    | 'links'
    | 'link'
    | 'plans'
    | 'plan'
    | 'subscriptions'
    | 'subscription'
    | 'refunds'
    | 'unmatched'
    | 'developers'
    | 'settings'
    | 'audit'
    | 'team'
    | 'email';
  params: Record<string, string>;
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const params = Object.fromEntries(new URLSearchParams(query));
  if (parts[0] === 'invite' && parts[1]) return { name: 'invite', params: { token: parts[1] } };
  if (parts[0] === 'sign-in') return { name: 'sign-in', params };
  if (parts[0] === 'orders' && parts[1]) return { name: 'order', params: { id: parts[1] } };
  if (parts[0] === 'links') return parts[1] ? { name: 'link', params: { id: parts[1] } } : { name: 'links', params };
  if (parts[0] === 'plans') return parts[1] ? { name: 'plan', params: { id: parts[1] } } : { name: 'plans', params };
  if (parts[0] === 'subscriptions') return parts[1] ? { name: 'subscription', params: { id: parts[1] } } : { name: 'subscriptions', params };
  if (parts[0] === 'refunds' || parts[0] === 'unmatched' || parts[0] === 'developers' || parts[0] === 'settings' || parts[0] === 'audit' || parts[0] === 'team' || parts[0] === 'email')
    return { name: parts[0], params };
  return { name: 'orders', params };
}

/** The screens each role sees (the API checks the role on every route as well). */
const ROLE_SCREENS: Record<string, readonly string[]> = {
  owner: ['orders', 'order', 'links', 'link', 'plans', 'plan', 'subscriptions', 'subscription', 'refunds', 'unmatched', 'developers', 'settings', 'audit', 'team', 'email'],
  developer: ['orders', 'order', 'links', 'link', 'plans', 'plan', 'subscriptions', 'subscription', 'refunds', 'unmatched', 'developers', 'settings', 'audit', 'email'],
  viewer: ['orders', 'order', 'links', 'link', 'plans', 'plan', 'subscriptions', 'subscription', 'refunds', 'unmatched', 'email'],
};
export const screensOf = (role: string | undefined): readonly string[] => ROLE_SCREENS[role ?? ''] ?? [];

let onChange: (() => void) | undefined;

export function listen(render: () => void): void {
  onChange = render;
  window.addEventListener('hashchange', render);
}

/** Goes to a screen (drawn again when the fragment does not change). */
export function navigate(hash: string): void {
  if (location.hash === hash) onChange?.();
  else location.hash = hash;
}
