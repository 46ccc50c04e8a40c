import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatDecimal } from '#shared/domain/money';
import { readDevnetState } from '#infra/devnet/state';
import { EthereumBlockSource } from '#shared/watchers/sources/ethereum/source';
import { killGroup, runScript, startScript, stopLeftoverJava, type Started } from '../support/processes';

/**
 * `npm run devnet` as a user runs it: two nodes (Ethereum and Arbitrum, each its own chain id),
 * the test tokens on each, the service with both networks' settings pointed at them; then `npm
 * run devnet:pay` pays a checked-out invoice on each network with a real signed transaction,
 * which that network's source finds on its chain.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'devnet-e2e-'));
const running: Started[] = [];

afterAll(() => {
  for (const started of running) killGroup(started.child);
  stopLeftoverJava(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (url: string, token: string, body: unknown) => fetch(url, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('npm run devnet', () => {
  it('starts Ethereum and Arbitrum with their own chain ids and test tokens and the service on both; devnet:pay pays an invoice on its network', async () => {
    const started = startScript('infra/devnet/start.ts', [], { PORT: '0', DEVNET_PORT: '0', DEVNET_ARBITRUM_PORT: '0', DATA_DIR: dataDir });
    running.push(started);
    const [, url] = await started.waitFor(/API:\s+(http:\/\/\S+)/);
    const [, token] = await started.waitFor(/Demo API token: (\S+)/);
    await started.waitFor(/Pay an order's invoice/);
    const state = readDevnetState(dataDir);
    const [ethereum, arbitrum] = state.networks;
    expect([ethereum!.chainId, arbitrum!.chainId]).toEqual([31337, 412346]);
    expect(started.output()).toContain(`Arbitrum One devnet: ${arbitrum!.rpcUrl} (chain 412346`);
    expect(started.output()).toContain(`USDT_ARB    test contract ${arbitrum!.tokens.USDT_ARB!.address}`);

    for (const [network, currency] of [
      [ethereum!, 'USDT_ERC20'],
      [arbitrum!, 'USDT_ARB'],
    ] as const) {
      const created = await post(`${url}/v1/orders`, token!, { price_amount: 9.99, pay_currency: currency });
      expect(created.status).toBe(200);
      const { order } = (await created.json()) as any;
      const { invoice } = (await (await fetch(`${url}/v1/orders/${order.order_id}`, { headers: { token: token! } })).json()) as any;
      // The token URI names the network's devnet chain and contract: the service reads the devnet settings.
      const contract = network.tokens[currency]!.address;
      expect(invoice.payment_uri.toLowerCase()).toBe(`ethereum:${contract}@${network.chainId}/transfer?address=${invoice.payment_address}&uint256=9990000`.toLowerCase());

      const paid = await runScript('infra/devnet/pay.ts', [order.order_id], { DATA_DIR: dataDir });
      expect(paid.code, paid.output).toBe(0);
      expect(paid.output).toContain(`on ${network.name}`);
      const [, hash, height] = paid.output.match(/: (0x[0-9a-f]{64})\s+in block (\d+) \(success\)/)!;

      const source = new EthereumBlockSource({ url: network.rpcUrl, chain: network.chain, chainId: network.chainId, tokens: [{ currency, contract }] });
      const block = await source.block(Number(height));
      expect(block.transfers.map((t) => [t.key, t.currency, t.address, formatDecimal(t.amount)])).toEqual([[`${hash}:0`, currency, invoice.payment_address, '9.99']]);
    }

    expect(await started.stop('SIGINT')).toBe(0);
  }, 180_000); // DynamoDB Local, two nodes and three processes on a shared machine

  it('devnet:pay explains what is wrong for an order without an invoice it can pay', async () => {
    const result = await runScript('infra/devnet/pay.ts', [], { DATA_DIR: dataDir });
    expect(result.code).toBe(2);
    expect(result.output).toContain('usage: npm run devnet:pay -- <order_id>');
  });
});
