/**
 * The operator's merchant CLI (docs/operator-guide.md "Operating merchants"): `npm run merchant -- <command>`.
 *
 *   create --name NAME [--sandbox] [--token TOKEN] [settings...]   a merchant; prints its first token and secret once
 *   list | show <user_id> | audit <user_id> [--limit N]             read
 *   disable <user_id> | enable <user_id>                            refuse or accept its tokens again
 *   set <user_id> [settings...]                                     change settings (new invoices only)
 *   token create <user_id> [--name NAME] | token list <user_id> | token revoke <user_id> <token_id>
 *   secret show <user_id> | secret roll <user_id> [--overlap-hours H]
 *   number-orders [<user_id>]                                       number orders stored before numbering (Get Orders' deep offsets)
 *   plans <user_id>                                                 its subscription plans, newest first (read)
 *
 * Settings: --name, --receive-currency USD|USDT|USDC, --gateway CODE (repeatable), --tolerance
 * PERCENT, --callback-statuses paid|all, --xpub CURRENCY=KEY (repeatable; CURRENCY= removes).
 * Output is JSON for create, token create and secret roll (what a script keeps), and for every
 * command with --json; otherwise text. Errors go to stderr with exit code 2.
 *
 * The table is the running local runtime's (found through DATA_DIR/runtime.json), or, when
 * TABLE_NAME is set, that table in AWS (credentials and region from the usual AWS variables;
 * TOKEN_HMAC_KEY_PARAMETER names the stack's token key parameter, see docs/deploy.md).
 */
import { hostname, userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { useCliTable } from '#infra/local/cli-table';
import { keyOf } from '#shared/domain/currencies';
import { WALLET_NETWORK_OF } from '#shared/domain/networks';

const USAGE = `usage: npm run merchant -- <command> [--json]
  create --name NAME [--sandbox] [--token TOKEN] [settings]
  list
  show <user_id>
  audit <user_id> [--limit N]
  disable <user_id>
  enable <user_id>
  set <user_id> [settings]
  token create <user_id> [--name NAME]
  token list <user_id>
  token revoke <user_id> <token_id>
  secret show <user_id>
  secret roll <user_id> [--overlap-hours H]   (default 24: both secrets sign callbacks meanwhile)
  invite <user_id> [--name NAME] [--role owner|developer|viewer] [--hours H]   (a portal invite link, once, 72 h by default)
  number-orders [<user_id>]   (numbers one merchant's orders, or every merchant's, up to two minutes ago: Get Orders beyond offset 1000)
  plans <user_id>   (its subscription plans, newest first: id, available or archived, price, period, name)
settings: --name NAME --receive-currency USD|USDT|USDC --gateway ALIPAY|ALIGLOBAL|WECHAT (repeatable)
          --tolerance PERCENT --callback-statuses paid|all --xpub KEY=XPUB (repeatable; KEY= removes)
          KEY: BTC, LTC, BCH, ETH (every EVM network), TRX (TRON), or a pay currency naming its key (USDT_TRC20=, USDC_BASE=)
          --wallet SOL=ADDRESS (create: the Solana wallet USDC_SOL and PYUSD are paid to; USDC_SOL= or PYUSD= too)
          --wallet TON=ADDRESS (create: the TON wallet TON and USDT_TON are paid to; USDT_TON= too)
          --wallet XLM=ACCOUNT (create: the Stellar account USDC_XLM is paid to, G...; USDC_XLM= too)`;

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
        'overlap-hours': { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean', default: false },
        role: { type: 'string' },
        hours: { type: 'string' },
      },
    });
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
})();

function userIdArgument(value: string | undefined): number {
  if (!value || !/^[1-9]\d{0,9}$/.test(value)) fail(`a user_id is a positive integer\n${USAGE}`);
  return Number(value);
}

/**
 * `--xpub KEY=XPUB` options as a record (an empty XPUB removes that key). A pay currency names
 * its key: `USDT_TRC20=` is the TRX key, `USDC_BASE=` the ETH key (one key per chain family).
 */
function xpubOptions(): Record<string, string> | undefined {
  if (!values.xpub) return undefined;
  const keys: Record<string, string> = {};
  for (const entry of values.xpub) {
    const at = entry.indexOf('=');
    if (at < 1) fail(`--xpub takes KEY=XPUB, got "${entry}"`);
    const named = entry.slice(0, at).toUpperCase();
    let key = named;
    try {
      key = keyOf(named);
    } catch {
      // Not a pay currency: a key name (BTC, TRX, ...), checked by the service.
    }
    const value = entry.slice(at + 1);
    if (keys[key] !== undefined && keys[key] !== value) fail(`--xpub ${named}= names the ${key} key, already given another value`);
    keys[key] = value;
  }
  return keys;
}

/** `--wallet SOL=ADDRESS` (or `USDC_SOL=`, `PYUSD=`), `--wallet TON=` (or `USDT_TON=`), `--wallet XLM=` (or `USDC_XLM=`) options as a record. */
function walletOptions(): Record<string, string> {
  return Object.fromEntries(
    (values.wallet ?? []).map((entry) => {
      const at = entry.indexOf('=');
      if (at < 1) fail(`--wallet takes NETWORK=ADDRESS, got "${entry}"`);
      const named = entry.slice(0, at).toUpperCase();
      // A currency's name stands for its network's one wallet (USDC_SOL= is SOL=).
      return [WALLET_NETWORK_OF[named] ?? named, entry.slice(at + 1)];
    }),
  );
}

/**
 * A Stellar account given for USDC_XLM must exist and trust Circle's USDC, or every payment to
 * it fails (shared/watchers/stellar-account.ts). The reason is shown and nothing is created.
 */
async function checkStellarAccount(account: string): Promise<void> {
  const { stellarAccountProblem } = await import('#shared/watchers/stellar-account');
  const problem = await stellarAccountProblem(account);
  if (problem) fail(problem);
}

/** Prints `json` as JSON (always for `alwaysJson`, else with --json), otherwise `text`. */
function print(json: unknown, text: () => string, alwaysJson = false): void {
  console.log(alwaysJson || values.json ? JSON.stringify(json) : text());
}

const COMMANDS = ['create', 'list', 'show', 'audit', 'disable', 'enable', 'set', 'token', 'secret', 'invite', 'number-orders', 'plans'] as const;
const [command, ...rest] = positionals;
if (!COMMANDS.includes(command as (typeof COMMANDS)[number])) fail(USAGE);
await useCliTable(fail);
// Loaded after the environment names the table.
const merchants = await import('#shared/services/merchants');
const tokens = await import('#shared/services/api-tokens');
// The invites alone, not the portal's sign-in (its WebAuthn library is most of a command's start).
const team = await import('#shared/services/portal/team');
const { ROLES } = await import('#shared/domain/portal');
const actor = { who: `operator:${userInfo().username}`, from: `cli@${hostname()}` };

const settings = () => ({
  name: command === 'set' ? values.name : undefined,
  receiveCurrency: values['receive-currency'],
  gateways: values.gateway,
  tolerancePercent: values.tolerance,
  callbackStatuses: values['callback-statuses'],
  xpubs: xpubOptions(),
});

/** A portal invite for the merchant: its role, name and lifetime from the options. */
async function invite(merchantId: number, name: string | undefined) {
  const role = values.role ?? 'owner';
  if (!(ROLES as readonly string[]).includes(role)) fail(`--role must be one of ${ROLES.join(', ')}`);
  const hours = values.hours === undefined ? undefined : Number(values.hours);
  if (hours !== undefined && !(Number.isInteger(hours) && hours > 0 && hours <= 24 * 30)) fail('--hours must be a whole number of hours, at most 720');
  return team.createInvite({ merchantId, role: role as (typeof ROLES)[number], name, ttlHours: hours }, new Date(), actor);
}

const profileText = (merchant: { user_id: number; name: string; sandbox: boolean; disabled?: boolean; receive_currency: string }) =>
  `${merchant.user_id}\t${merchant.sandbox ? 'sandbox' : 'live'}\t${merchant.disabled ? 'disabled' : 'enabled'}\t${merchant.receive_currency}\t${merchant.name}`;

const commands: Record<(typeof COMMANDS)[number], () => Promise<void>> = {
  async create() {
    if (!values.name) fail(USAGE);
    // The invite link needs the portal's address: refuse before the merchant exists, not after.
    (await import('#shared/core/config')).portalConfig();
    const { xpubs, ...rest } = settings();
    const wallets = walletOptions();
    if (wallets.XLM !== undefined) await checkStellarAccount(wallets.XLM);
    const credentials = await merchants.createMerchant({ ...rest, name: values.name, sandbox: values.sandbox, apiToken: values.token, xpubs: xpubs ?? {}, wallets }, new Date(), actor);
    const link = await invite(credentials.user_id, undefined);
    print({ ...credentials, portal_invite: link.url }, () => '', true);
  },
  async invite() {
    const userId = userIdArgument(rest[0]);
    // An unknown or disabled merchant gets no invite.
    const merchant = await merchants.merchantProfile(userId);
    if (merchant.disabled) fail(`merchant ${userId} is disabled`);
    const link = await invite(userId, values.name);
    print({ user_id: userId, portal_invite: link.url, expires_at: link.expires_at }, () => `${link.url}\n(works once, until ${link.expires_at})`);
  },
  async list() {
    const list = await merchants.merchantProfiles();
    print(list, () => ['user_id\tmode\tstate\treceive\tname', ...list.map(profileText)].join('\n'));
  },
  async show() {
    const userId = userIdArgument(rest[0]);
    const merchant = await merchants.merchantProfile(userId);
    const tokenList = await tokens.listApiTokens(userId);
    print({ merchant, tokens: tokenList }, () =>
      [
        profileText(merchant),
        `callbacks for: ${merchant.callback_statuses ?? 'paid'}; tolerance ${merchant.payment_tolerance_percent ?? '0'}%; gateways: ${merchant.gateways.join(', ') || 'none'}`,
        `keys: ${Object.keys(merchant.xpubs ?? {}).join(', ') || 'platform keys'}`,
        `tokens: ${tokenList.map((token) => `${token.token_id} (${token.name})`).join(', ') || 'none'}`,
      ].join('\n'),
    );
  },
  async audit() {
    const entries = await merchants.auditLog(userIdArgument(rest[0]), values.limit ? Number(values.limit) : 50);
    print(entries, () => entries.map((entry) => `${entry.at}\t${entry.action}\t${entry.who}\t${entry.from}\t${JSON.stringify(entry.details)}`).join('\n'));
  },
  async disable() {
    const merchant = await merchants.setDisabled(userIdArgument(rest[0]), true, actor);
    print(merchant, () => profileText(merchant));
  },
  async enable() {
    const merchant = await merchants.setDisabled(userIdArgument(rest[0]), false, actor);
    print(merchant, () => profileText(merchant));
  },
  async set() {
    const result = await merchants.changeSettings(userIdArgument(rest[0]), settings(), actor);
    print(result, () =>
      [profileText(result.merchant), ...Object.entries(result.addresses).map(([code, addresses]) => `${code} first addresses (compare with your wallet): ${addresses.join(' ')}`)].join('\n'),
    );
  },
  async token() {
    const [verb, id, tokenId] = rest;
    const userId = userIdArgument(id);
    if (verb === 'create') {
      print(await tokens.createApiToken(userId, values.name ?? 'token', actor), () => '', true);
    } else if (verb === 'list') {
      const list = await tokens.listApiTokens(userId);
      print(list, () =>
        [
          'token_id\tname\tstarts with\tcreated\tlast used',
          ...list.map((token) => `${token.token_id}\t${token.name}\t${token.prefix ?? ''}\t${token.created_at}\t${token.last_used_at ?? 'never'}`),
        ].join('\n'),
      );
    } else if (verb === 'revoke') {
      if (!tokenId) fail(USAGE);
      await tokens.revokeApiToken(userId, tokenId, actor);
      print({ revoked: tokenId }, () => `revoked ${tokenId}`);
    } else fail(USAGE);
  },
  async 'number-orders'() {
    const { numberMerchantOrders } = await import('#shared/services/order-numbering');
    const userIds = rest[0] === undefined ? (await merchants.merchantProfiles()).map((merchant) => merchant.user_id) : [userIdArgument(rest[0])];
    const numbered: Record<string, number> = {};
    for (const userId of userIds) numbered[userId] = await numberMerchantOrders(userId, new Date());
    print({ numbered }, () =>
      Object.entries(numbered)
        .map(([userId, count]) => `${userId}\t${count} orders numbered`)
        .join('\n'),
    );
  },
  async plans() {
    const userId = userIdArgument(rest[0]);
    // An unknown merchant is an error, not an empty list.
    await merchants.merchantProfile(userId);
    const { listMerchantPlans } = await import('#shared/services/subscriptions');
    const { planView } = await import('#shared/schemas/subscriptions');
    const plans: ReturnType<typeof planView>[] = [];
    let cursor: string | undefined;
    do {
      const page = await listMerchantPlans({ user_id: userId }, { limit: 50, ...(cursor ? { cursor } : {}) });
      plans.push(...page.plans.map(planView));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    print(plans, () =>
      [
        'plan_id\tstate\tprice\tevery\tname',
        ...plans.map((plan) => `${plan.plan_id}\t${plan.archived ? 'archived' : 'available'}\t${plan.price_amount} ${plan.price_currency}\t${plan.interval_count} ${plan.interval_unit}\t${plan.name}`),
      ].join('\n'),
    );
  },
  async secret() {
    const [verb, id] = rest;
    const userId = userIdArgument(id);
    if (verb === 'show') {
      const secrets = await merchants.showSecret(userId);
      print(secrets, () => secrets.callback_secret + (secrets.previous_callback_secret ? `\n(previous, until ${secrets.previous_valid_until}: ${secrets.previous_callback_secret})` : ''));
    } else if (verb === 'roll') {
      const hours = values['overlap-hours'] === undefined ? undefined : Number(values['overlap-hours']);
      print(await merchants.rollCallbackSecret(userId, hours, actor), () => '', true);
    } else fail(USAGE);
  },
};

try {
  await commands[command as (typeof COMMANDS)[number]]();
} catch (error) {
  fail(`merchant ${command}: ${(error as Error).message}`);
}
