import { Address, beginCell } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceError, WrongChainError } from '#shared/core/source-error';
import { formatDecimal } from '#shared/domain/money';
import { canonicalTonAddress } from '#shared/payments/addresses/ton';
import type { Transfer } from '#shared/watchers/sources/port';
import { type TonWatched, TonTransfers, type ToncenterOptions } from '#shared/watchers/sources/toncenter';
import { type TestWallet, type TonTransaction, ToncenterTestServer, USDT_MASTER } from '../support/toncenter-server';

/**
 * The TON source (toncenter API v3) against a local toncenter (tests/support/toncenter-server.ts)
 * whose transfers are real: wallets with ed25519 keys sign external messages, messages and
 * transactions are @ton/core cells and their hashes the cells', jetton transfers follow TEP-74.
 * The source never touches the table: its watch list is a function of the test's.
 */

let server: ToncenterTestServer;
let seed = 10;

beforeAll(async () => {
  server = await new ToncenterTestServer().start();
});

afterAll(async () => {
  await server?.close();
});

/** A new deployed wallet of the test chain, and its canonical address. */
function newWallet(): { wallet: TestWallet; address: string } {
  const wallet = server.wallet((seed += 1));
  return { wallet, address: canonicalTonAddress(wallet.address.toString())! };
}

/** An address nobody deployed a wallet at (a fresh hash). */
function undeployed(): string {
  return canonicalTonAddress(`0:${Buffer.alloc(32, (seed += 1)).toString('hex')}`)!;
}

/** A watch-list entry as checkout writes it: made a minute ago, open an hour. */
function watch(address: string, currency: 'TON' | 'USDT_TON', options: { since?: Date; kind?: 'refund' } = {}): TonWatched & Record<string, unknown> {
  const since = options.since ?? new Date(Date.now() - 60_000);
  return {
    chain: 'TON',
    currency,
    address,
    since: since.toISOString(),
    open_until: new Date(since.getTime() + 3_600_000).toISOString(),
    until: new Date(since.getTime() + 86_400_000).toISOString(),
    ...(options.kind ? { kind: options.kind } : {}),
  };
}

function source(entries: () => readonly TonWatched[], options: Partial<ToncenterOptions> = {}, on = server): TonTransfers {
  return new TonTransfers({ url: on.url, usdtMaster: USDT_MASTER, watched: async () => entries(), minIntervalMs: 0, timeoutMs: 2000, ...options });
}

/** One step whose booking succeeded. */
async function step(src: TonTransfers, cursor?: string, limit = 100) {
  const result = await src.after(cursor, limit);
  src.booked();
  return result;
}

/** What a test compares of transfers, in one order (by currency, amount, key): payments made in one second have no order of their own. */
const shown = (transfers: readonly Transfer[]) =>
  transfers
    .map((t) => ({ key: t.key, currency: t.currency, address: t.address, memo: t.memo, amount: formatDecimal(t.amount) }))
    .sort((a, b) => a.currency.localeCompare(b.currency) || a.amount.localeCompare(b.amount) || a.key.localeCompare(b.key));

/** Requests by path made while `run` runs. */
async function counted(run: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = new Map(server.requests);
  await run();
  return Object.fromEntries([...server.requests].map(([path, count]) => [path, count - (before.get(path) ?? 0)]).filter(([, count]) => (count as number) > 0));
}

describe('TON and USDT payments to a merchant', () => {
  it('reports a commented TON payment and a USDT payment with their memo, exact amount, canonical address and the transaction as key', async () => {
    const merchant = newWallet();
    const buyer = newWallet();
    const src = source(() => [watch(merchant.address, 'TON'), watch(merchant.address, 'USDT_TON')]);
    // The buyer's wallet names the merchant in its bounceable form: the source reports the canonical one.
    const ton = server.addTonTransfer({ from: buyer.wallet, to: merchant.wallet.address.toString({ bounceable: true }), nanotons: 1_234_567_891n, comment: '  inv-ton-1 \n' });
    const usdt = server.addJettonTransfer({ master: USDT_MASTER, from: buyer.wallet, to: merchant.address, units: 12_340_000n, comment: 'inv-usdt-1' });
    const { transfers, more } = await step(src);
    expect(shown(transfers)).toEqual([
      { key: ton.hex, currency: 'TON', address: merchant.address, memo: 'inv-ton-1', amount: '1.234567891' },
      { key: `${usdt.hex}:jetton`, currency: 'USDT_TON', address: merchant.address, memo: 'inv-usdt-1', amount: '12.34' },
    ]);
    expect(transfers.map((t) => t.txid).sort()).toEqual([ton.hex, usdt.hex].sort());
    expect(transfers.find((t) => t.currency === 'TON')!.at).toEqual(new Date(ton.now * 1000));
    expect(more).toBe(false);
    // The key is the hash of the receiving transaction's cell, and the answer's base64 hash says the same.
    expect(Buffer.from(ton.hash, 'base64').toString('hex')).toBe(ton.hex);
    expect(ton.account).toBe(`0:${merchant.wallet.address.hash.toString('hex').toUpperCase()}`);
  });

  it('reads a long comment continued in ref cells (snake) and one that rides inline in the jetton transfer body', async () => {
    const merchant = newWallet();
    const src = source(() => [watch(merchant.address, 'TON'), watch(merchant.address, 'USDT_TON')]);
    // 126 characters: past the 123 bytes a cell holds after the op, so the text goes on in a ref.
    const long = `inv-${'x'.repeat(118)}-end`;
    server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 5n, comment: long });
    const inline = server.addJettonTransfer({ master: USDT_MASTER, to: merchant.address, units: 1n, comment: 'inline-7', inline: true });
    // The index stores an inline forward payload as null: the comment is only in the transaction's body.
    expect(server.jettonTransfers.at(-1)!.json.forward_payload).toBeNull();
    const requests = await counted(async () => {
      const { transfers } = await step(src);
      expect(shown(transfers).map(({ memo, amount }) => ({ memo, amount }))).toEqual([
        { memo: long, amount: '0.000000005' },
        { memo: 'inline-7', amount: '0.000001' },
      ]);
    });
    // The jetton's own transaction was read by its hash: one request more than the account's read.
    expect(requests['/api/v3/transactions']).toBe(2);
    const lookup = server.log.filter((entry) => entry.path === '/api/v3/transactions' && entry.query.has('hash')).at(-1)!;
    expect(lookup.query.getAll('hash')).toEqual([inline.hex]);
  });

  it('reports a TON transfer to a wallet not deployed yet: aborted, no code ran, and still credited', async () => {
    const merchant = undeployed();
    const src = source(() => [watch(merchant, 'TON')]);
    const tx = server.addTonTransfer({ from: server.buyer, to: merchant, nanotons: 2_000_000_000n, comment: 'inv-new-wallet', deployed: false });
    const description = tx.json.description as Record<string, unknown>;
    expect(description).toMatchObject({ aborted: true, compute_ph: { skipped: true, reason: 'no_state' }, credit_ph: { credit: '2000000000' } });
    expect(description.bounce).toBeUndefined();
    const { transfers } = await step(src);
    expect(shown(transfers)).toEqual([{ key: tx.hex, currency: 'TON', address: merchant, memo: 'inv-new-wallet', amount: '2' }]);
  });

  it("reports a non-bounceable TON transfer that stayed credited although the wallet's computation failed", async () => {
    const merchant = newWallet();
    const src = source(() => [watch(merchant.address, 'TON')]);
    const tx = server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 7n, comment: 'inv-aborted', aborted: true });
    expect(tx.json.description).toMatchObject({ aborted: true, compute_ph: { success: false } });
    expect(shown((await step(src)).transfers)).toEqual([{ key: tx.hex, currency: 'TON', address: merchant.address, memo: 'inv-aborted', amount: '0.000000007' }]);
  });

  it('reports a USDT transfer whose notification to the merchant was aborted: the jettons moved', async () => {
    const merchant = newWallet();
    const src = source(() => [watch(merchant.address, 'USDT_TON'), watch(merchant.address, 'TON')]);
    const usdt = server.addJettonTransfer({ master: USDT_MASTER, to: merchant.address, units: 5_000_000n, comment: 'inv-notified', notificationAborted: true });
    const notification = usdt.transactions.find((tx) => tx.account === `0:${merchant.wallet.address.hash.toString('hex').toUpperCase()}`)!;
    expect(notification.json.description).toMatchObject({ aborted: true });
    expect((notification.json.in_msg as { opcode: string }).opcode).toBe('0x7362d09c');
    // The notification's TON (forward_ton_amount) is no TON payment: only the USDT is.
    expect(shown((await step(src)).transfers)).toEqual([{ key: `${usdt.hex}:jetton`, currency: 'USDT_TON', address: merchant.address, memo: 'inv-notified', amount: '5' }]);
  });
});

describe('what never pays', () => {
  it('a TON transfer that bounced back, and the bounced message coming back to its sender', async () => {
    const merchant = newWallet();
    const buyer = newWallet();
    // The buyer watched too (say, for a refund), to see the bounce it receives is not a credit either.
    const src = source(() => [watch(merchant.address, 'TON'), watch(buyer.address, 'TON', { kind: 'refund' })]);
    const tx = server.addTonTransfer({ from: buyer.wallet, to: merchant.address, nanotons: 3_000_000_000n, comment: 'inv-bounced', bounced: true });
    expect(tx.json.description).toMatchObject({ aborted: true, bounce: { type: 'ok' }, credit_ph: { credit: '3000000000' } });
    const back = server.transactions.at(-1)!;
    expect(back.json.in_msg).toMatchObject({ bounced: true });
    expect((await step(src)).transfers).toEqual([]);
  });

  it('a bounceable TON transfer to a wallet not deployed: it comes back', async () => {
    const merchant = undeployed();
    const src = source(() => [watch(merchant, 'TON')]);
    server.addTonTransfer({ from: server.buyer, to: merchant, nanotons: 9n, comment: 'inv-back', deployed: false, bounced: true });
    expect((await step(src)).transfers).toEqual([]);
  });

  it('a failed jetton transfer: left out by the index, and refused by the source when an index lists it', async () => {
    const merchant = newWallet();
    const src = source(() => [watch(merchant.address, 'USDT_TON')]);
    server.addJettonTransfer({ master: USDT_MASTER, to: merchant.address, units: 1_000_000n, comment: 'inv-failed', failed: true });
    expect(server.jettonTransfers.at(-1)!.json.transaction_aborted).toBe(true);
    expect((await src.after(undefined, 100)).transfers).toEqual([]);
    server.listAborted = true;
    try {
      expect((await src.after(undefined, 100)).transfers).toEqual([]);
    } finally {
      server.listAborted = false;
    }
  });

  it('"USDT" of a look-alike master: another master, even from an index that ignores jetton_master', async () => {
    const merchant = newWallet();
    const src = source(() => [watch(merchant.address, 'USDT_TON')]);
    const fake = Address.parseRaw(`0:${Buffer.alloc(32, 0x5d).toString('hex')}`).toString();
    server.addJettonTransfer({ master: fake, to: merchant.address, units: 100_000_000n, comment: 'inv-fake' });
    expect((await src.after(undefined, 100)).transfers).toEqual([]);
    server.ignoreJettonMaster = true;
    try {
      // The lying index does list the look-alike for USDT's master: the source refuses it itself.
      const listed = await fetch(`${server.url}/api/v3/jetton/transfers?owner_address=${merchant.address}&jetton_master=${USDT_MASTER}&direction=in`);
      expect(((await listed.json()) as { jetton_transfers: unknown[] }).jetton_transfers).toHaveLength(1);
      expect((await src.after(undefined, 100)).transfers).toEqual([]);
    } finally {
      server.ignoreJettonMaster = false;
    }
  });

  it('a transfer to a merchant without a comment an invoice could have is reported without a memo (the watcher keeps it as unmatched), once', async () => {
    const merchant = newWallet();
    const src = source(() => [watch(merchant.address, 'TON'), watch(merchant.address, 'USDT_TON')]);
    const sent = [
      server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 1_000n }),
      server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 2_000n, comment: '   ' }),
      // Longer than any invoice's comment (a memo is part of a table key): anyone could send one.
      server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 3_000n, comment: 'x'.repeat(129) }),
      // op 0 and bits that are no text (not whole bytes): no comment, and no failed step either.
      server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 4_000n, body: beginCell().storeUint(0, 32).storeUint(5, 3).endCell() }),
    ];
    const jettons = [
      server.addJettonTransfer({ master: USDT_MASTER, to: merchant.address, units: 1n }),
      server.addJettonTransfer({ master: USDT_MASTER, to: merchant.address, units: 2n, comment: 'y'.repeat(2000) }),
    ];
    expect(shown((await step(src)).transfers)).toEqual([
      ...sent.map((tx, i) => ({ key: tx.hex, currency: 'TON', address: merchant.address, memo: undefined, amount: `0.00000${i + 1}` })),
      ...jettons.map((tx, i) => ({ key: `${tx.hex}:jetton`, currency: 'USDT_TON', address: merchant.address, memo: undefined, amount: `0.00000${i + 1}` })),
    ]);
    // Read again in the next step's overlap: not reported twice.
    expect((await step(src)).transfers).toEqual([]);
  });
});

describe('refunds', () => {
  it("reports what a buyer's refund address is credited, without a memo, in the entry's currency only", async () => {
    const buyer = undeployed();
    const src = source(() => [watch(buyer, 'TON', { kind: 'refund' }), watch(buyer, 'USDT_TON', { kind: 'refund' })]);
    const plain = server.addTonTransfer({ from: server.buyer, to: buyer, nanotons: 10_000_000n, deployed: false });
    const commented = server.addTonTransfer({ from: server.buyer, to: buyer, nanotons: 20_000_000n, comment: 'refund of inv 9', deployed: false });
    const usdt = server.addJettonTransfer({ master: USDT_MASTER, to: buyer, units: 3_000_000n });
    expect(shown((await step(src)).transfers)).toEqual([
      { key: plain.hex, currency: 'TON', address: buyer, memo: undefined, amount: '0.01' },
      { key: commented.hex, currency: 'TON', address: buyer, memo: undefined, amount: '0.02' },
      { key: `${usdt.hex}:jetton`, currency: 'USDT_TON', address: buyer, memo: undefined, amount: '3' },
    ]);
  });
});

describe('requests', () => {
  it('are the same for 2 invoices of one merchant and 1,000 invoices over 50 merchants: one read of each kind a step', async () => {
    const one = newWallet().address;
    const merchants = Array.from({ length: 50 }, () => newWallet().address);
    const two = [watch(one, 'TON'), watch(one, 'USDT_TON')];
    // 20 invoices each, 10 in TON and 10 in USDT.
    const thousand = Array.from({ length: 1000 }, (_, index) => watch(merchants[index % 50]!, Math.floor(index / 50) % 2 === 0 ? 'TON' : 'USDT_TON'));
    const small = source(() => two);
    const large = source(() => thousand);
    // The first step of each also checks the network (masterchainInfo once more).
    await step(small);
    await step(large);
    for (const [index, merchant] of merchants.entries()) {
      server.addTonTransfer({ from: server.buyer, to: merchant, nanotons: BigInt(index + 1), comment: `inv-${index}` });
      server.addJettonTransfer({ master: USDT_MASTER, to: merchant, units: BigInt(index + 1), comment: `inv-usdt-${index}` });
    }
    server.addTonTransfer({ from: server.buyer, to: one, nanotons: 1n, comment: 'inv-one' });
    let found: Transfer[] = [];
    const costs = [await counted(() => step(small)), await counted(async () => (found = (await step(large)).transfers))];
    expect(costs[0]).toEqual({ '/api/v3/masterchainInfo': 1, '/api/v3/transactions': 1, '/api/v3/jetton/transfers': 1 });
    expect(costs[1]).toEqual(costs[0]);
    expect(found.filter((t) => t.currency === 'TON')).toHaveLength(50);
    expect(found.filter((t) => t.currency === 'USDT_TON')).toHaveLength(50);
    // All 50 merchants in one request of each kind.
    const read = server.log.filter((entry) => entry.path === '/api/v3/transactions').at(-1)!;
    expect(read.query.getAll('account')).toHaveLength(50);
  });

  it('read an account that must catch up (an invoice two days old, no place yet) in a request of its own, then with the others again', async () => {
    const current = Array.from({ length: 3 }, () => newWallet().address);
    const old = newWallet().address;
    const entries = [...current.map((address) => watch(address, 'TON')), watch(old, 'TON', { since: new Date(Date.now() - 2 * 86_400_000) })];
    const src = source(() => entries);
    const paid = server.addTonTransfer({ from: server.buyer, to: old, nanotons: 1n, comment: 'inv-old', at: new Date(Date.now() - 86_400_000) });
    let transfers: Transfer[] = [];
    expect(await counted(async () => ({ transfers } = await step(src)))).toMatchObject({ '/api/v3/transactions': 2 });
    expect(transfers.map((t) => t.key)).toEqual([paid.hex]);
    const reads = server.log.filter((entry) => entry.path === '/api/v3/transactions').slice(-2);
    expect(reads.map((entry) => entry.query.getAll('account').length).sort()).toEqual([1, 3]);
    expect(await counted(() => step(src))).toMatchObject({ '/api/v3/transactions': 1 });
  });

  it('an idle step (nothing watched) reads no transfers and asks the head at most once a minute', async () => {
    const src = source(() => []);
    const first = await counted(() => step(src));
    expect(first).toEqual({ '/api/v3/masterchainInfo': 2 });
    expect(await counted(() => step(src))).toEqual({});
  });

  it('pages through a busy account from each page’s last time, each payment once, catching up a few pages a step and the last two minutes whole', async () => {
    const merchant = newWallet();
    const base = Date.now() - 600_000;
    const src = source(() => [watch(merchant.address, 'TON', { since: new Date(base) }), watch(merchant.address, 'USDT_TON', { since: new Date(base) })], { pageSize: 4 });
    const made: string[] = [];
    // 30 payments of each kind ten minutes ago, three to a second (with the jettons' notifications,
    // six transactions a second on the account: a page may hold one second only, and the jetton
    // list shuffles equal times), and 12 more of each within the last minute.
    const pay = (index: number, at: Date) => {
      made.push(server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 1n, comment: `p${index}`, at }).hex);
      made.push(`${server.addJettonTransfer({ master: USDT_MASTER, to: merchant.address, units: 1n, comment: `j${index}`, at }).hex}:jetton`);
    };
    for (let index = 0; index < 30; index += 1) pay(index, new Date(base + Math.floor(index / 3) * 1000));
    for (let index = 30; index < 42; index += 1) pay(index, new Date(Date.now() - 50_000 + Math.floor(index / 3) * 1000));
    const seen: string[] = [];
    const steps: boolean[] = [];
    for (let more = true; more; ) {
      const result = await step(src);
      seen.push(...result.transfers.map((t) => t.key));
      more = result.more;
      steps.push(more);
      expect(steps.length).toBeLessThan(10);
    }
    // Catching up took more than one step; then the step read the last two minutes whole.
    expect(steps.length).toBeGreaterThan(2);
    expect([...seen].sort()).toEqual([...made].sort());
    expect((await step(src)).transfers).toEqual([]);
  });

  it('send the API key as X-API-Key, and a wrong key fails the step with the API’s answer', async () => {
    const keyed = await new ToncenterTestServer({ apiKey: 'k-123', keyRate: 10 }).start();
    try {
      const merchant = keyed.wallet(200);
      const address = canonicalTonAddress(merchant.address.toString())!;
      const tx = keyed.addTonTransfer({ from: keyed.buyer, to: address, nanotons: 1n, comment: 'inv-key' });
      const good = source(() => [watch(address, 'TON')], { apiKey: 'k-123', minIntervalMs: undefined }, keyed);
      expect((await step(good)).transfers.map((t) => t.key)).toEqual([tx.hex]);
      const bad = source(() => [watch(address, 'TON')], { apiKey: 'wrong' }, keyed);
      await expect(bad.after(undefined, 100)).rejects.toThrow(/HTTP 401: API key does not exist/);
    } finally {
      await keyed.close();
    }
  });

  it('are spaced to the keyless rate: no 429 from an API that allows one a second', async () => {
    const limited = await new ToncenterTestServer({ anonRate: 1 }).start();
    try {
      const address = canonicalTonAddress(limited.wallet(201).address.toString())!;
      limited.addTonTransfer({ from: limited.buyer, to: address, nanotons: 1n, comment: 'inv-rate' });
      const src = source(() => [watch(address, 'TON'), watch(address, 'USDT_TON')], { minIntervalMs: undefined, attempts: 1 }, limited);
      const started = Date.now();
      expect((await step(src)).transfers).toHaveLength(1);
      // masterchainInfo twice, transactions, jetton/transfers: three gaps of 1.1 s.
      expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
      // Without the spacing the same step is refused.
      const hasty = source(() => [watch(address, 'TON'), watch(address, 'USDT_TON')], { minIntervalMs: 0, attempts: 1 }, limited);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await expect(hasty.after(undefined, 100)).rejects.toThrow(/429/);
    } finally {
      await limited.close();
    }
  }, 20_000);
});

describe('places and the cursor', () => {
  it('reads again a step whose booking failed (no booked()), and not again once it is booked', async () => {
    const merchant = newWallet();
    const src = source(() => [watch(merchant.address, 'TON')]);
    const tx = server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 1n, comment: 'inv-retry' });
    expect((await src.after(undefined, 100)).transfers.map((t) => t.key)).toEqual([tx.hex]);
    // The booking failed: the watcher did not call booked().
    expect((await src.after(undefined, 100)).transfers.map((t) => t.key)).toEqual([tx.hex]);
    src.booked();
    const later = server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 2n, comment: 'inv-next' });
    expect((await step(src)).transfers.map((t) => t.key)).toEqual([later.hex]);
    expect((await step(src)).transfers).toEqual([]);
  });

  it('finds a transaction indexed after a step although it is older than that step’s newest block', async () => {
    const merchant = newWallet();
    const src = source(() => [watch(merchant.address, 'TON')]);
    await step(src);
    // Its shard block was made before the masterchain block the last step saw, and committed after it.
    const late = server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 1n, comment: 'inv-late', at: new Date(Date.now() - 30_000) });
    expect((await step(src)).transfers.map((t) => t.key)).toEqual([late.hex]);
  });

  it('a new process with the stored watermark misses nothing after it and reports again only what it must, under the same keys', async () => {
    let now = Date.now() - 3_600_000;
    server.clock = () => now;
    try {
      const merchant = newWallet();
      const since = new Date(now - 60_000);
      const entries = () => [watch(merchant.address, 'TON', { since }), watch(merchant.address, 'USDT_TON', { since })];
      const first = source(entries, { clock: () => new Date(now) });
      let cursor: string | undefined;
      const run = async (src: TonTransfers) => {
        const result = await step(src, cursor);
        cursor = result.next ?? cursor;
        return result.transfers;
      };
      const early = server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 1n, comment: 'inv-early' });
      const firstSeen = await run(first);
      expect(firstSeen.map((t) => t.key)).toEqual([early.hex]);
      const written = Number(cursor);
      expect(written).toBe(Math.floor(now / 1000) - 3 - 120);
      now += 300_000;
      const middle = server.addJettonTransfer({ master: USDT_MASTER, to: merchant.address, units: 2n, comment: 'inv-middle' });
      firstSeen.push(...(await run(first)));
      // Moved less than ten minutes: not written again.
      expect(Number(cursor)).toBe(written);
      now += 400_000;
      firstSeen.push(...(await run(first)));
      expect(Number(cursor)).toBe(Math.floor(now / 1000) - 3 - 120);
      now += 5_000;
      const after = server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 3n, comment: 'inv-after' });
      // The first process stops (its memory is lost); a new one starts from the stored watermark.
      const second = source(entries, { clock: () => new Date(now) });
      const secondSeen = await run(second);
      expect(secondSeen.map((t) => t.key)).toContain(after.hex);
      expect(secondSeen.map((t) => t.key)).not.toContain(early.hex);
      expect(firstSeen.map((t) => t.key).sort()).toEqual([early.hex, `${middle.hex}:jetton`].sort());
      // What both saw is the same payment under the same key and amount: booked once.
      for (const transfer of secondSeen) {
        const before = firstSeen.find((t) => t.key === transfer.key);
        if (before) expect(shown([transfer])).toEqual(shown([before]));
      }
    } finally {
      server.clock = Date.now;
    }
  });

  it('refuses a stored cursor that is not a watermark', async () => {
    const src = source(() => [watch(newWallet().address, 'TON')]);
    await expect(src.after('abc', 100)).rejects.toThrow(/not a watermark/);
  });
});

describe('one transaction (a reported refund)', () => {
  it('gives the transfers of the receiving transaction, or of the sender’s own wallet transaction, keyed as the watcher keys them', async () => {
    const buyer = undeployed();
    const merchant = newWallet();
    const ton = server.addTonTransfer({ from: merchant.wallet, to: buyer, nanotons: 4_000_000n, comment: 'refund 1', deployed: false });
    const usdt = server.addJettonTransfer({ master: USDT_MASTER, from: merchant.wallet, to: buyer, units: 2_500_000n, comment: 'refund 2', inline: true });
    const src = source(() => []);
    const tonTransfer = [{ key: ton.hex, currency: 'TON', address: buyer, memo: 'refund 1', amount: '0.004' }];
    const usdtTransfer = [{ key: `${usdt.hex}:jetton`, currency: 'USDT_TON', address: buyer, memo: 'refund 2', amount: '2.5' }];
    expect(shown((await src.transaction(ton.hex))!)).toEqual(tonTransfer);
    expect(shown((await src.transaction(ton.hash))!)).toEqual(tonTransfer);
    expect(shown((await src.transaction(ton.sender.hex))!)).toEqual(tonTransfer);
    expect(shown((await src.transaction(usdt.hex))!)).toEqual(usdtTransfer);
    expect(shown((await src.transaction(usdt.transactions[0]!.hex))!)).toEqual(usdtTransfer);
    expect(await src.transaction('ab'.repeat(32))).toBeUndefined();
    expect(await src.transaction('not a hash')).toBeUndefined();
  });

  it('gives nothing for a transaction that paid nothing (a bounce)', async () => {
    const tx = server.addTonTransfer({ from: server.buyer, to: newWallet().address, nanotons: 1n, comment: 'x', bounced: true });
    expect(await source(() => []).transaction(tx.hex)).toEqual([]);
  });
});

describe('the network and the health', () => {
  it('refuses an API on testnet (wrong_chain) and asks again at the next step', async () => {
    const testnet = await new ToncenterTestServer({ network: 'testnet' }).start();
    try {
      const address = canonicalTonAddress(testnet.wallet(202).address.toString())!;
      testnet.addTonTransfer({ from: testnet.buyer, to: address, nanotons: 1n, comment: 'inv-testnet' });
      const src = source(() => [watch(address, 'TON')], {}, testnet);
      await expect(src.after(undefined, 100)).rejects.toThrow(WrongChainError);
      await expect(src.after(undefined, 100)).rejects.toThrow(/global_id -3 \(testnet\), expected global_id -239 \(mainnet\)/);
      expect(src.health().chainOk).toBe(false);
      await expect(src.transaction('ab'.repeat(32))).rejects.toThrow(WrongChainError);
      testnet.globalId = -239;
      expect((await step(src)).transfers).toHaveLength(1);
      expect(src.health().chainOk).toBe(true);
    } finally {
      await testnet.close();
    }
  });

  it('says how far the index has got, and that it is behind when its newest block is old', async () => {
    const src = source(() => [watch(newWallet().address, 'TON')]);
    await step(src);
    expect(src.health()).toMatchObject({ chainOk: true, caughtUp: true, tipHeight: expect.any(Number) });
    server.headAgeMs = 600_000;
    try {
      const stale = source(() => [watch(newWallet().address, 'TON')]);
      await step(stale);
      expect(stale.health()).toMatchObject({ chainOk: true, caughtUp: false });
    } finally {
      server.headAgeMs = 3000;
    }
  });

  it('fails a step on garbage, never reporting a wrong value', async () => {
    const merchant = newWallet();
    const src = source(() => [watch(merchant.address, 'TON')], { attempts: 1 });
    await step(src);
    server.fault({ kind: 'garbage', times: 1, match: /transactions/ });
    await expect(src.after(undefined, 100)).rejects.toThrow(SourceError);
    server.fault({ kind: 'garbage', times: 1, match: /transactions/, body: JSON.stringify({ transactions: [{ hash: 'x' }] }) });
    await expect(src.after(undefined, 100)).rejects.toThrow(/no valid hash/);
    // A body that is not what its hash says.
    const tx = server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 1n, comment: 'inv-real' });
    const forged = structuredClone(tx.json) as { in_msg: { message_content: { body: string } } };
    const bodyOf = (candidate: TonTransaction) => (candidate.json.in_msg as { message_content?: { body?: string } } | null)?.message_content?.body;
    const other = server.transactions.find((candidate) => bodyOf(candidate) !== undefined && bodyOf(candidate) !== bodyOf(tx))!;
    forged.in_msg.message_content.body = (other.json.in_msg as { message_content: { body: string } }).message_content.body;
    server.fault({ kind: 'garbage', times: 1, match: /transactions/, body: JSON.stringify({ transactions: [forged], address_book: {} }) });
    await expect(src.after(undefined, 100)).rejects.toThrow(/does not have the hash/);
    // Out of time order (an API that ignored sort=asc).
    const newer = server.addTonTransfer({ from: server.buyer, to: merchant.address, nanotons: 1n, comment: 'inv-newer', at: new Date(Date.now() + 5000) });
    server.fault({ kind: 'garbage', times: 1, match: /transactions/, body: JSON.stringify({ transactions: [newer.json, tx.json], address_book: {} }) });
    await expect(src.after(undefined, 100)).rejects.toThrow(/out of time order/);
  });
});
