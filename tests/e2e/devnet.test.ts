import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatDecimal } from '#shared/domain/money';
import { readDevnetState } from '#infra/devnet/state';
import { EthereumBlockSource } from '#shared/watchers/sources/ethereum/source';
import { killGroup, runScript, startScript, stopLeftoverJava, type Started } from '../support/processes';

/**
 * `npm run devnet` as a user runs it: the node, the test tokens, the service with its Ethereum
 * settings pointed at the node; then `npm run devnet:pay` pays a checked-out invoice with a
 * real signed transaction, which the Ethereum source finds on the chain.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'devnet-e2e-'));
const running: Started[] = [];

afterAll(() => {
  for (const started of running) killGroup(started.child);
  stopLeftoverJava(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (url: string, token: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('npm run devnet', () => {
  it('starts a chain with test tokens and the service on it; devnet:pay pays an invoice on chain', async () => {
    const started = startScript('infra/devnet/start.ts', [], { PORT: '0', DEVNET_PORT: '0', DATA_DIR: dataDir });
    running.push(started);
    const [, url] = await started.waitFor(/API:\s+(http:\/\/\S+)/);
    const [, token] = await started.waitFor(/Demo API token: (\S+)/);
    await started.waitFor(/Pay an order's invoice/);
    const state = readDevnetState(dataDir);
    expect(started.output()).toContain(`Test USDT:       ${state.tokens.USDT_ERC20}`);

    const created = await post(`${url}/v1/orders`, token!, { price_amount: 9.99, pay_currency: 'USDT_ERC20' });
    expect(created.status).toBe(200);
    const { order } = (await created.json()) as any;
    const { invoice } = (await (await fetch(`${url}/v1/orders/${order.order_id}`, { headers: { token: token! } })).json()) as any;
    // The token URI names the devnet's chain and contract: the service reads the devnet settings.
    expect(invoice.payment_uri.toLowerCase()).toBe(
      `ethereum:${state.tokens.USDT_ERC20}@31337/transfer?address=${invoice.payment_address}&uint256=9990000`.toLowerCase(),
    );

    const paid = await runScript('infra/devnet/pay.ts', [order.order_id], { DATA_DIR: dataDir });
    expect(paid.code, paid.output).toBe(0);
    const [, hash, height] = paid.output.match(/: (0x[0-9a-f]{64})\s+in block (\d+) \(success\)/)!;

    const source = new EthereumBlockSource({
      url: state.rpcUrl,
      chainId: state.chainId,
      tokens: [{ currency: 'USDT_ERC20', contract: state.tokens.USDT_ERC20 }],
    });
    const block = await source.block(Number(height));
    expect(block.transfers.map((t) => [t.key, t.address, formatDecimal(t.amount)])).toEqual([
      [`${hash}:0`, invoice.payment_address, '9.99'],
    ]);

    expect(await started.stop('SIGINT')).toBe(0);
  }, 120_000); // DynamoDB Local, the node and three processes on a shared machine

  it('devnet:pay explains what is wrong for an order without an invoice it can pay', async () => {
    const result = await runScript('infra/devnet/pay.ts', [], { DATA_DIR: dataDir });
    expect(result.code).toBe(2);
    expect(result.output).toContain('usage: npm run devnet:pay -- <order_id>');
  });
});
