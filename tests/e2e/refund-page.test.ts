import { describe, expect, it } from 'vitest';
import { addAxe, fitsViewport } from '../support/browser';
import { browser, call, createOrder, english, eventually, merchant, open, server, status, usePaymentPage } from '../support/page-e2e';

/**
 * The buyer's refund page in Chromium, against the real handlers: the sandbox flow end to end
 * (ask -> link -> address -> reported txid through the sandbox check -> REFUNDED with the
 * refund in Get Order), a wrong network refused with its reason, the link one-time, axe 0 and
 * 375 px in both languages.
 */

usePaymentPage();

async function refundedOrder(payCurrency: string, body: Record<string, unknown> = {}) {
  const { order } = await createOrder({ callback_url: 'https://shop.example/callback' });
  const token = merchant.api_token;
  expect((await call('POST', `/v1/orders/${order.order_id}/checkout`, { token, body: { pay_currency: payCurrency } })).status).toBe(200);
  expect((await call('POST', `/v1/sandbox/orders/${order.order_id}/pay`, { token, body: {} })).status).toBe(200);
  const asked = await call('POST', `/v1/orders/${order.order_id}/refund`, { token, body });
  expect(asked.status, asked.text).toBe(200);
  return { orderId: order.order_id as string, refund: asked.body.refund as Record<string, any> };
}

async function axeViolations(page: import('playwright-core').Page): Promise<string[]> {
  await addAxe(page);
  return page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: () => Promise<{ violations: { id: string }[] }> } }).axe.run();
    return result.violations.map((violation) => violation.id);
  });
}

describe('the refund page', () => {
  it('takes a checked address once; the merchant reports the payment (sandbox check) and the order is REFUNDED', async () => {
    const { orderId, refund } = await refundedOrder('USDT_ERC20', { reason: 'Out of stock' });
    expect(refund.refund_url.startsWith(server.pageUrl)).toBe(true);
    const page = await open(refund.refund_url);
    await eventually(() => status(page).textContent()).toContain('where to send your refund');
    // The whole 9.99 USD order back, at the sandbox's 1 USD a token: read to the token's 6 decimals, as the payment page asks them.
    expect(refund.amount).toBe('9.99');
    await expect.poll(() => page.locator('[data-field="amount"]').textContent()).toBe('9.990000 USDT_ERC20');
    expect(await page.locator('[data-field="network"]').textContent()).toBe('Ethereum');
    expect(await axeViolations(page)).toEqual([]);

    // A TRON address for an Ethereum refund: refused, with what it is.
    await page.fill('#address', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    await page.click('button[type="submit"]');
    await eventually(() => page.locator('[role="alert"]').textContent()).toContain('This is a TRON address, but this refund is paid in USDT_ERC20 on Ethereum');
    // The token's own contract: tokens sent there are lost.
    await page.fill('#address', '0xdAC17F958D2ee523a2206206994597C13D831ec7');
    await page.click('button[type="submit"]');
    await eventually(() => page.locator('[role="alert"]').textContent()).toContain('token contract');
    expect(await axeViolations(page)).toEqual([]);

    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    await page.fill('#address', address);
    await page.click('button[type="submit"]');
    await eventually(() => status(page).textContent()).toContain('saved');
    expect(await page.locator('[data-field="address"]').textContent()).toBe(address);

    // The link no longer works.
    const again = await open(refund.refund_url);
    await eventually(() => again.locator('h1').textContent()).toBe('This refund link does not work');

    const token = merchant.api_token;
    const listed = await call('GET', `/v1/orders/${orderId}/refunds`, { token });
    expect(listed.body.refunds[0]).toMatchObject({ status: 'AWAITING_PAYMENT', address, refund_url: null });
    expect(listed.body.refunds[0].payment_uri).toMatch(/^ethereum:0x[0-9a-fA-F]{40}@1\/transfer\?address=0x52908400098527886E0F7030069857D2E4169EE7&uint256=\d+$/);
    const sent = await call('POST', `/v1/orders/${orderId}/refund-txid`, { token, body: { refund_id: refund.refund_id, txid: '0xabc123' } });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.refund).toMatchObject({ status: 'SENT', txid: '0xabc123' });
    const got = await call('GET', `/v1/orders/${orderId}`, { token });
    expect(got.body.order.status).toBe('REFUNDED');
    expect(got.body.refunds).toEqual([expect.objectContaining({ refund_id: refund.refund_id, status: 'SENT', address, txid: '0xabc123' })]);
  });

  it('fits a 375 px phone in Chinese, axe 0, with a Lightning invoice asked for', async () => {
    const { refund } = await refundedOrder('LBTC');
    const phone = await browser.newContext({ locale: 'zh-CN', viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
    const page = await phone.newPage();
    await page.goto(refund.refund_url);
    await eventually(() => page.locator('h1').textContent()).toBe('您的退款');
    expect(await page.locator('label[for="address"]').textContent()).toContain('闪电网络发票');
    await page.fill('#address', 'lnbc1invalid');
    await page.click('button[type="submit"]');
    await eventually(() => page.locator('[role="alert"]').count()).toBe(1);
    expect(await fitsViewport(page)).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await phone.close();
  });

  it('a link that is no link says so', async () => {
    const page = await open(`${server.pageUrl}#refund=${'A'.repeat(43)}`, english);
    await eventually(() => page.locator('h1').textContent()).toBe('This refund link does not work');
    expect(await axeViolations(page)).toEqual([]);
  });
});
