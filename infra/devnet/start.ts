/**
 * `npm run devnet`: two local EVM chains and the whole service watching both. Starts an EDR
 * node for "Ethereum" (chain 31337, a block every DEVNET_BLOCK_MS, default 1000) and one for
 * "Arbitrum One" (chain 412346, Arbitrum's own local-node id, a block every
 * DEVNET_ARBITRUM_BLOCK_MS, default 250 as on Arbitrum), deploys test USDT and USDC on each,
 * funds the buyer account on both, points the service's settings at the nodes (ETH_RPC_URL,
 * ETH_CHAIN_ID, ARBITRUM_RPC_URL, ARBITRUM_CHAIN_ID, the token contracts, a one-second watch
 * interval) and then runs exactly what `npm start` runs. `npm run devnet:pay -- <order_id>`
 * pays an invoice from the buyer with a real signed transaction on the invoice's network.
 *
 * Configuration: DEVNET_PORT (8545), DEVNET_ARBITRUM_PORT (8547), DEVNET_BLOCK_MS (1000),
 * DEVNET_ARBITRUM_BLOCK_MS (250), and `npm start`'s own (PORT, DATA_DIR, default
 * .data/devnet: the chains are in memory, so the data folder is emptied at every start).
 */
import { rmSync } from 'node:fs';
import { buyer, deployer, deployTokenSet, devnetClients, GENESIS_WEI, type TestTokenSpec } from '#infra/devnet/chain';
import { startDevnetNode } from '#infra/devnet/node';
import { DEVNET_DATA_DIR, type DevnetNetwork, writeDevnetState } from '#infra/devnet/state';
import { nonNegativeInteger, positiveInteger } from '#shared/core/env';

const dataDir = process.env.DATA_DIR ?? DEVNET_DATA_DIR;
rmSync(dataDir, { recursive: true, force: true });

interface Plan {
  chain: string;
  name: string;
  chainId: number;
  native: string;
  port: number;
  blockMs: number;
  tokens: Record<string, TestTokenSpec>;
}

const usd = (network: string) => ({
  usdt: { name: `Tether USD (${network} devnet)`, symbol: 'USDT', decimals: 6 },
  usdc: { name: `USD Coin (${network} devnet)`, symbol: 'USDC', decimals: 6 },
});

const plans: Plan[] = [
  {
    chain: 'ETH',
    name: 'Ethereum',
    chainId: 31337,
    native: 'ETH',
    port: nonNegativeInteger(process.env, 'DEVNET_PORT', 8545),
    blockMs: positiveInteger(process.env, 'DEVNET_BLOCK_MS', 1000),
    tokens: { USDT_ERC20: usd('Ethereum').usdt, USDC_ERC20: usd('Ethereum').usdc },
  },
  {
    chain: 'ARBITRUM',
    name: 'Arbitrum One',
    chainId: 412346,
    native: 'ETH_ARB',
    port: nonNegativeInteger(process.env, 'DEVNET_ARBITRUM_PORT', 8547),
    blockMs: positiveInteger(process.env, 'DEVNET_ARBITRUM_BLOCK_MS', 250),
    tokens: { USDT_ARB: usd('Arbitrum').usdt, USDC_ARB: usd('Arbitrum').usdc },
  },
];

const networks: DevnetNetwork[] = [];
for (const plan of plans) {
  const node = await startDevnetNode({
    chainId: plan.chainId,
    port: plan.port,
    blockIntervalMs: plan.blockMs,
    balances: [
      { address: deployer.address, wei: GENESIS_WEI },
      { address: buyer.address, wei: GENESIS_WEI },
    ],
  });
  const addresses = await deployTokenSet(devnetClients(node.url, node.chainId), plan.tokens);
  const tokens = Object.fromEntries(Object.entries(addresses).map(([code, address]) => [code, { address, decimals: plan.tokens[code]!.decimals }]));
  networks.push({ chain: plan.chain, name: plan.name, rpcUrl: node.url, chainId: node.chainId, native: plan.native, tokens });
  process.env[`${plan.chain}_RPC_URL`] = node.url;
  process.env[`${plan.chain}_CHAIN_ID`] = String(node.chainId);
  for (const [code, { address }] of Object.entries(tokens)) process.env[`${code}_CONTRACT`] = address;
}

Object.assign(process.env, { DATA_DIR: dataDir, WATCH_INTERVAL_SECONDS: process.env.WATCH_INTERVAL_SECONDS ?? '1' });

// The service reads its settings when its modules load: only now.
const { runtime } = await import('#infra/local/start');
writeDevnetState(dataDir, { apiUrl: runtime.url, buyer: buyer.address, networks });

console.log('');
for (const [i, network] of networks.entries()) {
  console.log(`${network.name} devnet: ${network.rpcUrl} (chain ${network.chainId}, a block every ${plans[i]!.blockMs} ms)`);
  for (const [code, { address }] of Object.entries(network.tokens)) console.log(`  ${code.padEnd(11)} test contract ${address}`);
}
console.log(`Buyer: ${buyer.address} (10,000 ETH on each network, 1,000,000 of each test token)`);
console.log("Pay an order's invoice from the buyer: npm run devnet:pay -- <order_id> [--amount <amount>]");
