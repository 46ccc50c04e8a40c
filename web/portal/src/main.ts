import { h } from '../../common/dom';
import { setLang, currentLang } from './i18n';
import { listen, parseRoute, screensOf } from './router';
import { auditScreen } from './screens/audit';
import { developersScreen } from './screens/developers';
import { emailScreen } from './screens/email';
import { inviteScreen } from './screens/invite';
import { linkScreen } from './screens/link';
import { linksScreen } from './screens/links';
import { renderLayout } from './screens/layout';
import { refundsScreen } from './screens/refunds';
import { unmatchedScreen } from './screens/unmatched';
import { orderScreen } from './screens/order';
import { planScreen } from './screens/plan';
import { plansScreen } from './screens/plans';
import { subscriptionScreen } from './screens/subscription';
import { subscriptionsScreen } from './screens/subscriptions';
import { ordersScreen } from './screens/orders';
import type { Screen } from './screens/screen';
import { settingsScreen } from './screens/settings';
import { signInScreen } from './screens/sign-in';
import { teamScreen } from './screens/team';
import { loadSession, signedInUser } from './session';

/** The merchant portal: one page, screens by URL fragment, a session read once at start. */
const root = document.getElementById('app')!;
const SCREENS: Record<string, Screen> = {
  invite: inviteScreen,
  'sign-in': signInScreen,
  orders: ordersScreen,
  order: orderScreen,
  links: linksScreen,
  link: linkScreen,
  plans: plansScreen,
  plan: planScreen,
  subscriptions: subscriptionsScreen,
  subscription: subscriptionScreen,
  refunds: refundsScreen,
  unmatched: unmatchedScreen,
  developers: developersScreen,
  settings: settingsScreen,
  audit: auditScreen,
  team: teamScreen,
  email: emailScreen,
};
let stop: (() => void) | void;

function render(): void {
  if (stop) stop();
  stop = undefined;
  const route = parseRoute(location.hash);
  // Signed-out visitors see only the invite and sign-in screens.
  const user = signedInUser();
  const name = route.name === 'invite' ? 'invite' : !user ? 'sign-in' : screensOf(user.role).includes(route.name) ? route.name : 'orders';
  if (name === 'sign-in' && route.name !== 'sign-in' && location.hash !== '#/sign-in') history.replaceState(null, '', '#/sign-in');
  const main = renderLayout(root, render);
  stop = SCREENS[name]!(main, route.params);
}

setLang(currentLang());
root.append(h('p', null, '…'));
listen(render);
void loadSession().then(render);
