import { type Env, nonNegativeInteger, optionalString, positiveInteger, requiredString, flag, type SecretSource, secretSource } from '#shared/core/env';

/**
 * Every setting of the service by its literal name, declared once: its type and default (what
 * the handlers' readers apply: they read a setting through {@link setting}, never by a name and
 * default of their own), what it does, and where it can be set. The AWS stack's configuration
 * (infra/cdk/config.ts) takes from the operator exactly the settings declared `operator`,
 * `parameter` or `deploy` here, and the reference (docs/reference.md, `npm run docs`) is
 * generated from this list; so a setting cannot be readable but not deployable by accident: its
 * declaration says which, and tests/infra/config.test.ts proves each `operator` setting reaches
 * the functions.
 *
 * Settings whose names are built per chain, network or currency (`<CHAIN>_RPC_URL`,
 * `<CODE>_CONFIRMATIONS`, ...) are families derived from those tables:
 * shared/payments/setting-families.ts.
 */

/** How a value is read: an integer (`positive`: > 0, `nonNegative`: 0 allowed), a string, a flag, or a secret. */
export type SettingType = 'positive' | 'nonNegative' | 'string' | 'url' | 'flag' | 'secret';

/**
 * Where the setting can be set in AWS (locally every setting but the `deploy` ones is read from
 * the environment of `npm start`, or set by the local runtime):
 * - `operator`: the operator sets it for the stack (CDK context key, or the variable in the
 *   deploying shell); the stack checks it and passes it to the functions unchanged;
 * - `parameter`: a secret, given to the stack as the *name* of an SSM parameter holding it
 *   (`<NAME>_PARAMETER` in the functions); only the functions that need it may read it;
 * - `deploy`: the stack's own setting (its name, throttles, domains), read by no handler;
 * - `stack`: the stack or Lambda sets it (the table's name, a queue's URL, the portal's origin),
 *   or keeps the default on purpose; the operator cannot;
 * - `local`: the local runtime and tests only, never in AWS (an emulator's endpoint, a loopback allowance).
 */
export type SettingPlace = 'operator' | 'parameter' | 'deploy' | 'stack' | 'local';

export interface Setting {
  readonly type: SettingType;
  /** A required setting has no default: reading it unset is a ConfigError. */
  readonly required?: true;
  readonly default?: number | string;
  /** The default in words, where the code computes it (the origin's host, mainnet's token). */
  readonly defaultText?: string;
  /** What it does, in a line (docs/reference.md; the operator guide explains the important ones). */
  readonly about: string;
  readonly aws: SettingPlace;
  /** The CDK context key when not the variable's name in camelCase (`logLevel`). */
  readonly context?: string;
}

/** A declaration keeping its literal type, default and requiredness (what {@link setting} answers depends on them). */
const declare =
  <const P extends SettingPlace>(aws: P) =>
  <const T extends SettingType, const M extends Partial<Setting> = {}>(type: T, about: string, more?: M) =>
    ({ type, about, aws, ...more }) as { type: T; about: string; aws: P } & M;
const operator = declare('operator');
const stackSet = declare('stack');
const localOnly = declare('local');
const deploy = declare('deploy');
const xpub = (what: string) => operator('string', `the platform's account-level extended public key for ${what} (never a private key)`);

export const SETTINGS = {
  // The stack's own settings.
  STACK_NAME: deploy('string', 'CloudFormation stack name (one stack per stage)', { default: 'CryptoPayOrders' }),
  POWERTOOLS_LOG_LEVEL: deploy('string', 'handler log level: DEBUG, INFO, WARN or ERROR', { default: 'INFO', context: 'logLevel' }),
  PAYMENT_PAGE_DOMAIN: deploy('string', 'custom domain name of the CloudFront payment page (TLS 1.2+)'),
  PAYMENT_PAGE_CERTIFICATE_ARN: deploy('string', 'ACM certificate (us-east-1) for PAYMENT_PAGE_DOMAIN'),
  PORTAL_DOMAIN: deploy('string', "the merchant portal's domain: its origin and its passkeys' relying party; choose it before anyone registers a passkey", {
    defaultText: "the portal's CloudFront name",
  }),
  PORTAL_CERTIFICATE_ARN: deploy('string', 'ACM certificate (us-east-1) for PORTAL_DOMAIN'),
  API_RATE_LIMIT: deploy('positive', 'requests per second of all clients together: stage default and each read route', { default: 500 }),
  API_BURST_LIMIT: deploy('positive', 'burst of all clients together: stage default and each read route', { default: 1000 }),
  API_WRITE_RATE_LIMIT: deploy('positive', 'requests per second of all clients together on each write route', { default: 200 }),
  API_WRITE_BURST_LIMIT: deploy('positive', 'burst of all clients together on each write route', { default: 400 }),
  EMAIL_DOMAIN: deploy('string', 'sender domain of merchant and buyer email (an SES identity; DKIM records in docs/deploy.md); unset: no email'),
  EMAIL_FROM: deploy('string', 'From of every email, at EMAIL_DOMAIN (locally: no-reply@localhost)', {
    default: 'Crypto Pay Orders <no-reply@localhost>',
    defaultText: '"Crypto Pay Orders <no-reply@<EMAIL_DOMAIN>>"',
  }),
  EMAIL_SES_REGION: deploy('string', "SES region, when not the stack's (SES must be out of its sandbox there)", { defaultText: "the stack's region" }),
  EMAIL_QUEUE_URL: stackSet('string', "the queue of email jobs; unset: no email at all (the stream's events are not queued)"),
  EMAIL_DLQ_URL: stackSet('string', 'where an email job goes after its last failed attempt (an alarm fires)'),
  EMAIL_SES_CONFIGURATION_SET: stackSet('string', 'the SES configuration set whose bounces and complaints reach the bounce recorder'),
  EMAIL_MAX_ATTEMPTS: operator('positive', 'attempts to send one email before its job is dead-lettered', { default: 8 }),
  EMAIL_RETRY_BASE_SECONDS: operator('positive', "an email's first retry delay; each next one doubles (at most 12 hours)", { default: 60 }),
  EMAIL_CALLBACK_ALERT_SECONDS: operator('positive', 'callbacks failing for an order this long tell the merchant by email (once per order)', { default: 3600 }),
  // Outbound mail limits (docs/security.md "Outbound mail"): past one, an email is recorded LIMITED, never sent or retried.
  EMAIL_BUYER_PER_ADDRESS_DAY: operator('positive', "emails to one buyer mailbox outside the merchant's team, across all merchants, per UTC day", { default: 5 }),
  EMAIL_BUYER_PER_LINK_HOUR: operator('positive', "buyer emails of one payment link's orders per hour", { default: 100 }),
  EMAIL_BUYER_PER_MERCHANT_HOUR: operator('positive', 'buyer emails of one merchant per hour', { default: 300 }),
  EMAIL_BUYER_PER_MERCHANT_DAY: operator('positive', 'buyer emails of one merchant per UTC day', { default: 2000 }),
  EMAIL_SANDBOX_BUYER_PER_DAY: operator('nonNegative', "a sandbox merchant's buyer emails to mailboxes outside its team per UTC day (0: its team's only)", { default: 10 }),
  EMAIL_TEAM_PER_ADDRESS_DAY: operator('positive', "emails to one merchant team member's mailbox (their notices, and buyer mail a team member sent themselves) per UTC day", { default: 200 }),
  ALARM_EMAIL: deploy('string', 'e-mail address subscribed to the alarm topic'),

  // The table, queues and what the stack or Lambda sets.
  TABLE_NAME: stackSet('string', 'the DynamoDB table', { required: true }),
  CALLBACK_QUEUE_URL: stackSet('string', 'the callback queue', { required: true }),
  CALLBACK_DLQ_URL: stackSet('string', "the callback queue's dead-letter queue (deliver-callback's)"),
  SUBSCRIPTION_QUEUE_URL: stackSet('string', "the queue of subscription renewal jobs (a subscription's steps: its period's order, past_due, canceled)", { required: true }),
  SUBSCRIPTION_DLQ_URL: stackSet('string', 'where a renewal job goes after its last failed attempt (an alarm fires; the subscription is due again when its claim ends)'),
  PUBLIC_API_URL: stackSet('string', "the API's base URL, which gateways post their notifications to"),
  LIVE_GATEWAYS: stackSet('string', 'the gateways with credentials (codes, comma-separated); the stack derives it from the credential parameters', {
    defaultText: 'the gateways whose credentials are set',
  }),
  QUOTA_STORE: stackSet('string', '"table": route functions count request quotas and failed authentications in the table (the stack and the local runtime set it); unset, nothing counts them'),
  WATCH_CHAIN: stackSet('string', 'the chain a watch-chain function watches', { required: true }),
  WATCH_TICK_QUEUE_URL: stackSet('string', "the watchers' step timer queue", { required: true }),
  WATCHER_FUNCTIONS: stackSet('string', "each chain's watch-chain function name (JSON), for wake-watchers", { required: true }),
  PORTAL_ORIGIN: stackSet('string', "the merchant portal's origin (from PORTAL_DOMAIN in AWS; http://localhost:<port> locally)", { required: true }),
  PORTAL_CLIENT_IP_HEADER: stackSet('string', "the header holding the client's address as the proxy in front saw it (cloudfront-viewer-address in AWS)"),
  PORTAL_ORIGIN_SECRET: stackSet('string', "the secret the portal's CloudFront adds to every request (a portal request without it is refused)"),
  POWERTOOLS_SERVICE_NAME: stackSet('string', 'the `service` of every log line and metric (the stack sets it per function)', { default: 'crypto-pay-orders' }),
  POWERTOOLS_METRICS_NAMESPACE: stackSet('string', "the metrics' CloudWatch namespace (the stack's alarms read the default)", { default: 'CryptoPayOrders' }),
  PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: stackSet('positive', "the Parameters and Secrets extension's port (set where the stack adds the extension)"),
  AWS_REGION: stackSet('string', 'the region (Lambda sets it)', { required: true }),
  AWS_SESSION_TOKEN: stackSet('string', "the function's session token the parameters extension asks for (Lambda sets it)"),

  // The local runtime and tests only.
  DYNAMODB_ENDPOINT: localOnly('string', 'DynamoDB Local'),
  SQS_ENDPOINT: localOnly('string', 'the SQS emulator'),
  LAMBDA_ENDPOINT: localOnly('string', 'a local stand-in for the Lambda API (tests)'),
  CALLBACK_ALLOW_LOOPBACK: localOnly('flag', 'accept loopback callback URLs (the local runtime sets it; never in AWS)'),
  STATIC_RATES_FOR_LIVE_MERCHANTS: localOnly('flag', 'price live merchants from the demo rate table (the local runtime and tests)'),

  // Orders and invoices.
  PAYMENT_PAGE_URL: operator('url', 'https base URL of the hosted payment page, when hosted elsewhere; `payment_url` adds `?id=<order_id>`', {
    required: true,
    defaultText: "required; in AWS the stack's CloudFront page",
  }),
  INVOICE_TTL_CRYPTO_SECONDS: operator('positive', 'lifetime of a crypto invoice', { default: 3600 }),
  INVOICE_TTL_GATEWAY_SECONDS: operator('positive', 'lifetime of a gateway invoice', { default: 10_800 }),
  ORDER_TTL_SECONDS: operator('positive', 'an order never checked out expires this long after creation', { default: 86_400 }),
  LATE_PAYMENT_WINDOW_SECONDS: operator('positive', 'a payment this long after its invoice expired is still matched (UNRESOLVED, PAID_LATE)', { default: 7 * 86_400 }),
  UNCONFIRMED_TIMEOUT_SECONDS: operator('positive', 'a PENDING order whose payments are still in no block this long after its invoice expired is EXPIRED', { default: 86_400 }),

  // API tokens and request quotas.
  TOKEN_HMAC_KEY: {
    type: 'secret' as const,
    about: 'the key API tokens are stored under (HMAC-SHA256, at least 32 characters); one of `_PARAMETER` (SSM SecureString, AWS), `_FILE` (local: created if missing), or the value',
    aws: 'parameter' as const,
    defaultText: 'required; in AWS the parameter /crypto-pay-orders/token-hmac-key',
  },
  AUTH_CACHE_SECONDS: operator('nonNegative', 'how long a process remembers a known token (0: not at all); a revoked token is refused within it', { default: 5 }),
  QUOTA_MERCHANT_RATE: operator('nonNegative', 'requests per second of each merchant (0 turns the quota off)', { default: 25 }),
  QUOTA_MERCHANT_BURST: operator('positive', 'burst of each merchant', { default: 50 }),
  QUOTA_PUBLIC_RATE: operator('nonNegative', "requests per second of each client address on the payment page's routes (0 turns it off)", { default: 5 }),
  QUOTA_PUBLIC_BURST: operator('positive', "burst of each client address on the payment page's routes", { default: 10 }),
  QUOTA_AUTH_FAILURES: operator('nonNegative', 'failed authentications of one client address per window before they are answered 429 (0 turns the count off)', { default: 20 }),
  QUOTA_AUTH_FAILURE_WINDOW_SECONDS: operator('positive', 'the window of QUOTA_AUTH_FAILURES', { default: 60 }),

  // Callbacks.
  CALLBACK_RETRY_BASE_SECONDS: operator('positive', 'first callback retry delay; doubles per attempt up to 12 h', { default: 60 }),
  CALLBACK_MAX_ATTEMPTS: operator('positive', 'callback attempts before the delivery is dead-lettered', { default: 16 }),
  CALLBACK_TIMEOUT_MS: operator('positive', "the merchant's answer timeout; sizes the delivery function's timeout in AWS", { default: 10_000 }),
  CALLBACK_SWEEP_GRACE_SECONDS: operator('positive', 'a PENDING delivery this far past due has lost its queue message: the sweeper re-queues it', { default: 300 }),

  // Rates and receiving.
  RATE_SOURCE_URL: operator('url', 'https exchange-rate source (Coinbase exchange-rates format) for live merchants; unset, live checkouts fail closed'),
  RATE_MAX_AGE_SECONDS: operator('positive', 'cached rates older than this are refetched; stale rates fail closed', { default: 300 }),
  PLATFORM_XPUB_BTC: xpub('BTC'),
  PLATFORM_XPUB_LTC: xpub('LTC'),
  PLATFORM_XPUB_BCH: xpub('BCH'),
  PLATFORM_XPUB_ETH: xpub('ETH and every EVM network'),
  PLATFORM_XPUB_TRX: xpub("TRON (m/44'/195'/0'; USDT_TRC20)"),

  // Indexed sources: EOS, Lightning, TRON, Solana.
  EOS_ACCOUNT: operator('string', "EOS account receiving live merchants' payments (each invoice names its memo); used only with EOS_HISTORY_URL"),
  EOS_HISTORY_URL: operator('url', "https Hyperion history API the EOS watcher reads EOS_ACCOUNT's transfers from"),
  LND_REST_URL: operator('url', "https URL of the LND node's REST interface (live merchants' Lightning invoices)"),
  LND_MACAROON: declare('parameter')('secret', 'the LND macaroon (hex; invoice.macaroon is enough); required with LND_REST_URL'),
  LND_TLS_CERT: declare('parameter')('secret', "the LND node's TLS certificate (PEM), trusted as the only CA; unset: the system's CAs"),
  TRON_API_URL: operator('url', 'https TronGrid-compatible API (and its /jsonrpc) the TRON watcher reads (USDT_TRC20)'),
  TRON_API_KEY: localOnly('string', 'a TronGrid API key (TRON-PRO-API-KEY); not in AWS yet: a key would belong in SSM'),
  TRON_GENESIS_HASH: operator('string', 'block 0 blockID the TRON API must answer; set for Shasta or Nile with USDT_TRC20_CONTRACT', { defaultText: "mainnet's" }),
  USDT_TRC20_CONTRACT: operator('string', "USDT_TRC20 token contract: only with TRON_GENESIS_HASH, the test network's token", { defaultText: 'mainnet USDT' }),
  TRON_MAX_BLOCK_RANGE: operator('positive', 'blocks one eth_getLogs of the TRON watcher asks at most', { default: 100 }),
  SOLANA_RPC_URL: operator('url', 'https Solana JSON-RPC node the Solana watcher reads (USDC_SOL, PYUSD)'),
  SOLANA_GENESIS_HASH: operator('string', 'genesis hash the Solana node must answer; set for devnet or testnet with USDC_SOL_MINT and PYUSD_MINT', { defaultText: "mainnet-beta's" }),
  USDC_SOL_MINT: operator('string', "USDC_SOL token mint (SPL Token program): only with SOLANA_GENESIS_HASH, the cluster's token", { defaultText: 'mainnet USDC' }),
  PYUSD_MINT: operator('string', "PYUSD token mint (Token-2022 program): only with SOLANA_GENESIS_HASH, the cluster's token", { defaultText: 'mainnet PYUSD' }),
  PLATFORM_WALLET_SOL: operator('string', 'the platform Solana wallet USDC_SOL and PYUSD are paid to for merchants without their own'),
  TON_API_URL: operator('url', 'https toncenter API v3 (ton-indexer) the TON watcher reads (TON, USDT_TON); TON mainnet only'),
  TON_API_KEY: declare('parameter')('secret', 'a toncenter API key (X-API-Key: 10 requests a second instead of 1); in AWS the name of the SSM SecureString holding it'),
  PLATFORM_WALLET_TON: operator('string', 'the platform TON wallet TON and USDT_TON are paid to for merchants without their own'),
  STELLAR_HORIZON_URL: operator('url', 'https Horizon API the Stellar watcher reads (USDC_XLM)'),
  STELLAR_NETWORK_PASSPHRASE: operator('string', 'network passphrase Horizon must answer; set for testnet with USDC_XLM_ISSUER', { defaultText: "mainnet's" }),
  USDC_XLM_ISSUER: operator('string', "USDC_XLM issuer account: only with STELLAR_NETWORK_PASSPHRASE, the network's USDC", { defaultText: "Circle's" }),
  PLATFORM_WALLET_XLM: operator('string', 'the platform Stellar account USDC_XLM is paid to for merchants without their own'),

  // Watching and source health.
  WATCH_INTERVAL_SECONDS: operator('positive', 'between two looks at a chain in demand (the step timer)', { default: 10 }),
  WATCH_GRACE_SECONDS: operator('positive', 'a chain is polled until this long after its last open invoice expires, then looked at once a run', { default: 7 * 86_400 }),
  WATCH_IDLE_LOOK_SECONDS: operator('nonNegative', 'a chain nobody needs is looked at this often (well inside SOURCE_MAX_SILENCE_SECONDS); 0 looks every run', { default: 170 }),
  REFUND_WATCH_SECONDS: operator('positive', "a refund's address is watched this long after the buyer set it; past it the merchant reports the transaction", { default: 30 * 86_400 }),
  SOURCE_MAX_SILENCE_SECONDS: operator('positive', 'a source whose watcher has not succeeded this long is silent: its currencies are not offered', { default: 300 }),
  SOURCE_MAX_LAG_SECONDS: operator('positive', 'a source behind its chain this long is lagging: its currencies are not offered', { default: 900 }),

  // The merchant portal.
  PORTAL_RP_ID: operator('string', "the WebAuthn relying-party id: a parent domain of the portal's, for passkeys that also work on its other subdomains", {
    defaultText: "the portal origin's host",
  }),
  PORTAL_RP_NAME: operator('string', 'the relying-party name passkey prompts show', { default: 'Crypto Pay Orders' }),
  PORTAL_SESSION_HOURS: operator('positive', 'a portal session ends this long after its sign-in', { default: 12 }),
  PORTAL_SIGN_IN_PER_MINUTE: operator('positive', 'sign-in attempts per client address and minute', { default: 20 }),
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

/** What {@link setting} answers for a declaration. */
export type SettingValue<S extends Setting> = S['type'] extends 'positive' | 'nonNegative'
  ? S extends { default: number }
    ? number
    : number | undefined
  : S['type'] extends 'flag'
    ? boolean
    : S['type'] extends 'secret'
      ? SecretSource | undefined
      : S extends { required: true } | { default: string }
        ? string
        : string | undefined;

/**
 * The variable an operator sets for the stack (in the deploying shell): the setting's own, but
 * `<NAME>_PARAMETER` for a secret given as an SSM parameter's name. The functions get the
 * variable under the same name; a non-secret `parameter` setting (a node URL with credentials)
 * is given by its own name and reaches them as `<NAME>_PARAMETER`.
 */
export const deployVariableOf = (name: string, declared: Setting): string => (declared.type === 'secret' && declared.aws === 'parameter' ? `${name}_PARAMETER` : name);

/** The CDK context key of a setting: its declared one, else its deploy variable in camelCase (`USDT_ARB_CONFIRMATIONS` -> `usdtArbConfirmations`). */
export const contextKeyOf = (name: string, declared: Setting): string =>
  declared.context ??
  deployVariableOf(name, declared)
    .toLowerCase()
    .replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/**
 * A setting's value in `env`, checked and defaulted as declared (a ConfigError names the
 * variable): how the readers of shared/core/config.ts and the modules it names read settings.
 */
export function setting<N extends SettingName>(env: Env, name: N): SettingValue<(typeof SETTINGS)[N]> {
  const declared: Setting = SETTINGS[name];
  const fallback = typeof declared.default === 'number' ? declared.default : undefined;
  let value: unknown;
  switch (declared.type) {
    case 'positive':
    case 'nonNegative':
      value = fallback === undefined && optionalString(env, name) === undefined ? undefined : (declared.type === 'positive' ? positiveInteger : nonNegativeInteger)(env, name, fallback ?? 1);
      break;
    case 'flag':
      value = flag(env, name);
      break;
    case 'secret':
      value = secretSource(env, name);
      break;
    default:
      value = declared.required ? requiredString(env, name) : (optionalString(env, name) ?? declared.default);
  }
  return value as SettingValue<(typeof SETTINGS)[N]>;
}
