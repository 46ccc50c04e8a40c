/**
 * `npm run merchant -- create --name NAME [--sandbox] [--token TOKEN] [--callback-statuses paid|all] ...`
 * `npm run merchant -- invite USER_ID [--name NAME] [--role owner|developer|viewer] [--hours 72]`
 *
 * create: makes a merchant and prints one JSON line {"user_id","api_token","callback_secret",
 * "portal_invite"}: the invite is a one-time link to the merchant portal for its first user.
 * invite: prints {"user_id","portal_invite","expires_at"}, another one-time link (expiring).
 * The portal's address is the local runtime's, or PORTAL_ORIGIN in AWS.
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
  '         [--gateway ALIPAY|ALIGLOBAL|WECHAT]... [--tolerance PERCENT] [--xpub CURRENCY=XPUB]...\n' +
  '         [--callback-statuses paid|all]   (callbacks for PAID only, the default, or every status change)\n' +
  '       npm run merchant -- invite USER_ID [--name NAME] [--role owner|developer|viewer] [--hours HOURS]';

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
        role: { type: 'string' },
        hours: { type: 'string' },
      },
    });
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
})();

const command = positionals[0];
if (!((command === 'create' && values.name) || (command === 'invite' && /^\d+$/.test(positionals[1] ?? '')))) fail(USAGE);
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
  process.env.PORTAL_ORIGIN ??= state.portalOrigin ?? new URL(state.apiUrl).origin.replace('127.0.0.1', 'localhost');
  Object.assign(process.env, localTokenKey(process.env.DATA_DIR ?? '.data'));
}

// Loaded after the environment names the table.
const { createMerchant } = await import('#shared/services/merchants');
const { createInvite } = await import('#shared/services/portal-auth');
const { ROLES } = await import('#shared/domain/portal');

const inviteOptions = () => {
  const role = values.role ?? 'owner';
  if (!(ROLES as readonly string[]).includes(role)) fail(`--role must be one of ${ROLES.join(', ')}`);
  const hours = values.hours === undefined ? undefined : Number(values.hours);
  if (hours !== undefined && !(Number.isInteger(hours) && hours > 0 && hours <= 24 * 30)) fail('--hours must be a whole number of hours, at most 720');
  return { role: role as (typeof ROLES)[number], ttlHours: hours };
};

if (command === 'invite') {
  const userId = Number(positionals[1]);
  const { findMerchant } = await import('#shared/store/merchants');
  try {
    if (!(await findMerchant(userId))) fail(`No merchant with user_id ${userId}.`);
    const invite = await createInvite({ merchantId: userId, name: values.name, ...inviteOptions() });
    console.log(JSON.stringify({ user_id: userId, portal_invite: invite.url, expires_at: invite.expires_at }));
  } catch (error) {
    fail(`Could not make the invite: ${(error as Error).message}`);
  }
  process.exit(0);
}
try {
  const credentials = await createMerchant({
    name: values.name!,
    sandbox: values.sandbox,
    apiToken: values.token,
    receiveCurrency: values['receive-currency'],
    gateways: values.gateway,
    tolerancePercent: values.tolerance,
    callbackStatuses: values['callback-statuses'],
    xpubs: Object.fromEntries((values.xpub ?? []).map((entry) => entry.split('=', 2) as [string, string])),
  });
  const invite = await createInvite({ merchantId: credentials.user_id, name: values.name, ...inviteOptions() });
  console.log(JSON.stringify({ ...credentials, portal_invite: invite.url }));
} catch (error) {
  fail(`Could not create the merchant: ${(error as Error).message}`);
}
