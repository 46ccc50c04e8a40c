import { healthResponseSchema } from '#shared/schemas/health-responses';
import { SERVICE_UNAVAILABLE } from '#tools/openapi/errors';
import type { OperationMeta } from '#tools/openapi/operation';

const EXAMPLE = {
  status: 200,
  healthy: false,
  checked_at: '2026-11-25T18:00:00.000Z',
  sources: [
    {
      source: 'BTC',
      kind: 'esplora',
      state: 'ok',
      currencies: { BTC: 'ok' },
      last_success_at: '2026-11-25T17:59:52.000Z',
      last_error_at: null,
      lag_seconds: 8,
      tip_height: 870123,
      cursor_height: 870123,
      chain_ok: true,
    },
    {
      source: 'ETH',
      kind: 'ethereum-rpc',
      state: 'ok',
      currencies: { ETH: 'ok', USDT_ERC20: 'failing', USDC_ERC20: 'ok' },
      last_success_at: '2026-11-25T17:59:55.000Z',
      last_error_at: '2026-11-25T17:40:02.000Z',
      lag_seconds: 5,
      tip_height: 21000000,
      cursor_height: 20999998,
      chain_ok: true,
    },
  ],
};

/** The operators' health view. */
export const HEALTH_OPERATIONS: Readonly<Record<string, OperationMeta>> = {
  'get-health': {
    operationId: 'getHealth',
    tag: 'Health',
    summary: 'Health of the payment sources',
    description: [
      'Every payment source this deployment watches (chain nodes and APIs, the Lightning node, the EOS history API), as',
      'its watcher last saw it: state, last success and failure times, lag behind the tip, heights, and whether it is on',
      'the configured chain. A currency whose state is not `ok` is not offered to buyers of live merchants (checkout',
      'answers 400 PAYMENT_NOT_AVAILABLE) until it is again; invoices already open stay watched. No token; nothing',
      'secret in the answer (no node URL, credential, error text or merchant data). Always HTTP 200: `healthy` says.',
    ].join(' '),
    success: { description: 'Every configured source.', schema: healthResponseSchema, examples: { degraded: { summary: 'One token failing', value: EXAMPLE } } },
    errors: [SERVICE_UNAVAILABLE],
  },
};
