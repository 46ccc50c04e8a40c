/**
 * `npm run devnet:pay -- <order_id> [--amount <amount>]`: pays the order's current invoice on
 * its network of the devnet (Ethereum or Arbitrum) from the buyer account, with a real signed
 * transaction (an ether or ERC-20 transfer), as a wallet would from the payment page's QR code. `--amount` pays another amount
 * (under- or over-payment; run it twice for two partial payments). DATA_DIR as for `npm run devnet`.
 *
 * `npm run devnet:pay -- --uri '<wallet URI>'`: pays an EIP-681 wallet URI of the devnet (a
 * refund's `payment_uri`, as the portal shows it and its QR code holds) from the merchant's
 * wallet, the devnet's deployer account (it holds the test tokens' supply): the merchant paying
 * a refund as their own wallet would.
 */
import { parseArgs } from 'node:util';
import { type Account, type Address, type Hash, parseEther, parseUnits } from 'viem';
import { buyer, deployer, devnetClients, sendEth, sendToken, waitFor } from '#infra/devnet/chain';
import { DEVNET_DATA_DIR, type DevnetNetwork, devnetNetworkOf, parseWalletUri, readDevnetState } from '#infra/devnet/state';
import { decimalFromNumber, formatDecimal, parseDecimal } from '#shared/domain/money';

const USAGE = "usage: npm run devnet:pay -- <order_id> [--amount <amount>]\n       npm run devnet:pay -- --uri '<wallet URI>'   (a refund's payment_uri, from the merchant's wallet)";
const { positionals, values } = parseArgs({ allowPositionals: true, options: { amount: { type: 'string' }, uri: { type: 'string' } } });
const orderId = positionals[0];
if (values.uri === undefined ? !orderId : orderId !== undefined || values.amount !== undefined) {
  console.error(USAGE);
  process.exit(2);
}

const state = readDevnetState(process.env.DATA_DIR ?? DEVNET_DATA_DIR);

/** Sends, prints the hash and waits for the block, as a wallet shows it. */
async function send(network: DevnetNetwork, what: string, from: Account, transfer: (clients: ReturnType<typeof devnetClients>) => Promise<Hash>, to: string) {
  const clients = devnetClients(network.rpcUrl, network.chainId);
  const hash = await transfer(clients);
  console.log(`sent ${what} on ${network.name} to ${to}: ${hash}`);
  const receipt = await waitFor(clients, hash);
  console.log(`in block ${receipt.blockNumber} (${receipt.status})`);
}

if (values.uri !== undefined) {
  const payment = parseWalletUri(state, values.uri);
  if ('error' in payment) {
    console.error(payment.error);
    process.exit(1);
  }
  const { network, to, units, token } = payment;
  await send(
    network,
    token ? `${units} units of ${token.currency} from the merchant's wallet` : `${units} wei from the merchant's wallet`,
    deployer,
    (clients) => (token ? sendToken(clients, deployer, token.address, to, units) : sendEth(clients, deployer, to, units)),
    to,
  );
  process.exit(0);
}

const response = await fetch(`${state.apiUrl}/v1/pay/${encodeURIComponent(orderId!)}`);
const page = (await response.json()) as { invoice?: { pay_currency?: string; pay_amount?: number; payment_address?: string } };
const invoice = page.invoice;
if (!response.ok || !invoice?.payment_address || invoice.pay_amount === undefined) {
  console.error(`order ${orderId} has no invoice to pay (HTTP ${response.status}): check it out in a currency of the devnet's networks first`);
  process.exit(1);
}
const currency = invoice.pay_currency!;
// Exact: the amount as written (never through float arithmetic).
const amount = formatDecimal(values.amount === undefined ? decimalFromNumber(invoice.pay_amount) : parseDecimal(values.amount));
const to = invoice.payment_address as Address;
const found = devnetNetworkOf(state, currency);
if (!found) {
  const payable = state.networks.flatMap((network) => [network.native, ...Object.keys(network.tokens)]);
  console.error(`the invoice is in ${currency}: the devnet pays ${payable.join(', ')}`);
  process.exit(1);
}
const { network, native } = found;
await send(
  network,
  `${amount} ${currency}`,
  buyer,
  (clients) => (native ? sendEth(clients, buyer, to, parseEther(amount)) : sendToken(clients, buyer, network.tokens[currency]!.address, to, parseUnits(amount, network.tokens[currency]!.decimals))),
  to,
);
