/**
 * Detection latency of the TRON and Solana watchers (issue 22, item 7), end to end on this
 * machine: real DynamoDB Local, the local TronGrid and Solana test servers (tests/support)
 * running real signed transactions, orders checked out through the service, and each watcher
 * polling as it does in a run (WATCH_INTERVAL_SECONDS=1, the shared poll loop).
 *
 * - detected_ms: from the moment the provider first shows the payment as final (TronGrid:
 *   solidified; Solana: finalized) to the order's PAID in the table (the status change and its
 *   callback are one transaction, so the callback is queued then too).
 * - requests_per_step: provider requests one step makes per watched invoice with nothing new
 *   (the idle cost of an open invoice), and per new payment (its one verification read).
 *
 * Run alone: `npx tsx bench/network-detection.ts` (prints JSON last).
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ensureTable, LOCAL_AWS_ENV, startDynamoDbLocal } from '#infra/local/dynamodb';
import { summarize, type LatencyFigures } from './stats';

export interface NetworkDetectionReport {
  samples_per_network: number;
  watch_interval_seconds: number;
  /** Provider shows the payment final -> order PAID in the table, ms. */
  detected_ms: Record<'USDT_TRC20' | 'USDC_SOL', LatencyFigures>;
  /** Provider requests of one step, per open invoice with nothing new, and per new payment. */
  requests_per_step: Record<'USDT_TRC20' | 'USDC_SOL', { per_open_invoice: number; per_new_payment: number }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function measureNetworkDetection(samples: number): Promise<NetworkDetectionReport> {
  const dynamodb = await startDynamoDbLocal();
  const tableName = `bench-networks-${randomUUID().slice(0, 8)}`;
  await ensureTable(dynamodb.endpoint, tableName);
  Object.assign(process.env, LOCAL_AWS_ENV, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamodb.endpoint,
    PAYMENT_PAGE_URL: 'http://127.0.0.1/pay/',
    TOKEN_HMAC_KEY: 'bench-token-key-bench-token-key-bench',
    TRON_API_URL: 'http://127.0.0.1:9/',
    SOLANA_RPC_URL: 'http://127.0.0.1:9/',
    STATIC_RATES_FOR_LIVE_MERCHANTS: 'true',
  });
  // Loaded only now: the store reads its configuration from the environment above.
  const { TronGridTestServer, signedTrc20Transfer } = await import('../tests/support/trongrid-server');
  const { SolanaTestServer } = await import('../tests/support/solana-server');
  const { createMerchant } = await import('#shared/services/merchants');
  const { findMerchant } = await import('#shared/store/merchants');
  const { createOrder } = await import('#shared/services/orders');
  const { findOrderWithInvoice } = await import('#shared/store/orders');
  const { TronTransfers } = await import('#shared/watchers/sources/tron');
  const { SolanaTransfers } = await import('#shared/watchers/sources/solana');
  const { IndexedWatcher } = await import('#shared/watchers/indexed-watcher');
  const { pollChain } = await import('#shared/watchers/watch-loop');
  const { PER_ADDRESS_ITEMS, WatchList } = await import('#shared/store/watch-list');
  const tronList = new WatchList(PER_ADDRESS_ITEMS, 'TRON');
  const solanaList = new WatchList(PER_ADDRESS_ITEMS, 'SOLANA');
  const { MAINNET_GENESIS_HASH } = await import('#shared/chains/solana');
  const kit = await import('@solana/kit');
  const token = await import('@solana-program/token');

  const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
  const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
  const BUYER = '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
  const tron = await new TronGridTestServer([{ address: USDT, symbol: 'USDT', name: 'Tether USD', decimals: 6 }]).start();
  const solana = await new SolanaTestServer(MAINNET_GENESIS_HASH).start();
  solana.mint(USDC, 6);
  const buyer = await kit.createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(7));
  const wallet = (await kit.createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(9))).address;
  await solana.tokenAccount(buyer.address, USDC, 10n ** 15n);
  await solana.tokenAccount(wallet, USDC);
  const credentials = await createMerchant({ name: 'Bench networks', sandbox: true, wallets: { SOL: wallet } });
  const merchant = (await findMerchant(credentials.user_id))!;

  const controller = new AbortController();
  const tronWatcher = new IndexedWatcher(new TronTransfers({ url: tron.url, contract: USDT, currency: 'USDT_TRC20', decimals: 6, watched: (now) => tronList.current(now) }), {
    cursorName: `TRON-bench-${randomUUID()}`,
  });
  const solanaWatcher = new IndexedWatcher(
    new SolanaTransfers({ url: solana.url, tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }], genesisHash: MAINNET_GENESIS_HASH, watched: (now) => solanaList.current(now) }),
    { cursorName: `SOLANA-bench-${randomUUID()}` },
  );
  const loops = [tronWatcher, solanaWatcher].map((watcher) => pollChain(watcher, { intervalMs: 1000, signal: controller.signal }));

  const checkout = async (currency: string) => {
    const { order } = await createOrder(merchant, { price_amount: 30, price_currency: 'USD', pay_currency: currency }, new Date());
    const found = (await findOrderWithInvoice(order.order_id))!;
    return { orderId: order.order_id, invoice: found.invoice! };
  };
  const paidAfter = async (orderId: string, since: number): Promise<number> => {
    for (;;) {
      if ((await findOrderWithInvoice(orderId))?.order.status === 'PAID') return Date.now() - since;
      if (Date.now() - since > 30_000) throw new Error(`order ${orderId} not PAID within 30 s`);
      await sleep(20);
    }
  };
  const solanaPay = async (reference: string) => {
    const [from] = await token.findAssociatedTokenPda({ owner: buyer.address, mint: kit.address(USDC), tokenProgram: token.TOKEN_PROGRAM_ADDRESS });
    const [to] = await token.findAssociatedTokenPda({ owner: wallet, mint: kit.address(USDC), tokenProgram: token.TOKEN_PROGRAM_ADDRESS });
    const transfer = token.getTransferCheckedInstruction({ source: from, mint: kit.address(USDC), destination: to, authority: buyer, amount: 30_000_000n, decimals: 6 });
    const instruction = { ...transfer, accounts: [...transfer.accounts, { address: kit.address(reference), role: kit.AccountRole.READONLY }] };
    const message = kit.pipe(
      kit.createTransactionMessage({ version: 'legacy' }),
      (m) => kit.setTransactionMessageFeePayerSigner(buyer, m),
      (m) => kit.setTransactionMessageLifetimeUsingBlockhash({ blockhash: kit.blockhash('EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k'), lastValidBlockHeight: 1_000n }, m),
      (m) => kit.appendTransactionMessageInstruction(instruction, m),
    );
    solana.send(kit.getBase64EncodedWireTransaction(await kit.signTransactionMessageWithSigners(message)));
  };

  const detected: Record<'USDT_TRC20' | 'USDC_SOL', number[]> = { USDT_TRC20: [], USDC_SOL: [] };
  try {
    for (let i = 0; i < samples; i += 1) {
      const trc = await checkout('USDT_TRC20');
      tron.send(signedTrc20Transfer(BUYER, USDT, trc.invoice.payment_address, 30_000_000n));
      // A random phase against the poll loop, as a real payment has.
      await sleep(Math.random() * 1000);
      tron.solidify();
      detected.USDT_TRC20.push(await paidAfter(trc.orderId, Date.now()));

      const sol = await checkout('USDC_SOL');
      await solanaPay(sol.invoice.memo!);
      await sleep(Math.random() * 1000);
      solana.finalize();
      detected.USDC_SOL.push(await paidAfter(sol.orderId, Date.now()));
    }
  } finally {
    controller.abort();
    await Promise.all(loops);
  }

  // The idle cost of an open invoice: one step with one more open invoice and nothing new.
  const perStep = async (
    server: { requests: Map<string, number> },
    watcher: InstanceType<typeof IndexedWatcher>,
    currency: string,
    pay?: (invoice: { payment_address: string; memo?: string }) => Promise<void>,
  ) => {
    const count = () => [...server.requests.values()].reduce((a, b) => a + b, 0);
    await watcher.step();
    let before = count();
    await watcher.step();
    const base = count() - before;
    const { invoice } = await checkout(currency);
    before = count();
    await watcher.step();
    const open = count() - before - base;
    await pay?.(invoice);
    before = count();
    await watcher.step();
    return { per_open_invoice: open, per_new_payment: count() - before - base - open };
  };
  // Only the open invoices of this measurement: the earlier samples are PAID but still watched (their late window).
  const tronRequests = await perStep(tron, tronWatcher, 'USDT_TRC20', async (invoice) => {
    tron.send(signedTrc20Transfer(BUYER, USDT, invoice.payment_address, 30_000_000n));
    tron.solidify();
  });
  const solanaRequests = await perStep(solana, solanaWatcher, 'USDC_SOL', async (invoice) => {
    await solanaPay(invoice.memo!);
    solana.finalize();
  });

  await tron.close();
  await solana.close();
  await dynamodb.stop();
  return {
    samples_per_network: samples,
    watch_interval_seconds: 1,
    detected_ms: { USDT_TRC20: summarize(detected.USDT_TRC20), USDC_SOL: summarize(detected.USDC_SOL) },
    requests_per_step: { USDT_TRC20: tronRequests, USDC_SOL: solanaRequests },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measureNetworkDetection(10)));
}
