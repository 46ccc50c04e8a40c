/**
 * `npm run health` [-- --json]
 *
 * The health of every payment source, as the watchers last wrote it: state (ok, unknown,
 * failing, wrong_chain, lagging), each currency's state, last success and error (with its
 * text: this is the operator's view), lag and heights. The table is the running local
 * runtime's, or with TABLE_NAME set that table in AWS (docs/deploy.md). Exit status 0 when
 * every source and currency is ok, 1 when not, 2 when the table cannot be read.
 */
import { parseArgs } from 'node:util';
import { useCliTable } from '#infra/local/cli-table';

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } });
await useCliTable(fail);

// Loaded after the environment names the table.
const { healthView } = await import('#shared/services/health');
const view = await healthView(new Date(), { withErrors: true }).catch((error: unknown) => fail(`Could not read the sources' health: ${String(error)}`));
if (values.json) {
  console.log(JSON.stringify(view));
} else {
  console.log(`${view.healthy ? 'healthy' : 'NOT healthy'} at ${view.checked_at}`);
  if (view.sources.length === 0) console.log('no source is configured or has reported');
  for (const source of view.sources) {
    const currencies = Object.entries(source.currencies)
      .map(([code, state]) => `${code} ${state}`)
      .join(', ');
    console.log(`${source.source.padEnd(5)} ${source.kind.padEnd(13)} ${source.state.padEnd(11)} ${currencies}`);
    console.log(
      `      last success ${source.last_success_at ?? 'never'}, lag ${source.lag_seconds ?? '-'} s, tip ${source.tip_height ?? '-'}, booked ${source.cursor_height ?? '-'}, chain ${source.chain_ok ?? '-'}`,
    );
    if (source.last_error) console.log(`      last error ${source.last_error_at}: ${source.last_error}`);
    for (const [code, why] of Object.entries(source.currency_errors ?? {})) console.log(`      ${code}: ${why}`);
  }
}
process.exit(view.healthy ? 0 : 1);
