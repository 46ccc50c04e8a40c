/**
 * `npm run devnet:pay -- <order_id> [--amount <amount>]`: pays the order's current invoice on
 * its network of the devnet (Ethereum or Arbitrum) from the buyer account, with a real signed
 * transaction (an ether or ERC-20 transfer), as a wallet would from the payment page's QR code. `--amount` pays another amount
 * (under- or over-payment; run it twice for two partial payments). DATA_DIR as for `npm run devnet`.
 */
import { parseArgs } from 'node:util';
import { type Address, parseEther, parseUnits } from 'viem';
import { buyer, devnetClients, sendEth, sendToken, waitFor } from '#infra/devnet/chain';
import { DEVNET_DATA_DIR, devnetNetworkOf, readDevnetState } from '#infra/devnet/state';
import { decimalFromNumber, formatDecimal, parseDecimal } from '#shared/domain/money';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { amount: { type: 'string' } } });
const orderId = positionals[0];
if (!orderId) {
  console.error('usage: npm run devnet:pay -- <order_id> [--amount <amount>]');
  process.exit(2);
}

const state = readDevnetState(process.env.DATA_DIR ?? DEVNET_DATA_DIR);
const response = await fetch(`${state.apiUrl}/v1/pay/${encodeURIComponent(orderId)}`);
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
const clients = devnetClients(network.rpcUrl, network.chainId);
const hash = native
  ? await sendEth(clients, buyer, to, parseEther(amount))
  : await sendToken(clients, buyer, network.tokens[currency]!.address, to, parseUnits(amount, network.tokens[currency]!.decimals));
console.log(`sent ${amount} ${currency} on ${network.name} to ${to}: ${hash}`);
const receipt = await waitFor(clients, hash);
console.log(`in block ${receipt.blockNumber} (${receipt.status})`);
