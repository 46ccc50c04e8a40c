import { type Account, type Address, type Chain, createPublicClient, createWalletClient, defineChain, type Hash, http, parseUnits, type PublicClient, type Transport, type WalletClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { committedTestToken } from '#infra/devnet/compile';

/**
 * The devnet's cast: a deployer that owns the test tokens and a buyer with ETH, USDT and USDC.
 * Their keys are Hardhat's first two well-known development accounts (published with the
 * "test test ... junk" mnemonic): never use them anywhere real. Deployed by the same account
 * in the same order on a fresh chain, the tokens always get the same addresses.
 */
export const DEPLOYER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const BUYER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

export const deployer = privateKeyToAccount(DEPLOYER_KEY);
export const buyer = privateKeyToAccount(BUYER_KEY);

/** What every funded account starts with: 10,000 ETH. */
export const GENESIS_WEI = 10n ** 22n;
export const TOKEN_CURRENCIES = ['USDT_ERC20', 'USDC_ERC20'] as const;
export type TokenCurrency = (typeof TOKEN_CURRENCIES)[number];

const TOKENS: Record<TokenCurrency, { name: string; symbol: string }> = {
  USDT_ERC20: { name: 'Tether USD (devnet)', symbol: 'USDT' },
  USDC_ERC20: { name: 'USD Coin (devnet)', symbol: 'USDC' },
};

export const tokenAbi = committedTestToken().abi as readonly unknown[];

export interface DevnetClients {
  chain: Chain;
  public: PublicClient<Transport, Chain>;
  wallet(account: Account): WalletClient<Transport, Chain, Account>;
}

export function devnetClients(url: string, chainId: number): DevnetClients {
  const chain = defineChain({
    id: chainId,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  // Poll quickly: the devnet mines every second or on every transaction.
  const transport = http(url);
  return {
    chain,
    public: createPublicClient({ chain, transport, pollingInterval: 100 }),
    wallet: (account) => createWalletClient({ account, chain, transport, pollingInterval: 100 }),
  };
}

/** A test token to deploy: its name, symbol and decimals (the network's real token has the same decimals). */
export interface TestTokenSpec {
  name: string;
  symbol: string;
  decimals: number;
}

/**
 * Deploys the test USDT and USDC (6 decimals, supply held by the deployer) and gives the
 * buyer 1,000,000 of each. Returns the contracts' addresses.
 */
export function deployTokens(clients: DevnetClients): Promise<Record<TokenCurrency, Address>> {
  return deployTokenSet(clients, Object.fromEntries(TOKEN_CURRENCIES.map((code) => [code, { ...TOKENS[code], decimals: 6 }])) as Record<TokenCurrency, TestTokenSpec>);
}

/**
 * Deploys one test token per pay currency (supply of 10^9 held by the deployer) and gives the
 * buyer 1,000,000 of each, in each token's own decimals. Returns the contracts' addresses.
 */
export async function deployTokenSet<C extends string>(clients: DevnetClients, specs: Readonly<Record<C, TestTokenSpec>>): Promise<Record<C, Address>> {
  const wallet = clients.wallet(deployer);
  const { abi, bytecode } = committedTestToken();
  const addresses = {} as Record<C, Address>;
  const codes = Object.keys(specs) as C[];
  for (const currency of codes) {
    const { name, symbol, decimals } = specs[currency];
    const hash = await wallet.deployContract({ abi, bytecode, args: [name, symbol, decimals, parseUnits('1000000000', decimals)] });
    const receipt = await clients.public.waitForTransactionReceipt({ hash });
    if (!receipt.contractAddress || receipt.status !== 'success') throw new Error(`${currency} deployment failed`);
    addresses[currency] = receipt.contractAddress;
  }
  for (const currency of codes) {
    await waitFor(clients, await sendToken(clients, deployer, addresses[currency], buyer.address, parseUnits('1000000', specs[currency].decimals)));
  }
  return addresses;
}

/** A signed ETH transfer of `wei` to `to`; resolves with the hash once the node accepted it. */
export function sendEth(clients: DevnetClients, from: Account, to: Address, wei: bigint, gas?: bigint): Promise<Hash> {
  return clients.wallet(from).sendTransaction({ to, value: wei, ...(gas === undefined ? {} : { gas }) });
}

/** A signed ERC-20 transfer(to, units); resolves with the hash once the node accepted it. */
export function sendToken(clients: DevnetClients, from: Account, token: Address, to: Address, units: bigint): Promise<Hash> {
  return clients.wallet(from).writeContract({ address: token, abi: tokenAbi, functionName: 'transfer', args: [to, units] });
}

/** One transaction with several Transfer logs (the token's transferMany). */
export function sendTokens(clients: DevnetClients, from: Account, token: Address, payments: readonly { to: Address; units: bigint }[]): Promise<Hash> {
  return clients.wallet(from).writeContract({
    address: token,
    abi: tokenAbi,
    functionName: 'transferMany',
    args: [payments.map((p) => p.to), payments.map((p) => p.units)],
  });
}

export async function waitFor(clients: DevnetClients, hash: Hash) {
  return clients.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}
