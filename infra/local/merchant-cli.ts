/**
 * `npm run merchant -- create --name NAME [--sandbox] [--token TOKEN] [--callback-statuses paid|all] ...`
 *
 * Creates a merchant and prints one JSON line {"user_id","api_token","callback_secret"}.
 * The table is the running local runtime's (found through DATA_DIR/runtime.json), or, when
 * TABLE_NAME is set, that table in AWS (credentials and region from the usual AWS variables;
 * TOKEN_HMAC_KEY_PARAMETER names the stack's token key parameter, see docs/deploy.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { LOCAL_AWS_ENV } from '#infra/local/dynamodb';
import { localTokenKey, stateFile, type RuntimeState } from '#infra/local/runtime';

const USAGE =
  'usage: npm run merchant -- create --name NAME [--sandbox] [--token TOKEN] [--receive-currency USD|USDT|USDC]\n' +
  '         [--gateway ALIPAY|ALIGLOBAL|WECHAT]... [--tolerance PERCENT] [--xpub KEY=XPUB]...\n' +
  '         (KEY: BTC, LTC, BCH, ETH (every EVM network), TRX (TRON), or a pay currency naming its key: USDT_TRC20=, USDT_ARB=)\n' +
  '         [--wallet SOL=ADDRESS]   (the Solana wallet USDC_SOL is paid to; USDC_SOL=ADDRESS too)\n' +
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
        wallet: { type: 'string', multiple: true },
        'callback-statuses': { type: 'string' },
      },
    });
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
})();

if (positionals[0] !== 'create' || !values.name) fail(USAGE);
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

if (!process.env.TABLE_NAME) {
  const file = stateFile(process.env.DATA_DIR ?? '.data');
  if (!existsSync(file)) {
    fail(`No local runtime is running (no ${file}). Start it with "npm start", or set TABLE_NAME for a table in AWS.`);
  }
  const state = JSON.parse(readFileSync(file, 'utf8')) as RuntimeState;
  // A runtime that was killed leaves its state file behind: check it is still there.
  try {
    process.kill(state.pid, 0);
  } catch {
    fail(`The local runtime that wrote ${file} is no longer running. Start it with "npm start".`);
  }
  Object.assign(process.env, LOCAL_AWS_ENV, { TABLE_NAME: state.tableName, DYNAMODB_ENDPOINT: state.dynamodbEndpoint });
  Object.assign(process.env, localTokenKey(process.env.DATA_DIR ?? '.data'));
}

// Loaded after the environment names the table.
const { createMerchant } = await import('#shared/services/merchants');
const { keyOf } = await import('#shared/domain/currencies');

/** `--xpub USDT_TRC20=...` is the TRON key, `--xpub USDC_BASE=...` the ETH key: one key per chain family. */
function xpubsOf(entries: readonly string[]): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.indexOf('=');
    if (at < 1) fail(`--xpub takes KEY=XPUB, got "${entry}"`);
    const named = entry.slice(0, at).toUpperCase();
    let key = named;
    try {
      key = keyOf(named);
    } catch {
      // Not a pay currency: a key name (BTC, TRX, ...), checked by createMerchant.
    }
    const value = entry.slice(at + 1);
    if (keys[key] !== undefined && keys[key] !== value) fail(`--xpub ${named}= names the ${key} key, already given another value`);
    keys[key] = value;
  }
  return keys;
}
try {
  const credentials = await createMerchant({
    name: values.name,
    sandbox: values.sandbox,
    apiToken: values.token,
    receiveCurrency: values['receive-currency'],
    gateways: values.gateway,
    tolerancePercent: values.tolerance,
    callbackStatuses: values['callback-statuses'],
    xpubs: xpubsOf(values.xpub ?? []),
    wallets: Object.fromEntries(
      (values.wallet ?? []).map((entry) => {
        const at = entry.indexOf('=');
        if (at < 1) fail(`--wallet takes NETWORK=ADDRESS, got "${entry}"`);
        const named = entry.slice(0, at).toUpperCase();
        return [named === 'USDC_SOL' ? 'SOL' : named, entry.slice(at + 1)];
      }),
    ),
  });
  console.log(JSON.stringify(credentials));
} catch (error) {
  fail(`Could not create the merchant: ${(error as Error).message}`);
}
