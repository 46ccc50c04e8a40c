import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { addressKey } from '#shared/store/keys';

/**
 * The invoice an address (with its memo, for EOS) was issued for, as the watcher core looks a
 * transfer up in the address index; undefined for an address that is not an invoice's.
 */
export async function invoiceAtAddress(currency: string, address: string, memo?: string): Promise<{ orderId: string; invoiceId: string } | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: addressKey(currency, address, memo) }));
  if (!result.Item) return undefined;
  return { orderId: String(result.Item.order_id), invoiceId: String(result.Item.invoice_id) };
}
