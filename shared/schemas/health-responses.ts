import { strictObject } from '#shared/schemas/order-responses';

/** The operators' health view (`GET /v1/health`, shared/services/health.ts). */
const SOURCE_STATES = ['ok', 'unknown', 'failing', 'wrong_chain', 'lagging'];
const nullableTime = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description });
const nullableInteger = (description: string) => ({ type: ['integer', 'null'], minimum: 0, description });

/** One watched source as `GET /v1/health` shows it: states and times, never a URL, credential or error text. */
export const sourceHealthSchema = strictObject('SourceHealth', 'One payment source (a chain node or API, the Lightning node, the EOS history API) as its watcher last saw it.', {
  source: { type: 'string', description: 'The source: BTC, LTC, BCH, ETH, LBTC or EOS.' },
  kind: { type: 'string', description: 'The adapter reading it: esplora, core-rpc, ethereum-rpc, lnd, hyperion.' },
  state: {
    type: 'string',
    enum: SOURCE_STATES,
    description: 'ok; unknown (never reported); failing (no success within SOURCE_MAX_SILENCE_SECONDS); wrong_chain; lagging (behind the tip longer than SOURCE_MAX_LAG_SECONDS).',
  },
  currencies: {
    type: 'object',
    additionalProperties: { type: 'string', enum: SOURCE_STATES },
    description: 'Each currency seen through the source and its state (a token can fail on its own). Only `ok` ones are offered to buyers.',
  },
  last_success_at: nullableTime('The last look at the source that succeeded.'),
  last_error_at: nullableTime('The last look that failed.'),
  lag_seconds: nullableInteger("Seconds since the watcher was last caught up with the source's tip."),
  tip_height: nullableInteger("The source's tip when last seen (block sources)."),
  cursor_height: nullableInteger('How far the watcher has booked (block sources).'),
  chain_ok: { type: ['boolean', 'null'], description: 'Whether the source is on the configured chain (null: not checked for this kind).' },
});
/** `GET /v1/health`: every configured source; `healthy` when all of them and all their currencies are ok. */
export const healthResponseSchema = strictObject('HealthResponse', 'The health of every payment source this deployment watches.', {
  status: { type: 'integer', const: 200 },
  healthy: { type: 'boolean', description: 'True when every source and every currency is ok.' },
  checked_at: { type: 'string', format: 'date-time', description: 'When this answer was made.' },
  sources: { type: 'array', items: { $ref: 'SourceHealth' } },
});
