/**
 * A real local Ethereum node (Hardhat's EDR) for the Ethereum source's and watcher's tests: the
 * deployer and the buyer funded, the two test tokens deployed; with the shop, mining on demand
 * only (evm_setAutomine false), a counting proxy in front of the node, the API and a live
 * merchant's token.
 */
import type { Address } from 'viem';
import { buyer, deployer, deployTokens, devnetClients, type DevnetClients, GENESIS_WEI } from '#infra/devnet/chain';
import { type DevnetNode, startDevnetNode } from '#infra/devnet/node';
import { client, newMerchant, startApi } from './api';
import { type RpcProxy, startRpcProxy } from './rpc-proxy';

export interface EthDevnet {
  node: DevnetNode;
  clients: DevnetClients;
  tokens: Record<'USDT_ERC20' | 'USDC_ERC20', Address>;
}

export async function startEthDevnet(): Promise<EthDevnet> {
  const node = await startDevnetNode({
    balances: [
      { address: deployer.address, wei: GENESIS_WEI },
      { address: buyer.address, wei: GENESIS_WEI },
    ],
  });
  const clients = devnetClients(node.url, node.chainId);
  return { node, clients, tokens: await deployTokens(clients) };
}

export interface EthShop extends EthDevnet {
  proxy: RpcProxy;
  api: Awaited<ReturnType<typeof startApi>>;
  call: ReturnType<typeof client>;
  /** The live merchant's API token. */
  token: string;
  stop(): Promise<void>;
}

/** The devnet with blocks only when a test mines one, the proxy, the API and a live merchant named `name`. */
export async function startEthShop(name: string): Promise<EthShop> {
  const devnet = await startEthDevnet();
  await devnet.node.request('evm_setAutomine', [false]);
  const proxy = await startRpcProxy(devnet.node.url);
  const api = await startApi();
  const token = (await newMerchant(true, name)).api_token;
  return {
    ...devnet,
    proxy,
    api,
    call: client(api.url),
    token,
    stop: async () => {
      await api.close();
      await proxy.stop();
      await devnet.node.stop();
    },
  };
}
