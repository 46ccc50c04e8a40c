import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { parseDecimal, toMinorUnits } from '#shared/domain/money';
import { findOrderWithInvoice } from '#shared/store/orders';
import type { ChainTx, UtxoChain } from './utxo-chain';

/** A fresh account-level BTC key (m/84'/0'/0' of a random seed) for a live test merchant. */
export function testXpub(path = "m/84'/0'/0'"): string {
  return HDKey.fromMasterSeed(randomBytes(32)).derive(path).publicExtendedKey;
}

/** The satoshis of an invoice's pay amount, plus `delta`. */
export const satsOf = (payAmount: number | string, delta = 0n): bigint => toMinorUnits(parseDecimal(String(payAmount)), 8) + delta;

/** The order and its current invoice as stored. */
export const stored = async (orderId: string) => (await findOrderWithInvoice(orderId))!;

/** Pays `address` `sats` in one new transaction (in the mempool). */
export const payTo = (chain: UtxoChain, address: string, sats: bigint): ChainTx => chain.pay([{ address, sats }]);

/**
 * Every chain's open-address list began long ago (shared/store/watch-list.ts): invoices
 * from before it are past their window, so a watcher looks up only listed outputs. Written over
 * whatever start another test file left in the shared table.
 */
export async function openListsBeganLongAgo(): Promise<void> {
  const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
  const { db, tableName } = await import('#shared/store/client');
  const { openListStartKey } = await import('#shared/store/keys');
  const { CHAINS } = await import('#shared/chains/sources');
  for (const chain of Object.keys(CHAINS)) {
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...openListStartKey(chain), started_at: '2000-01-01T00:00:00.000Z' } }));
  }
}
