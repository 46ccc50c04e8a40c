/**
 * `npm run devnet:pay -- <order_id> [--amount <amount>]`: pays the order's current invoice on
 * the devnet from the buyer account, with a real signed transaction (ETH transfer or ERC-20
 * transfer), as a wallet would from the payment page's QR code. `--amount` pays another amount
 * (under- or over-payment; run it twice for two partial payments). DATA_DIR as for `npm run devnet`.
 */
import { parseArgs } from 'node:util';
import { type Address, parseEther, parseUnits } from 'viem';
import { buyer, devnetClients, sendEth, sendToken, waitFor } from '#infra/devnet/chain';
import { DEVNET_DATA_DIR, readDevnetState } from '#infra/devnet/state';
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
  console.error(`order ${orderId} has no invoice to pay (HTTP ${response.status}): check it out in ETH, USDT_ERC20 or USDC_ERC20 first`);
  process.exit(1);
}
const currency = invoice.pay_currency!;
// Exact: the amount as written (never through float arithmetic).
const amount = formatDecimal(values.amount === undefined ? decimalFromNumber(invoice.pay_amount) : parseDecimal(values.amount));
const to = invoice.payment_address as Address;
const clients = devnetClients(state.rpcUrl, state.chainId);

let hash: `0x${string}`;
if (currency === 'ETH') hash = await sendEth(clients, buyer, to, parseEther(amount));
else if (currency === 'USDT_ERC20' || currency === 'USDC_ERC20') {
  hash = await sendToken(clients, buyer, state.tokens[currency], to, parseUnits(amount, 6));
} else {
  console.error(`the invoice is in ${currency}: the devnet pays ETH, USDT_ERC20 and USDC_ERC20 only`);
  process.exit(1);
}
console.log(`sent ${amount} ${currency} to ${to}: ${hash}`);
const receipt = await waitFor(clients, hash);
console.log(`in block ${receipt.blockNumber} (${receipt.status})`);
