/**
 * The health of each payment source (a chain's node or API, the Lightning node, the EOS history
 * API) as its watcher last saw it: one item per source in one partition (keys.ts: HEALTH), so
 * the checkout gate, the payment page, `GET /v1/health` and the operator's CLI read all of
 * them with one Query. Nothing secret is stored: no node URL, no credential, errors are kept
 * short and stripped of URLs by the writer's caller.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { updateIf } from '#shared/store/conditional';
import { ENTITY, SOURCE_HEALTH_PARTITION, sourceHealthKey } from '#shared/store/keys';

export interface SourceHealth {
  /** The watched source: a chain (BTC, LTC, BCH, ETH, ...), LBTC or EOS. */
  source: string;
  /** The adapter reading it (esplora, core-rpc, ethereum-rpc, lnd, hyperion). */
  kind: string;
  /** When the watcher last reported (success or failure). */
  checked_at: string;
  /** The last report whose look at the source succeeded. */
  last_success_at?: string;
  last_error_at?: string;
  /** What failed last, in a few words (no URL, no credential). */
  last_error?: string;
  /** The source's tip and how far the watcher has booked (block sources). */
  tip_height?: number;
  cursor_height?: number;
  /** The last time the watcher had booked up to the source's tip: `now - caught_up_at` is its lag. */
  caught_up_at?: string;
  /** Whether the source is on the chain configured (chain id, genesis): false stops new checkouts. */
  chain_ok?: boolean;
  /** Currencies of the source that fail on their own (a token contract that does not answer), with why. */
  currency_errors?: Record<string, string>;
}

/** What a watcher reports after a look at its source. */
export type HealthReport =
  | ({ ok: true } & Omit<SourceHealth, 'last_success_at' | 'last_error_at' | 'last_error'>)
  | { ok: false; source: string; kind: string; checked_at: string; error: string; chain_ok?: boolean };

const FIELDS = ['source', 'kind', 'checked_at', 'last_success_at', 'last_error_at', 'last_error', 'tip_height', 'cursor_height', 'caught_up_at', 'chain_ok', 'currency_errors'] as const;

/**
 * Records a report: a success sets the last success and the heights (the last error stays, for
 * the operator to read); a failure sets the last error and keeps the last success. One
 * conditional UpdateItem: a report older than the one stored (a slow run finishing after a
 * newer one) changes nothing. False when refused so.
 */
export function recordSourceHealth(report: HealthReport): Promise<boolean> {
  const set: Record<string, unknown> = { type: ENTITY.sourceHealth, source: report.source, kind: report.kind, checked_at: report.checked_at };
  if (report.ok) {
    const { ok: _ok, ...fields } = report;
    Object.assign(set, fields, { last_success_at: report.checked_at, currency_errors: report.currency_errors ?? {} });
  } else {
    Object.assign(set, { last_error_at: report.checked_at, last_error: report.error.slice(0, 300) });
    if (report.chain_ok !== undefined) set.chain_ok = report.chain_ok;
  }
  const entries = Object.entries(set).filter(([, value]) => value !== undefined);
  // A success while behind keeps the last catch-up, so the lag grows; a source behind from its
  // very first report counts its lag from that report, not never.
  const lagFrom = report.ok && report.caught_up_at === undefined ? ', #caught = if_not_exists(#caught, :checked)' : '';
  return updateIf(sourceHealthKey(report.source), {
    UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}${lagFrom}`,
    ConditionExpression: 'attribute_not_exists(#checked) OR #checked <= :checked',
    ExpressionAttributeNames: { '#checked': 'checked_at', ...(lagFrom ? { '#caught': 'caught_up_at' } : {}), ...Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])) },
    ExpressionAttributeValues: { ':checked': report.checked_at, ...Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])) },
  });
}

/** Every source's health (one Query of one small partition). */
export async function listSourceHealth(): Promise<SourceHealth[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': SOURCE_HEALTH_PARTITION },
    }),
  );
  return (result.Items ?? []).map((item) => Object.fromEntries(FIELDS.filter((field) => item[field] !== undefined).map((field) => [field, item[field]])) as unknown as SourceHealth);
}
