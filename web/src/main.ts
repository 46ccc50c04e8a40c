import { askCancel } from './actions';
import { startPolling } from './polling';
import { mount, render } from './render';
import { openRefund, refundSecret } from './refund';
import { isLinkPage, startLinkPage } from './link-page';
import { isPlanPage, startPlanPage } from './plan-page';
import { openSubscriber, subscriberSecret } from './subscriber';
import { gatewayPath, onRerender, state, validOrderId } from './state';

/**
 * The hosted payment page. It works from `?id=<order_id>`, polls the public order endpoint
 * while the order can still change (polling.ts), and renders one view per order status
 * (render.ts); the buyer's actions are in actions.ts. The same bundle serves the sandbox
 * gateway's test page (`.../sandbox-gateway/<gateway>?amount=...`), the payment link page
 * (`?link=<link_id>`, link-page.ts), the buyer's refund page (`#refund=<secret>`, refund.ts), a
 * subscription plan's link page (`?plan=<plan_id>`, plan-page.ts) and the subscriber's own page
 * (`#subscription=<secret>`, subscriber.ts).
 */

const app = document.getElementById('app') ?? document.body;
const secret = refundSecret();
const subscription = subscriberSecret();
/** A page of its own, not an order's: no order to poll. */
const ownPage = Boolean(secret || subscription) || isLinkPage() || isPlanPage();
if (secret) void openRefund(app, secret);
else if (subscription) void openSubscriber(app, subscription);
else if (isPlanPage()) void startPlanPage(app);
else if (isLinkPage()) {
  // A payment link (`?link=<id>`): its own page until the buyer picks a currency (link-page.ts).
  startLinkPage(app);
} else {
  mount(app);
  onRerender(render);
  render();
}
if (!ownPage && !gatewayPath() && validOrderId()) {
  startPolling();
  // Escape closes the cancel confirmation, wherever the keyboard is.
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && state.asking) askCancel(false);
  });
}
