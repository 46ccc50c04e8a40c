/**
 * `npm run merchant -- create --name NAME [--sandbox] [--token TOKEN] [--callback-statuses paid|all] ...`
 *
 * Creates a merchant and prints one JSON line {"user_id","api_token","callback_secret"}.
 * The table is the running local runtime's (found through DATA_DIR/runtime.json), or, when
 * TABLE_NAME is set, that table in AWS (credentials and region from the usual AWS variables;
 * TOKEN_HMAC_KEY_PARAMETER names the stack's token key parameter, see docs/deploy.md).
 */
import { parseArgs } from 'node:util';
import { useCliTable } from '#infra/local/cli-table';

const USAGE =
  'usage: npm run merchant -- create --name NAME [--sandbox] [--token TOKEN] [--receive-currency USD|USDT|USDC]\n' +
  '         [--gateway ALIPAY|ALIGLOBAL|WECHAT]... [--tolerance PERCENT] [--xpub CURRENCY=XPUB]...\n' +
  '         [--callback-statuses paid|all]   (callbacks for PAID only, the default, or every status change)';

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const { positionals, values } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        sandbox: { type: 'boolean', default: false },
        token: { type: 'string' },
        'receive-currency': { type: 'string' },
        gateway: { type: 'string', multiple: true },
        tolerance: { type: 'string' },
        xpub: { type: 'string', multiple: true },
        'callback-statuses': { type: 'string' },
      },
    });
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
})();

if (positionals[0] !== 'create' || !values.name) fail(USAGE);
await useCliTable(fail);

// Loaded after the environment names the table.
const { createMerchant } = await import('#shared/services/merchants');
try {
  const credentials = await createMerchant({
    name: values.name,
    sandbox: values.sandbox,
    apiToken: values.token,
    receiveCurrency: values['receive-currency'],
    gateways: values.gateway,
    tolerancePercent: values.tolerance,
    callbackStatuses: values['callback-statuses'],
    xpubs: Object.fromEntries((values.xpub ?? []).map((entry) => entry.split('=', 2) as [string, string])),
  });
  console.log(JSON.stringify(credentials));
} catch (error) {
  fail(`Could not create the merchant: ${(error as Error).message}`);
}
