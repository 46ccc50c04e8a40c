import { ConfigError, type Env } from '#shared/core/env';
import { SETTINGS, setting } from '#shared/core/settings';

/**
 * The service's configuration: every environment variable a handler reads is read and checked
 * here, once, and nowhere else, each through its declaration in shared/core/settings.ts (its type, default and where it can
 * be set; docs/reference.md lists them all, docs/operator-guide.md "Configuration" explains them). Variables come in
 * sections, one per part of the system; a section is read and checked as a whole the first
 * time something asks for it, then kept for the life of the process. So importing a module
 * costs nothing, a function is never asked for variables of parts it does not use (the
 * delivery worker has no PAYMENT_PAGE_URL), and a missing or malformed variable still fails
 * the first request of a cold start with a ConfigError, never later with a silent default.
 *
 * Each `read...` function is pure over the environment it is given (tests pass their own).
 */

/**
 * A section read from `process.env` on first use and kept. Parts whose settings have their
 * own module (a chain's sources, the gateways' credentials) define their pure `read` there and
 * make it a section with this, so the environment is still read here only, once.
 */
export function section<T extends object>(read: (env: Env) => T): () => Readonly<T> {
  let value: Readonly<T> | undefined;
  return () => (value ??= Object.freeze(read(process.env)));
}

/** The CloudWatch namespace of the service's metrics (the stack's alarms read it too). */
export const METRICS_NAMESPACE = SETTINGS.POWERTOOLS_METRICS_NAMESPACE.default;

/** Logs and metrics. */
export const readObservabilityConfig = (env: Env) => ({
  /** The `service` of every log line and metric (the stack sets it per function). */
  serviceName: setting(env, 'POWERTOOLS_SERVICE_NAME'),
  /** The CloudWatch namespace of the service's metrics. */
  metricsNamespace: setting(env, 'POWERTOOLS_METRICS_NAMESPACE'),
});
export const observabilityConfig = section(readObservabilityConfig);

/** The table. */
export const readStoreConfig = (env: Env) => ({
  tableName: setting(env, 'TABLE_NAME'),
  /** DynamoDB Local (the local runtime, tests); unset on AWS. */
  dynamodbEndpoint: setting(env, 'DYNAMODB_ENDPOINT'),
});
export const storeConfig = section(readStoreConfig);

const invoiceTtlCryptoSeconds = (env: Env) => setting(env, 'INVOICE_TTL_CRYPTO_SECONDS');
const latePaymentWindowSeconds = (env: Env) => setting(env, 'LATE_PAYMENT_WINDOW_SECONDS');

/**
 * The block watchers' open-address list (shared/store/watch-list.ts): how long after it
 * began every invoice shown before it is past its window, so the list is complete: an hour of
 * the deploy's overlap (old API functions still serving), the longest crypto invoice, the late
 * window and the day the list keeps an address after it.
 */
export const readOpenListConfig = (env: Env) => ({
  fillMs: (3600 + invoiceTtlCryptoSeconds(env) + latePaymentWindowSeconds(env) + 86_400) * 1000,
});
export const openListConfig = section(readOpenListConfig);

/** The API handlers' order rules. */
export const readApiConfig = (env: Env) => ({
  /** Base address of the hosted payment page; `payment_url` adds `?id=<order_id>`. */
  paymentPageUrl: new URL(setting(env, 'PAYMENT_PAGE_URL')).toString(),
  invoiceTtlCryptoSeconds: invoiceTtlCryptoSeconds(env),
  invoiceTtlGatewaySeconds: setting(env, 'INVOICE_TTL_GATEWAY_SECONDS'),
  /** An order never checked out expires this long after creation. */
  orderTtlSeconds: setting(env, 'ORDER_TTL_SECONDS'),
  /** A payment this long after an invoice expired is still matched (UNRESOLVED, PAID_LATE). */
  latePaymentWindowSeconds: latePaymentWindowSeconds(env),
  /**
   * A PENDING order whose payments are still in no block this long after its invoice expired
   * is EXPIRED (the transaction was dropped or double-spent). BTCPay's default monitoring
   * window is the same 24 hours.
   */
  unconfirmedTimeoutSeconds: setting(env, 'UNCONFIRMED_TIMEOUT_SECONDS'),
});
export const apiConfig = section(readApiConfig);

/** API tokens. */
export const readAuthConfig = (env: Env) => ({
  /** How long a known token is remembered per process (0: not at all). */
  cacheSeconds: setting(env, 'AUTH_CACHE_SECONDS'),
});
export const authConfig = section(readAuthConfig);

/**
 * Request quotas per client (docs/operator-guide.md "Rate limits"): each merchant (by its token's user_id) and
 * each anonymous client of the payment page's routes (by source address; IPv6 by /64) has its
 * own, on top of API Gateway's per-route limits. A rate of 0 turns that quota off. `store`:
 * 'table' (the AWS stack and the local runtime set it) counts in the DynamoDB table, in the
 * handlers (shared/http/middlewares/quota.ts, token-auth.ts); unset (tests of other things),
 * nothing counts them.
 */
export const readQuotaConfig = (env: Env) => {
  const store = setting(env, 'QUOTA_STORE');
  if (store !== undefined && store !== 'table') throw new ConfigError(`environment variable QUOTA_STORE must be "table" or unset, got "${store}"`);
  return {
    store,
    /**
     * Requests per second of one merchant, and how many it may send at once: a shop's back end
     * creating 50 orders at once, or syncing at tens a second, is normal use (Stripe allows 100
     * a second in live mode, 25 in test mode), so neither trips it.
     */
    merchant: { rate: setting(env, 'QUOTA_MERCHANT_RATE'), burst: setting(env, 'QUOTA_MERCHANT_BURST') },
    /** Requests per second of one anonymous client to the payment page's routes, and its burst. */
    public: { rate: setting(env, 'QUOTA_PUBLIC_RATE'), burst: setting(env, 'QUOTA_PUBLIC_BURST') },
    /**
     * Failed authentications of one client address (IPv6 by /64) per window: past `limit`, its
     * failures are answered 429 with Retry-After instead of 401 (a good token is never refused
     * for them). A limit of 0 turns the count off.
     */
    authFailures: {
      limit: setting(env, 'QUOTA_AUTH_FAILURES'),
      windowSeconds: setting(env, 'QUOTA_AUTH_FAILURE_WINDOW_SECONDS'),
    },
  };
};
export const quotaConfig = section(readQuotaConfig);

/**
 * The server-side key API tokens are stored under (HMAC-SHA256): `TOKEN_HMAC_KEY_PARAMETER`
 * (the name of an SSM SecureString; the AWS stack sets it), `TOKEN_HMAC_KEY_FILE` (a file,
 * created with 32 random bytes and mode 0600 if missing; the local runtime's DATA_DIR) or
 * `TOKEN_HMAC_KEY` (the key itself, at least 32 characters). Exactly one is required.
 */
export const readTokenKeyConfig = (env: Env) => {
  const source = setting(env, 'TOKEN_HMAC_KEY');
  if (!source) throw new ConfigError('one of TOKEN_HMAC_KEY_PARAMETER, TOKEN_HMAC_KEY_FILE or TOKEN_HMAC_KEY is required');
  return { source };
};
export const tokenKeyConfig = section(readTokenKeyConfig);

/**
 * The AWS Parameters and Secrets Lambda extension (shared/aws/parameters.ts): the stack adds it
 * to every function that reads an SSM parameter, which sets its port; Lambda sets the session
 * token the extension asks every caller for. Unset (locally, in tests), a `..._PARAMETER`
 * source cannot be read and says so.
 */
export const readParameterExtensionConfig = (env: Env) => ({
  port: setting(env, 'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT'),
  sessionToken: setting(env, 'AWS_SESSION_TOKEN'),
});
export const parameterExtensionConfig = section(readParameterExtensionConfig);

/**
 * Which callback URLs may be used: read by order creation (a URL is checked when it is given)
 * and by the delivery worker (checked again when it is posted to).
 */
export const readCallbackUrlConfig = (env: Env) => ({
  /** Accept loopback callback URLs: only the local runtime sets this (never the AWS stack). */
  allowLoopback: setting(env, 'CALLBACK_ALLOW_LOOPBACK'),
});
export const callbackUrlConfig = section(readCallbackUrlConfig);

/** The callback pipeline: its queues and retry schedule. */
export const readCallbackConfig = (env: Env) => ({
  queueUrl: setting(env, 'CALLBACK_QUEUE_URL'),
  /** Where a callback goes after its last failed attempt (and an alarm fires). */
  deadLetterQueueUrl: setting(env, 'CALLBACK_DLQ_URL'),
  retryBaseSeconds: setting(env, 'CALLBACK_RETRY_BASE_SECONDS'),
  maxAttempts: setting(env, 'CALLBACK_MAX_ATTEMPTS'),
  timeoutMs: setting(env, 'CALLBACK_TIMEOUT_MS'),
  /** A PENDING delivery this far past due has lost its queue message: the sweeper re-queues it. */
  sweepGraceSeconds: setting(env, 'CALLBACK_SWEEP_GRACE_SECONDS'),
});
export const callbackConfig = section(readCallbackConfig);

/** Recurring billing (shared/services/subscription-renewals.ts): the queue of renewal jobs and its dead letters. */
export const readSubscriptionConfig = (env: Env) => ({
  queueUrl: setting(env, 'SUBSCRIPTION_QUEUE_URL'),
  deadLetterQueueUrl: setting(env, 'SUBSCRIPTION_DLQ_URL'),
});
export const subscriptionConfig = section(readSubscriptionConfig);

/**
 * Email (shared/email/): the queue of email events, and how mail is sent. `EMAIL_QUEUE_URL`
 * unset: no email at all (the stream's events are not queued). In AWS the stack sets the queues,
 * the sender and the SES configuration set when the deploy names a sender domain
 * (docs/deploy.md "Email"); locally the runtime sets them and sends to its own SMTP server.
 */
export const readEmailConfig = (env: Env) => ({
  queueUrl: setting(env, 'EMAIL_QUEUE_URL'),
  /** Where an email job goes after its last failed attempt (and an alarm fires). */
  deadLetterQueueUrl: setting(env, 'EMAIL_DLQ_URL'),
  /** The From of every email (`Name <address>`); its domain is the SES identity in AWS. */
  from: setting(env, 'EMAIL_FROM'),
  /** The SES configuration set whose events (bounces, complaints) reach the bounce recorder. */
  sesConfigurationSet: setting(env, 'EMAIL_SES_CONFIGURATION_SET'),
  /** The SES region, when it is not the functions' own (unset: the SDK's, AWS_REGION in Lambda). */
  sesRegion: setting(env, 'EMAIL_SES_REGION'),
  /** Attempts to send one email before its job is dead-lettered. */
  maxAttempts: setting(env, 'EMAIL_MAX_ATTEMPTS'),
  /** The first retry's delay; each next one doubles (at most 12 hours). */
  retryBaseSeconds: setting(env, 'EMAIL_RETRY_BASE_SECONDS'),
  /** Callbacks failing for an order this long tell the merchant (once per order). */
  callbackAlertSeconds: setting(env, 'EMAIL_CALLBACK_ALERT_SECONDS'),
  /** How much mail one mailbox, merchant and payment link may be sent (shared/email/limits.ts). */
  limits: {
    buyerPerAddressDay: setting(env, 'EMAIL_BUYER_PER_ADDRESS_DAY'),
    buyerPerLinkHour: setting(env, 'EMAIL_BUYER_PER_LINK_HOUR'),
    buyerPerMerchantHour: setting(env, 'EMAIL_BUYER_PER_MERCHANT_HOUR'),
    buyerPerMerchantDay: setting(env, 'EMAIL_BUYER_PER_MERCHANT_DAY'),
    sandboxBuyerPerDay: setting(env, 'EMAIL_SANDBOX_BUYER_PER_DAY'),
    teamPerAddressDay: setting(env, 'EMAIL_TEAM_PER_ADDRESS_DAY'),
  },
});
export const emailConfig = section(readEmailConfig);

/** The SQS client (shared/aws/sqs.ts): the emulator's endpoint locally and in tests; unset on AWS. */
export const readSqsConfig = (env: Env) => ({ endpoint: setting(env, 'SQS_ENDPOINT') });
export const sqsConfig = section(readSqsConfig);

/** Exchange rates for live merchants (sandbox merchants always use the demo table). */
export const readRatesConfig = (env: Env) => ({
  /** An HTTP source in the Coinbase exchange-rates format; unset: live checkouts fail closed. */
  sourceUrl: setting(env, 'RATE_SOURCE_URL'),
  maxAgeSeconds: setting(env, 'RATE_MAX_AGE_SECONDS'),
  /** Price live merchants from the demo table (the local runtime and tests only). */
  staticForLiveMerchants: setting(env, 'STATIC_RATES_FOR_LIVE_MERCHANTS'),
});
export const ratesConfig = section(readRatesConfig);

/** Where the platform's own payments are received. */
export const readReceivingConfig = (env: Env) => ({
  /** Account-level extended public keys the platform derives invoice addresses from. */
  platformXpubs: {
    BTC: setting(env, 'PLATFORM_XPUB_BTC'),
    LTC: setting(env, 'PLATFORM_XPUB_LTC'),
    BCH: setting(env, 'PLATFORM_XPUB_BCH'),
    ETH: setting(env, 'PLATFORM_XPUB_ETH'),
    /** TRON (USDT_TRC20), m/44'/195'/0'. */
    TRX: setting(env, 'PLATFORM_XPUB_TRX'),
  },
  eosAccount: setting(env, 'EOS_ACCOUNT'),
});
export const receivingConfig = section(readReceivingConfig);

/** The chain watchers (the AWS watch-chain functions and the local runtime's loops). */
export const readWatchConfig = (env: Env) => ({
  /** Between two looks at a chain once caught up (the mempool and the tip). */
  watchIntervalSeconds: setting(env, 'WATCH_INTERVAL_SECONDS'),
  /**
   * A chain is polled until this long after its last open invoice expires; after that, and with
   * no payment maturing, a run only looks at the source once (skipping the blocks in between).
   * The default is the late-payment window (7 days), so a late payment to an expired invoice is
   * never missed; a shorter grace trades those for a cheaper week after the last order.
   */
  graceSeconds: setting(env, 'WATCH_GRACE_SECONDS'),
  /**
   * A chain nobody needs is looked at (tip, cursor, health report) at most this often; the
   * scheduled runs in between only check its demand. Well inside SOURCE_MAX_SILENCE_SECONDS
   * (300) so an idle source stays healthy; 0 looks on every run.
   */
  idleLookSeconds: setting(env, 'WATCH_IDLE_LOOK_SECONDS'),
  /**
   * A refund's address is watched this long after the buyer set it (its chain kept in demand,
   * its address on the watcher's list): the merchant pays from their own wallet, maybe days
   * later. Past it, a merchant who pays reports the transaction (checked on chain, no window);
   * watching the refund again (shared/store/refund-watches.ts) starts a new window.
   */
  refundWatchSeconds: setting(env, 'REFUND_WATCH_SECONDS'),
});
export const watchConfig = section(readWatchConfig);

/** The watch-chain function (AWS): the one chain it watches. */
export const readWatchFunctionConfig = (env: Env) => ({
  chain: setting(env, 'WATCH_CHAIN'),
  /**
   * The step timer's queue (shared/watchers/ticks.ts): a chain in demand is stepped by one short
   * invocation per step, the next one a delayed message here (the stack sets it).
   */
  tickQueueUrl: setting(env, 'WATCH_TICK_QUEUE_URL'),
});
export const watchFunctionConfig = section(readWatchFunctionConfig);

/**
 * The wake-watchers function (AWS): `WATCHER_FUNCTIONS` maps each watched chain to its
 * watch-chain function's name (JSON, `{"BTC": "...", ...}`, set by the stack), and the region
 * whose Lambda endpoint it invokes them at (Lambda sets AWS_REGION; LAMBDA_ENDPOINT replaces
 * the endpoint in tests).
 */
export const readWakeConfig = (env: Env) => {
  const text = setting(env, 'WATCHER_FUNCTIONS');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError('environment variable WATCHER_FUNCTIONS must be JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((name) => typeof name === 'string' && name !== '')) {
    throw new ConfigError('environment variable WATCHER_FUNCTIONS must map chains to function names ({"BTC": "..."})');
  }
  return {
    watcherFunctions: parsed as Readonly<Record<string, string>>,
    region: setting(env, 'AWS_REGION'),
    /** A local stand-in for the Lambda API (tests); unset on AWS. */
    lambdaEndpoint: setting(env, 'LAMBDA_ENDPOINT'),
  };
};
export const wakeConfig = section(readWakeConfig);

/**
 * The merchant portal (docs/merchant-guide.md "The merchant portal", docs/deploy.md): its origin (scheme, host and
 * port the browser sees: the portal's domain in AWS, http://localhost:<port> locally), the
 * WebAuthn relying-party id (the origin's host unless set: a passkey works on that domain and
 * its subdomains), and the session and sign-in limits.
 */
export const readPortalConfig = (env: Env) => {
  const origin = new URL(setting(env, 'PORTAL_ORIGIN')).origin;
  const { hostname, protocol } = new URL(origin);
  const loopback = hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
  if (protocol !== 'https:' && !loopback) throw new ConfigError(`PORTAL_ORIGIN must be https outside loopback, got "${origin}"`);
  return {
    origin,
    /** Where the portal app is served (invite links point there). */
    appUrl: `${origin}/portal/`,
    rpId: setting(env, 'PORTAL_RP_ID') ?? hostname,
    rpName: setting(env, 'PORTAL_RP_NAME'),
    /** Cookies are Secure everywhere but a loopback http origin (browsers drop Secure cookies there). */
    secureCookies: protocol === 'https:',
    /** A session ends this long after its sign-in. */
    sessionHours: setting(env, 'PORTAL_SESSION_HOURS'),
    /** Sign-in attempts (options, passkey answers, recovery codes) per client address and minute. */
    signInPerMinute: setting(env, 'PORTAL_SIGN_IN_PER_MINUTE'),
    /**
     * A header holding the client's `address:port` as a proxy in front saw it (the AWS stack
     * sets cloudfront-viewer-address: API Gateway's source address is CloudFront's there).
     */
    clientIpHeader: setting(env, 'PORTAL_CLIENT_IP_HEADER'),
    /**
     * A secret the portal's CloudFront adds to every request it forwards (`x-origin-verify`): when
     * set, a portal request without it (someone calling the API's own URL, who could write the
     * viewer-address header the sign-in limit keys on) is refused.
     */
    originSecret: setting(env, 'PORTAL_ORIGIN_SECRET'),
  };
};
export const portalConfig = section(readPortalConfig);
