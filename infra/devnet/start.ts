/**
 * `npm run devnet`: a local Ethereum chain and the whole service watching it. Starts an EDR
 * node (a block every DEVNET_BLOCK_MS, default 1000), deploys the test USDT and USDC, funds
 * the buyer account, points the service's Ethereum settings at the node (ETH_RPC_URL,
 * ETH_CHAIN_ID, the token contracts, a one-second watch interval) and then runs exactly what
 * `npm start` runs. `npm run devnet:pay -- <order_id>` pays an invoice from the buyer with a
 * real signed transaction.
 *
 * Configuration: DEVNET_PORT (8545), DEVNET_BLOCK_MS (1000), and `npm start`'s own (PORT,
 * DATA_DIR, default .data/devnet: the chain is in memory, so its data folder is emptied at
 * every start).
 */
import { rmSync } from 'node:fs';
import { buyer, deployer, deployTokens, devnetClients, GENESIS_WEI } from '#infra/devnet/chain';
import { startDevnetNode } from '#infra/devnet/node';
import { DEVNET_DATA_DIR, writeDevnetState } from '#infra/devnet/state';
import { nonNegativeInteger, positiveInteger } from '#shared/core/env';

const dataDir = process.env.DATA_DIR ?? DEVNET_DATA_DIR;
rmSync(dataDir, { recursive: true, force: true });

const node = await startDevnetNode({
  port: nonNegativeInteger(process.env, 'DEVNET_PORT', 8545),
  blockIntervalMs: positiveInteger(process.env, 'DEVNET_BLOCK_MS', 1000),
  balances: [
    { address: deployer.address, wei: GENESIS_WEI },
    { address: buyer.address, wei: GENESIS_WEI },
  ],
});
const tokens = await deployTokens(devnetClients(node.url, node.chainId));

Object.assign(process.env, {
  DATA_DIR: dataDir,
  ETH_RPC_URL: node.url,
  ETH_CHAIN_ID: String(node.chainId),
  USDT_ERC20_CONTRACT: tokens.USDT_ERC20,
  USDC_ERC20_CONTRACT: tokens.USDC_ERC20,
  WATCH_INTERVAL_SECONDS: process.env.WATCH_INTERVAL_SECONDS ?? '1',
});

// The service reads its settings when its modules load: only now.
const { runtime } = await import('#infra/local/start');
writeDevnetState(dataDir, { rpcUrl: node.url, chainId: node.chainId, apiUrl: runtime.url, tokens, buyer: buyer.address });

console.log('');
console.log(`Ethereum devnet: ${node.url} (chain ${node.chainId}, a block every ${process.env.DEVNET_BLOCK_MS ?? 1000} ms)`);
console.log(`Test USDT:       ${tokens.USDT_ERC20}`);
console.log(`Test USDC:       ${tokens.USDC_ERC20}`);
console.log(`Buyer:           ${buyer.address} (10,000 ETH, 1,000,000 USDT and USDC)`);
console.log('Pay an order\'s invoice from the buyer: npm run devnet:pay -- <order_id> [--amount <amount>]');
