import { askCancel } from './actions';
import { startPolling } from './polling';
import { mount, render } from './render';
import { isLinkPage, startLinkPage } from './link-page';
import { gatewayPath, onRerender, state, validOrderId } from './state';

/**
 * The hosted payment page. It works from `?id=<order_id>`, polls the public order endpoint
 * while the order can still change (polling.ts), and renders one view per order status
 * (render.ts); the buyer's actions are in actions.ts. The same bundle serves the sandbox
 * gateway's test page (`.../sandbox-gateway/<gateway>?amount=...`) and the payment link page
 * (`?link=<link_id>`, link-page.ts).
 */

const app = document.getElementById('app') ?? document.body;
if (isLinkPage()) {
  // A payment link (`?link=<id>`): its own page until the buyer picks a currency (link-page.ts).
  startLinkPage(app);
} else {
  mount(app);
  onRerender(render);
  render();
}
if (!isLinkPage() && !gatewayPath() && validOrderId()) {
  startPolling();
  // Escape closes the cancel confirmation, wherever the keyboard is.
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && state.asking) askCancel(false);
  });
}
