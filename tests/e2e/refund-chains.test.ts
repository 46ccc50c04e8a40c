/**
 * A live merchant's refund end to end on real chains, in headless Chromium: `npm run devnet`
 * (the EVM nodes and everything `npm start` runs) with BTC watched from a local Esplora server
 * in this process; a live merchant made with the merchant CLI (an ETH and a BTC key, every
 * status called back to an endpoint on loopback), signed in to the portal with the CLI's invite.
 * For a USDT order on the devnet and for a BTC order: paid with a real transaction, refunded
 * from the portal, the buyer's address entered on the refund page, the refund paid from the
 * merchant's wallet with a real transaction to the address and amount of the portal's wallet URI
 * (`npm run devnet:pay -- --uri` for the token transfer; a real BTC transaction on the Esplora
 * server's chain), seen by the watcher: the refund Sent with its transaction, the order REFUNDED
 * in the portal and the signed REFUNDED callback carrying the refund.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createPublicClient, getAddress, http, parseAbi, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDevnetState } from '#infra/devnet/state';
import { deriveAddress } from '#shared/payments/addresses/index';
import { launchChromium } from '../support/browser';
import type { FaultyServer } from '../support/chain-http';
import { startEsploraServer } from '../support/esplora-server';
import { MerchantEndpoint } from '../support/merchant-endpoint';
import { acceptInvite, portalPage, stopLocalRuntime } from '../support/portal-page';
import { eventually, runScript, sharedDynamoDb, startScript, type Started } from '../support/processes';
import { UtxoChain } from '../support/utxo-chain';
import { verifyCallback } from '../support/webhook-verify';
import { payTo, satsOf, testXpub } from '../support/watchers';

const dataDir = mkdtempSync(join(tmpdir(), 'refund-chains-e2e-'));
/** An ETH account key of the live merchant (any xpub: the invoices' addresses are derived from it). */
const ETH_XPUB = 'xpub6C1HVMz946r433QEjZGpYYWYcspxXXBPys5PBGkmQboRXE6RLfFiStEkKbWKCZaPgDrzZh9nUEunxuiuy6MNdw23du2Ek7GoKYMJVH8eK5E';

const chain = new UtxoChain('BTC');
const endpoint = new MerchantEndpoint();
let esplora: FaultyServer;
let runtime: Started;
let api = '';
let merchant: { api_token: string; callback_secret: string; portal_invite: string };
let browser: Browser;
let page: Page;

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const response = await fetch(api + path, { method, headers: { token: merchant.api_token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(200);
  return JSON.parse(text);
}

const orderStatus = async (id: string) => (await call('GET', `/v1/orders/${id}`)).order.status as string;

async function liveOrder(payCurrency: string, priceAmount: number) {
  const created = await call('POST', '/v1/orders', { price_amount: priceAmount, price_currency: 'USD', pay_currency: payCurrency, callback_url: endpoint.url });
  const id = created.order.order_id as string;
  return { id, invoice: (await call('GET', `/v1/orders/${id}`)).invoice as { payment_address: string; pay_amount: number } };
}

beforeAll(async () => {
  esplora = await startEsploraServer(chain);
  await endpoint.start();
  runtime = startScript('infra/devnet/start.ts', [], {
    PORT: '0',
    DEVNET_PORT: '0',
    DEVNET_ARBITRUM_PORT: '0',
    DATA_DIR: dataDir,
    BTC_ESPLORA_URL: esplora.url,
    // Two confirmations for the devnet's USDT, as BTC has here: the test waits two blocks, not twelve.
    USDT_ERC20_CONFIRMATIONS: '2',
    ...sharedDynamoDb(),
  });
  api = (await runtime.waitFor(/API:\s+(http:\/\/\S+)/))[1]!;
  await runtime.waitFor(/Pay an order's invoice/);
  expect(runtime.output()).toContain('Chain watchers: BTC (esplora)');

  const made = await runScript('infra/local/merchant-cli.ts', ['create', '--name', 'Live Refund Shop', '--xpub', `ETH=${ETH_XPUB}`, '--xpub', `BTC=${testXpub()}`, '--callback-statuses', 'all'], {
    DATA_DIR: dataDir,
  });
  expect(made.code, made.output).toBe(0);
  merchant = JSON.parse(made.output.trim().split('\n').at(-1)!);
  browser = await launchChromium();
  page = await portalPage(browser);
  page.on('dialog', (dialog) => void dialog.accept());
  await acceptInvite(page, merchant.portal_invite);
}, 180_000);

afterAll(async () => {
  await stopLocalRuntime(runtime, dataDir, browser);
  await endpoint.stop();
  await esplora?.close();
});

/**
 * In the portal: refunds all of the order; the buyer sets `address` on the refund page in a
 * browser of their own; answers the wallet URI the portal then shows beside the address.
 */
async function refundToBuyer(orderId: string, address: string): Promise<string> {
  await page.goto(`${page.url().split('#')[0]}#/orders/${orderId}`);
  await page.getByRole('heading', { level: 2, name: 'Refunds' }).waitFor();
  await page.getByLabel(/^All that is left: \d/).check();
  await page.getByRole('button', { name: 'Refund', exact: true }).click();
  const card = page.locator('article.refund');
  await expect.poll(() => card.locator('[data-field="refund-status"]').textContent()).toBe("Waiting for the buyer's address");
  const refundUrl = (await card.locator('[data-field="refund-url"]').textContent()) ?? '';

  const buyerContext = await browser.newContext({ locale: 'en-US' });
  const buyer = await buyerContext.newPage();
  await buyer.goto(refundUrl);
  await buyer.locator('#address').fill(address);
  await buyer.locator('button[type="submit"]').click();
  await expect.poll(() => buyer.locator('[data-field="address"]').textContent(), { timeout: 15_000 }).toBe(address);
  await buyerContext.close();

  await expect.poll(() => card.locator('[data-field="refund-address"]').textContent(), { timeout: 15_000 }).toBe(address);
  expect(await card.locator('[data-field="refund-status"]').textContent()).toBe('Waiting for your payment');
  return (await card.locator('[data-field="payment-uri"]').textContent()) ?? '';
}

/** The portal shows the refund Sent and the order Refunded; the REFUNDED callback, signed, carries the refund. */
async function expectRefunded(orderId: string, address: string, txid: string): Promise<void> {
  const card = page.locator('article.refund');
  await expect.poll(() => card.locator('[data-field="refund-status"]').textContent(), { timeout: 30_000 }).toBe('Sent');
  await expect.poll(() => page.locator('section[aria-labelledby="details-title"] .pill').textContent(), { timeout: 15_000 }).toBe('Refunded');
  expect(await orderStatus(orderId)).toBe('REFUNDED');
  await endpoint.waitFor(() => endpoint.for(orderId).some((callback) => callback.json?.status === 'REFUNDED'), 30_000);
  const callback = endpoint.for(orderId).find((received) => received.json?.status === 'REFUNDED')!;
  expect(verifyCallback(merchant.callback_secret, callback.headers, callback.body)).toBe(true);
  expect(callback.json.refunds).toEqual([expect.objectContaining({ status: 'SENT', address, txid })]);
}

describe('a live refund paid from the merchant’s wallet on a real chain', () => {
  it('USDT on the devnet: the buyer’s address from the refund page, a real token transfer to it, REFUNDED with the callback', async () => {
    const { id, invoice } = await liveOrder('USDT_ERC20', 30);
    const paid = await runScript('infra/devnet/pay.ts', [id], { DATA_DIR: dataDir });
    expect(paid.code, paid.output).toBe(0);
    expect(
      await eventually(
        () => orderStatus(id),
        (status) => status === 'PAID',
        30_000,
      ),
    ).toBe('PAID');

    const address = privateKeyToAccount(generatePrivateKey()).address;
    const uri = await refundToBuyer(id, address);
    const [ethereum] = readDevnetState(dataDir).networks;
    const contract = ethereum!.tokens.USDT_ERC20!.address;
    const units = parseUnits(String(invoice.pay_amount), 6);
    expect(uri).toBe(`ethereum:${getAddress(contract)}@${ethereum!.chainId}/transfer?address=${address}&uint256=${units}`);

    // The merchant pays the wallet URI from their own wallet: a real signed transfer on the devnet.
    const sent = await runScript('infra/devnet/pay.ts', ['--uri', uri], { DATA_DIR: dataDir });
    expect(sent.code, sent.output).toBe(0);
    const [, hash] = sent.output.match(/: (0x[0-9a-f]{64})/)!;
    const balance = await createPublicClient({ transport: http(ethereum!.rpcUrl) }).readContract({
      address: contract,
      abi: parseAbi(['function balanceOf(address) view returns (uint256)']),
      functionName: 'balanceOf',
      args: [address],
    });
    expect(balance).toBe(units);
    await expectRefunded(id, address, hash!);
  }, 120_000);

  it('BTC on the Esplora server: the buyer’s address from the refund page, a real transaction to it, REFUNDED with the callback', async () => {
    const { id, invoice } = await liveOrder('BTC', 65);
    payTo(chain, invoice.payment_address, satsOf(invoice.pay_amount));
    chain.mine();
    chain.mineEmpty(1);
    expect(
      await eventually(
        () => orderStatus(id),
        (status) => status === 'PAID',
        30_000,
      ),
    ).toBe('PAID');

    const address = deriveAddress('BTC', testXpub("m/84'/0'/7'"), 0);
    const uri = await refundToBuyer(id, address);
    expect(uri).toBe(`bitcoin:${address}?amount=${invoice.pay_amount}`);

    // The merchant's wallet pays the URI's amount to its address: a real transaction, two confirmations.
    const amount = new URL(uri).searchParams.get('amount')!;
    const tx = payTo(chain, address, satsOf(amount));
    chain.mine();
    chain.mineEmpty(1);
    await expectRefunded(id, address, tx.txid);
  }, 120_000);
});
