import { ConfigError, nonNegativeInteger, positiveInteger } from '#shared/core/env';
import { deriveAddress, type AddressCurrency } from '#shared/payments/addresses/index';
import { type ChainSourceConfig, chainSources } from '#shared/chains/sources';
import { EVM_NETWORKS, evmCurrencies } from '#shared/domain/networks';
import { readSolanaConfig } from '#shared/chains/solana';
import { MAX_TIP_AGE_DEFAULTS, maxTipAgeVariable, readTipAgeConfig } from '#shared/chains/tip-age';
import { readTronConfig } from '#shared/chains/tron';
import { readUtxoChainConfig } from '#shared/chains/utxo';

/** Where the API token key is read from unless tokenHmacKeyParameter names another parameter. */
export const DEFAULT_TOKEN_KEY_PARAMETER = '/crypto-pay-orders/token-hmac-key';

/**
 * Every deploy-time setting. Each is read from CDK context (`-c key=value` or cdk.json) first,
 * then from the environment variable of the deploying shell; docs/deploy.md lists them all.
 * Only public values belong here: gateway credentials are given by SSM parameter *name*.
 */
export const SETTINGS = {
  stackName: { env: 'STACK_NAME', about: 'CloudFormation stack name (default CryptoPayOrders)' },
  logLevel: { env: 'POWERTOOLS_LOG_LEVEL', about: 'handler log level: DEBUG, INFO, WARN or ERROR (default INFO)' },
  paymentPageUrl: { env: 'PAYMENT_PAGE_URL', about: 'https URL of a payment page hosted elsewhere; replaces the CloudFront URL' },
  paymentPageDomain: { env: 'PAYMENT_PAGE_DOMAIN', about: 'custom domain name for the CloudFront payment page' },
  paymentPageCertificateArn: { env: 'PAYMENT_PAGE_CERTIFICATE_ARN', about: 'ACM certificate (us-east-1) for paymentPageDomain' },
  portalDomain: { env: 'PORTAL_DOMAIN', about: "merchant portal's domain (its passkeys' relying party); default: its CloudFront name" },
  portalCertificateArn: { env: 'PORTAL_CERTIFICATE_ARN', about: 'ACM certificate (us-east-1) for portalDomain' },
  invoiceTtlCryptoSeconds: { env: 'INVOICE_TTL_CRYPTO_SECONDS', about: 'crypto invoice lifetime (handler default 3600)' },
  invoiceTtlGatewaySeconds: { env: 'INVOICE_TTL_GATEWAY_SECONDS', about: 'gateway invoice lifetime (handler default 10800)' },
  orderTtlSeconds: { env: 'ORDER_TTL_SECONDS', about: 'lifetime of an order never checked out (handler default 86400)' },
  latePaymentWindowSeconds: { env: 'LATE_PAYMENT_WINDOW_SECONDS', about: 'late payments still matched after expiry (handler default 604800)' },
  unconfirmedTimeoutSeconds: { env: 'UNCONFIRMED_TIMEOUT_SECONDS', about: 'a PENDING payment still in no block this long after expiry expires the order (handler default 86400)' },
  authCacheSeconds: { env: 'AUTH_CACHE_SECONDS', about: 'per-process API token cache, 0 disables (handler default 5: a revoked token is refused within it)' },
  callbackRetryBaseSeconds: { env: 'CALLBACK_RETRY_BASE_SECONDS', about: 'first callback retry delay, doubling (handler default 60)' },
  callbackMaxAttempts: { env: 'CALLBACK_MAX_ATTEMPTS', about: 'callback attempts before dead-lettering (handler default 16)' },
  callbackTimeoutMs: { env: 'CALLBACK_TIMEOUT_MS', about: 'merchant answer timeout; sizes the delivery function (handler default 10000)' },
  callbackSweepGraceSeconds: { env: 'CALLBACK_SWEEP_GRACE_SECONDS', about: 'overdue time before the sweeper re-queues a delivery (handler default 300)' },
  platformXpubBtc: { env: 'PLATFORM_XPUB_BTC', about: 'platform extended public key for BTC' },
  platformXpubLtc: { env: 'PLATFORM_XPUB_LTC', about: 'platform extended public key for LTC' },
  platformXpubBch: { env: 'PLATFORM_XPUB_BCH', about: 'platform extended public key for BCH' },
  platformXpubEth: { env: 'PLATFORM_XPUB_ETH', about: 'platform extended public key for ETH' },
  platformXpubTrx: { env: 'PLATFORM_XPUB_TRX', about: "platform extended public key for TRON (m/44'/195'/0'; USDT_TRC20)" },
  eosAccount: { env: 'EOS_ACCOUNT', about: 'EOS account receiving payments (live merchants only with eosHistoryUrl)' },
  eosHistoryUrl: { env: 'EOS_HISTORY_URL', about: 'https Hyperion history API watched for transfers to eosAccount' },
  lndRestUrl: { env: 'LND_REST_URL', about: "https URL of the LND node's REST interface (live merchants' Lightning invoices)" },
  lndMacaroonParameter: { env: 'LND_MACAROON_PARAMETER', about: 'SSM SecureString parameter name holding the LND macaroon (hex)' },
  lndTlsCertParameter: { env: 'LND_TLS_CERT_PARAMETER', about: "SSM parameter name holding the LND node's TLS certificate (PEM)" },
  ethChainId: { env: 'ETH_CHAIN_ID', about: 'Ethereum chain id of payment URIs and the watched node (handler default 1)' },
  usdtErc20Contract: { env: 'USDT_ERC20_CONTRACT', about: 'USDT_ERC20 token contract (handler default: mainnet USDT)' },
  usdcErc20Contract: { env: 'USDC_ERC20_CONTRACT', about: 'USDC_ERC20 token contract (handler default: mainnet USDC)' },
  rateSourceUrl: { env: 'RATE_SOURCE_URL', about: 'https exchange-rate source (Coinbase format) for live merchants' },
  rateMaxAgeSeconds: { env: 'RATE_MAX_AGE_SECONDS', about: 'cached rates older than this are refetched (handler default 300)' },
  alipayCredentialsParameter: { env: 'ALIPAY_CREDENTIALS_PARAMETER', about: 'SSM parameter name holding ALIPAY credentials' },
  aliglobalCredentialsParameter: { env: 'ALIGLOBAL_CREDENTIALS_PARAMETER', about: 'SSM parameter name holding ALIGLOBAL credentials' },
  wechatCredentialsParameter: { env: 'WECHAT_CREDENTIALS_PARAMETER', about: 'SSM parameter name holding WECHAT credentials' },
  apiRateLimit: { env: 'API_RATE_LIMIT', about: 'requests/s, stage default and read routes, all clients together (default 500)' },
  apiBurstLimit: { env: 'API_BURST_LIMIT', about: 'burst, stage default and read routes, all clients together (default 1000)' },
  apiWriteRateLimit: { env: 'API_WRITE_RATE_LIMIT', about: 'requests/s of each write route, all clients together (default 200)' },
  apiWriteBurstLimit: { env: 'API_WRITE_BURST_LIMIT', about: 'burst of each write route, all clients together (default 400)' },
  quotaMerchantRate: { env: 'QUOTA_MERCHANT_RATE', about: 'requests/s of each merchant, 0 turns it off (handler default 25)' },
  quotaMerchantBurst: { env: 'QUOTA_MERCHANT_BURST', about: 'burst of each merchant (handler default 50)' },
  quotaPublicRate: { env: 'QUOTA_PUBLIC_RATE', about: 'requests/s of each client address on the payment page routes, 0 turns it off (handler default 5)' },
  quotaPublicBurst: { env: 'QUOTA_PUBLIC_BURST', about: 'burst of each client address on the payment page routes (handler default 10)' },
  alarmEmail: { env: 'ALARM_EMAIL', about: 'e-mail address subscribed to the alarm topic' },
  emailDomain: { env: 'EMAIL_DOMAIN', about: 'sender domain of merchant and buyer email (an SES identity, DKIM records in docs/deploy.md); unset: no email' },
  emailFrom: { env: 'EMAIL_FROM', about: 'From of every email, at emailDomain (default "Crypto Pay Orders <no-reply@<emailDomain>>")' },
  emailSesRegion: { env: 'EMAIL_SES_REGION', about: "SES region, when not the stack's (SES must be out of its sandbox there)" },
  tokenHmacKeyParameter: {
    env: 'TOKEN_HMAC_KEY_PARAMETER',
    about: `SSM SecureString parameter name holding the key API tokens are stored under (HMAC; default ${DEFAULT_TOKEN_KEY_PARAMETER})`,
  },
  btcEsploraUrl: { env: 'BTC_ESPLORA_URL', about: 'https Esplora REST API watched for BTC payments' },
  ltcEsploraUrl: { env: 'LTC_ESPLORA_URL', about: 'https Esplora REST API watched for LTC payments' },
  btcRpcUrl: { env: 'BTC_RPC_URL', about: 'SSM SecureString parameter name holding the bitcoind JSON-RPC URL (with credentials)' },
  ltcRpcUrl: { env: 'LTC_RPC_URL', about: 'SSM SecureString parameter name holding the litecoind JSON-RPC URL (with credentials)' },
  bchRpcUrl: { env: 'BCH_RPC_URL', about: 'SSM SecureString parameter name holding the Bitcoin Cash Node JSON-RPC URL (with credentials)' },
  ethRpcUrl: { env: 'ETH_RPC_URL', about: 'SSM SecureString parameter name holding the Ethereum JSON-RPC URL (provider keys are in URLs)' },
  arbitrumRpcUrl: { env: 'ARBITRUM_RPC_URL', about: 'SSM SecureString parameter name holding the Arbitrum One JSON-RPC URL' },
  baseRpcUrl: { env: 'BASE_RPC_URL', about: 'SSM SecureString parameter name holding the Base JSON-RPC URL' },
  polygonRpcUrl: { env: 'POLYGON_RPC_URL', about: 'SSM SecureString parameter name holding the Polygon PoS JSON-RPC URL' },
  bscRpcUrl: { env: 'BSC_RPC_URL', about: 'SSM SecureString parameter name holding the BNB Smart Chain JSON-RPC URL' },
  celoRpcUrl: { env: 'CELO_RPC_URL', about: 'SSM SecureString parameter name holding the Celo JSON-RPC URL' },
  tronApiUrl: { env: 'TRON_API_URL', about: 'https TronGrid-compatible API the TRON watcher reads (USDT_TRC20)' },
  solanaRpcUrl: { env: 'SOLANA_RPC_URL', about: 'https Solana JSON-RPC node the Solana watcher reads (USDC_SOL)' },
  platformWalletSol: { env: 'PLATFORM_WALLET_SOL', about: 'platform Solana wallet USDC_SOL is paid to for merchants without their own' },
  btcGenesisHash: { env: 'BTC_GENESIS_HASH', about: "genesis block hash the BTC source must answer (handler default mainnet's; set for testnet)" },
  ltcGenesisHash: { env: 'LTC_GENESIS_HASH', about: "genesis block hash the LTC source must answer (handler default mainnet's)" },
  bchGenesisHash: { env: 'BCH_GENESIS_HASH', about: "genesis block hash the BCH source must answer (handler default mainnet's)" },
  btcCheckpoint: { env: 'BTC_CHECKPOINT', about: '<height>:<hash> the BTC source must also answer, or none (handler default with mainnet: block 478559, not BCH)' },
  ltcCheckpoint: { env: 'LTC_CHECKPOINT', about: '<height>:<hash> the LTC source must also answer, or none (handler default none)' },
  bchCheckpoint: { env: 'BCH_CHECKPOINT', about: '<height>:<hash> the BCH source must also answer, or none (handler default with mainnet: block 478559, not BTC)' },
  tronGenesisHash: { env: 'TRON_GENESIS_HASH', about: "block 0 blockID the TRON API must answer (handler default mainnet's; set for Shasta or Nile)" },
  solanaGenesisHash: { env: 'SOLANA_GENESIS_HASH', about: "genesis hash the Solana node must answer (handler default mainnet-beta's; set for devnet or testnet)" },
  usdtTrc20Contract: { env: 'USDT_TRC20_CONTRACT', about: "USDT_TRC20 token contract: only with tronGenesisHash, the test network's token (handler default: mainnet USDT)" },
  usdcSolMint: { env: 'USDC_SOL_MINT', about: "USDC_SOL token mint: only with solanaGenesisHash, the cluster's token (handler default: mainnet USDC)" },
  btcConfirmations: { env: 'BTC_CONFIRMATIONS', about: 'confirmations a BTC payment needs (handler default 2)' },
  ltcConfirmations: { env: 'LTC_CONFIRMATIONS', about: 'confirmations an LTC payment needs (handler default 6)' },
  bchConfirmations: { env: 'BCH_CONFIRMATIONS', about: 'confirmations a BCH payment needs (handler default 6)' },
  ethConfirmations: { env: 'ETH_CONFIRMATIONS', about: 'confirmations an ETH payment needs (handler default 12)' },
  watchIntervalSeconds: { env: 'WATCH_INTERVAL_SECONDS', about: 'a chain in demand is stepped this often (handler default 10)' },
  sourceMaxLagSeconds: { env: 'SOURCE_MAX_LAG_SECONDS', about: "a source behind its chain this long is lagging and its currencies are not offered (handler default 900)" },
  tronMaxBlockRange: { env: 'TRON_MAX_BLOCK_RANGE', about: 'blocks one eth_getLogs of the TRON watcher asks at most (handler default 100)' },
} as const;

export type SettingKey = keyof typeof SETTINGS;

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface Throttle {
  rateLimit: number;
  burstLimit: number;
}

/** The checked deploy configuration: a bad value fails `cdk synth`, not a Lambda cold start. */
export interface DeployConfig {
  stackName: string;
  logLevel: LogLevel;
  paymentPage: {
    /** Set when the page is hosted elsewhere: handlers and CORS use it instead of CloudFront's. */
    url?: string;
    customDomain?: { domainName: string; certificateArn: string };
  };
  /** The merchant portal's own domain (passkeys are bound to it: choose it before users register). */
  portal: { customDomain?: { domainName: string; certificateArn: string } };
  /** Handler variables passed through unchanged (TTLs, platform keys, EOS account); unset ones are left out. */
  handlerEnvironment: Readonly<Record<string, string>>;
  /** Handler variable -> SSM parameter name; the value stays in SSM, functions may read only these. */
  gatewayCredentialParameters: Readonly<Record<string, string>>;
  /**
   * The LND macaroon and certificate parameters (variable -> SSM name): every function knows
   * the names (handlerEnvironment), only the invoice makers and the LBTC watcher may read them.
   */
  lightningParameters: Readonly<Record<string, string>>;
  /** Sources watched by their own index, one watcher function each: LBTC (LND) and EOS (Hyperion). */
  indexedSources: readonly ('LBTC' | 'EOS' | 'TRON' | 'SOLANA')[];
  /** The SSM SecureString holding the API token key: read by the functions that authenticate merchants. */
  tokenKeyParameter: string;
  apiThrottle: { read: Throttle; write: Throttle };
  /**
   * Each chain with a source: one watcher function each. Esplora URLs are public (in every
   * function's environment); node URLs carry credentials and stay in SSM (`urlParameter`).
   */
  chainSources: readonly ChainSourceConfig[];
  /** CALLBACK_TIMEOUT_MS when set: the delivery function's timeout is sized from it. */
  callbackTimeoutMs?: number;
  alarmEmail?: string;
  /** Email (docs/deploy.md "Email"): the SES sender domain, the From, SES's region when not the stack's; absent: no email. */
  email?: { domain: string; from: string; sesRegion?: string };
}

/** `USDT_ARB_CONFIRMATIONS` -> `usdtArbConfirmations`: a per-network setting's context key. */
const contextKeyOf = (variable: string): string => variable.toLowerCase().replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/**
 * The EVM networks' own settings beyond Ethereum's, derived from the network table so a new
 * network or token brings its settings with it: each network's chain id, each token's contract,
 * and each of their currencies' confirmations (Ethereum's tokens' too). Read like SETTINGS
 * (context key first, then the variable) and forwarded to the handlers under the variable's name.
 */
export const NETWORK_SETTINGS: Readonly<Record<string, { env: string; about: string; kind: 'chainId' | 'contract' | 'confirmations' | 'blockRange' }>> = Object.fromEntries(
  EVM_NETWORKS.flatMap((network) => [
    ...(network.chain === 'ETH' ? [] : [{ env: `${network.chain}_CHAIN_ID`, about: `${network.name} chain id (handler default ${network.chainId})`, kind: 'chainId' as const }]),
    ...Object.entries(network.tokens)
      .filter(() => network.chain !== 'ETH')
      .map(([code, contract]) => ({ env: `${code}_CONTRACT`, about: `${code} token contract on ${network.name} (handler default ${contract})`, kind: 'contract' as const })),
    ...evmCurrencies(network)
      .filter((code) => code !== 'ETH')
      .map((code) => ({ env: `${code}_CONFIRMATIONS`, about: `confirmations a ${code} payment needs on ${network.name} (handler default: docs/merchant-guide.md "Networks")`, kind: 'confirmations' as const })),
    { env: `${network.chain}_BLOCK_RANGE`, about: `blocks the ${network.name} watcher reads in one range (eth_getLogs): the provider plan's cap (handler default 100)`, kind: 'blockRange' as const },
  ]).map((setting) => [contextKeyOf(setting.env), setting]),
);

/**
 * Each block chain's tip-age limit (chains/tip-age.ts): a source whose newest block is older is
 * not caught up, and `lagging` SOURCE_MAX_LAG_SECONDS later. Read like SETTINGS and forwarded
 * under the variable's name, checked by the handlers' own parser.
 */
export const TIP_AGE_SETTINGS: Readonly<Record<string, { env: string; about: string }>> = Object.fromEntries(
  Object.entries(MAX_TIP_AGE_DEFAULTS).map(([chain, seconds]) => [
    contextKeyOf(maxTipAgeVariable(chain)),
    { env: maxTipAgeVariable(chain), about: `a ${chain} source whose newest block is older is not caught up; 0 turns it off (handler default ${seconds} on mainnet, off elsewhere)` },
  ]),
);

/** Looks up one context value (`app.node.tryGetContext`). */
export type ContextLookup = (key: string) => unknown;

const XPUB_SETTINGS: Record<AddressCurrency, SettingKey> = {
  BTC: 'platformXpubBtc',
  LTC: 'platformXpubLtc',
  BCH: 'platformXpubBch',
  ETH: 'platformXpubEth',
  TRX: 'platformXpubTrx',
};

const GATEWAY_SETTINGS: readonly SettingKey[] = [
  'alipayCredentialsParameter',
  'aliglobalCredentialsParameter',
  'wechatCredentialsParameter',
];

const LOG_LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];

/** Reads and checks every setting; throws a ConfigError naming the setting on a bad value. */
export function readDeployConfig(context: ContextLookup, env: NodeJS.ProcessEnv): DeployConfig {
  /** A setting's value: its context key first, then its variable (SETTINGS' and the derived NETWORK_SETTINGS' and TIP_AGE_SETTINGS'). */
  const derived = (key: string, variable: string): string | undefined => {
    const fromContext = context(key);
    const value = (fromContext === undefined || fromContext === null ? env[variable] : String(fromContext))?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const raw = (key: SettingKey): string | undefined => derived(key, SETTINGS[key].env);
  const fail = (key: SettingKey, problem: string): never => {
    throw new ConfigError(`deploy setting ${key} (${SETTINGS[key].env}) ${problem}`);
  };
  const integer = (key: SettingKey, fallback: number, parse = positiveInteger): number => {
    // The handlers' own parsers, so synth accepts exactly what a cold start accepts.
    try {
      return parse({ [key]: raw(key) }, key, fallback);
    } catch {
      return fail(key, `must be a ${parse === positiveInteger ? 'positive' : 'non-negative'} integer, got "${raw(key)}"`);
    }
  };
  const matching = (key: SettingKey, pattern: RegExp, what: string): string | undefined => {
    const value = raw(key);
    if (value !== undefined && !pattern.test(value)) fail(key, `must be ${what}, got "${value}"`);
    return value;
  };

  const stackName = matching('stackName', /^[A-Za-z][A-Za-z0-9-]{0,127}$/, 'a CloudFormation stack name') ?? 'CryptoPayOrders';
  const logLevel = (raw('logLevel')?.toUpperCase() ?? 'INFO') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) fail('logLevel', `must be one of ${LOG_LEVELS.join(', ')}`);

  const handlerEnvironment: Record<string, string> = {};
  // Numbers the handlers read with documented defaults: forwarded only when set here.
  const handlerNumbers = [
    'invoiceTtlCryptoSeconds',
    'invoiceTtlGatewaySeconds',
    'orderTtlSeconds',
    'latePaymentWindowSeconds',
    'unconfirmedTimeoutSeconds',
    'callbackRetryBaseSeconds',
    'callbackMaxAttempts',
    'callbackTimeoutMs',
    'callbackSweepGraceSeconds',
    'rateMaxAgeSeconds',
    'quotaMerchantBurst',
    'quotaPublicBurst',
    'sourceMaxLagSeconds',
  ] as const;
  for (const key of handlerNumbers) {
    if (raw(key) !== undefined) handlerEnvironment[SETTINGS[key].env] = String(integer(key, 1));
  }
  for (const key of ['quotaMerchantRate', 'quotaPublicRate'] as const) {
    if (raw(key) !== undefined) handlerEnvironment[SETTINGS[key].env] = String(integer(key, 0, nonNegativeInteger));
  }
  if (raw('authCacheSeconds') !== undefined) {
    handlerEnvironment[SETTINGS.authCacheSeconds.env] = String(integer('authCacheSeconds', 0, nonNegativeInteger));
  }
  for (const [currency, key] of Object.entries(XPUB_SETTINGS) as [AddressCurrency, SettingKey][]) {
    const xpub = raw(key);
    if (xpub === undefined) continue;
    // Deriving one address proves the key parses, is public and fits the currency.
    try {
      deriveAddress(currency, xpub, 0);
    } catch (error) {
      fail(key, `is not a usable ${currency} extended public key: ${(error as Error).message}`);
    }
    handlerEnvironment[SETTINGS[key].env] = xpub;
  }
  const eosAccount = matching('eosAccount', /^[a-z1-5.]{1,12}$/, 'an EOS account name (a-z, 1-5, dot; up to 12)');
  if (eosAccount) handlerEnvironment[SETTINGS.eosAccount.env] = eosAccount;
  const indexedSources: ('LBTC' | 'EOS' | 'TRON' | 'SOLANA')[] = [];
  // EOS is paid to live merchants only where its transfers are watched.
  const eosHistoryUrl = raw('eosHistoryUrl');
  if (eosHistoryUrl !== undefined) {
    if (!eosAccount) fail('eosHistoryUrl', 'needs eosAccount (the account whose transfers it is read for)');
    handlerEnvironment[SETTINGS.eosHistoryUrl.env] = httpsUrl('eosHistoryUrl', eosHistoryUrl, fail);
    indexedSources.push('EOS');
  }
  const lightningParameters = readLightning(raw, fail, matching);
  if (Object.keys(lightningParameters).length > 0) {
    handlerEnvironment[SETTINGS.lndRestUrl.env] = httpsUrl('lndRestUrl', raw('lndRestUrl')!, fail);
    Object.assign(handlerEnvironment, lightningParameters);
    indexedSources.unshift('LBTC');
  }

  // TRON and Solana: public API URLs (a TronGrid key, or a provider's key in a Solana URL, is
  // not supported here yet), their watchers asked per open invoice.
  const tronApiUrl = raw('tronApiUrl');
  if (tronApiUrl !== undefined) {
    handlerEnvironment[SETTINGS.tronApiUrl.env] = httpsUrl('tronApiUrl', tronApiUrl, fail);
    indexedSources.push('TRON');
  }
  const solanaRpcUrl = raw('solanaRpcUrl');
  if (solanaRpcUrl !== undefined) {
    handlerEnvironment[SETTINGS.solanaRpcUrl.env] = httpsUrl('solanaRpcUrl', solanaRpcUrl, fail);
    indexedSources.push('SOLANA');
  }
  const solanaWallet = matching('platformWalletSol', /^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a Solana address (base58)');
  if (solanaWallet) handlerEnvironment[SETTINGS.platformWalletSol.env] = solanaWallet;

  if (raw('ethChainId') !== undefined) handlerEnvironment[SETTINGS.ethChainId.env] = String(integer('ethChainId', 1));
  for (const key of ['usdtErc20Contract', 'usdcErc20Contract'] as const) {
    const contract = matching(key, /^0x[0-9a-fA-F]{40}$/, 'a 0x-prefixed 20-byte contract address');
    if (contract) handlerEnvironment[SETTINGS[key].env] = contract;
  }

  const rateSourceUrl = raw('rateSourceUrl');
  if (rateSourceUrl !== undefined) handlerEnvironment[SETTINGS.rateSourceUrl.env] = httpsUrl('rateSourceUrl', rateSourceUrl, fail);

  for (const key of ['btcConfirmations', 'ltcConfirmations', 'bchConfirmations', 'ethConfirmations', 'watchIntervalSeconds', 'tronMaxBlockRange'] as const) {
    if (raw(key) !== undefined) handlerEnvironment[SETTINGS[key].env] = String(integer(key, 1));
  }
  for (const [key, { env: variable, kind }] of Object.entries(NETWORK_SETTINGS)) {
    const value = derived(key, variable);
    if (value === undefined) continue;
    const valid = kind === 'contract' ? /^0x[0-9a-fA-F]{40}$/.test(value) : /^[1-9]\d{0,9}$/.test(value);
    if (!valid) {
      throw new ConfigError(`deploy setting ${key} (${variable}) must be ${kind === 'contract' ? 'a 0x-prefixed 20-byte contract address' : 'a positive integer'}, got "${value}"`);
    }
    handlerEnvironment[variable] = value;
  }
  for (const [key, { env: variable }] of Object.entries(TIP_AGE_SETTINGS)) {
    const value = derived(key, variable);
    if (value === undefined) continue;
    try {
      readTipAgeConfig({ [variable]: value });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new ConfigError(`deploy setting ${key} (${variable}) must be a non-negative integer (seconds; 0 turns the check off), got "${value}"`);
    }
    handlerEnvironment[variable] = value;
  }
  // The chain each UTXO, TRON and Solana source must be on, checked by the handlers' own parser;
  // TRON's and Solana's token together with their network (a test network's own token).
  const chainChecks: [readonly SettingKey[], (env: Record<string, string>) => unknown][] = [
    ...(['btcGenesisHash', 'ltcGenesisHash', 'bchGenesisHash', 'btcCheckpoint', 'ltcCheckpoint', 'bchCheckpoint'] as const).map((key) => [[key], readUtxoChainConfig] as [readonly SettingKey[], typeof readUtxoChainConfig]),
    [['tronGenesisHash', 'usdtTrc20Contract'], readTronConfig],
    [['solanaGenesisHash', 'usdcSolMint'], readSolanaConfig],
  ];
  for (const [keys, parse] of chainChecks) {
    const values = Object.fromEntries(keys.flatMap((key) => (raw(key) === undefined ? [] : [[SETTINGS[key].env, raw(key)!]])));
    if (Object.keys(values).length === 0) continue;
    try {
      parse(values);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // One setting's own value, named as the setting; else the pair does not go together.
      const own = /^environment variable (\S+) (.*)$/s.exec(error.message);
      const key = own && keys.find((candidate) => SETTINGS[candidate].env === own[1]);
      if (key) fail(key, own[2]!);
      throw new ConfigError(`deploy settings ${keys.map((candidate) => `${candidate} (${SETTINGS[candidate].env})`).join(' and ')} do not go together: ${error.message}`);
    }
    Object.assign(handlerEnvironment, values);
  }
  // Chain sources, checked as the handlers check them: Esplora by https URL, nodes by SSM name.
  const sourceEnv: Record<string, string> = {};
  for (const key of ['btcEsploraUrl', 'ltcEsploraUrl'] as const) {
    const url = raw(key);
    if (url !== undefined) sourceEnv[SETTINGS[key].env] = httpsUrl(key, url, fail);
  }
  for (const key of ['btcRpcUrl', 'ltcRpcUrl', 'bchRpcUrl', 'ethRpcUrl', 'arbitrumRpcUrl', 'baseRpcUrl', 'polygonRpcUrl', 'bscRpcUrl', 'celoRpcUrl'] as const) {
    const name = matching(key, /^\/[A-Za-z0-9_.\-/]{1,1010}$/, 'an SSM parameter name starting with "/" (the URL with its credentials stays in SSM)');
    if (name) sourceEnv[`${SETTINGS[key].env}_PARAMETER`] = name;
  }
  Object.assign(handlerEnvironment, sourceEnv);

  const gatewayCredentialParameters: Record<string, string> = {};
  for (const key of GATEWAY_SETTINGS) {
    const name = matching(key, /^\/[A-Za-z0-9_.\-/]{1,1010}$/, 'an SSM parameter name starting with "/" (the name, never the secret)');
    if (name) gatewayCredentialParameters[SETTINGS[key].env] = name;
  }
  // Every function learns which gateways have credentials (codes only; the payment page offers
  // only those), while only the gateway functions get the parameters' names.
  const liveGateways = Object.keys(gatewayCredentialParameters).map((variable) => variable.replace(/_CREDENTIALS_PARAMETER$/, ''));
  if (liveGateways.length > 0) handlerEnvironment.LIVE_GATEWAYS = liveGateways.join(',');

  return {
    stackName,
    logLevel,
    paymentPage: readPaymentPage(raw, fail),
    portal: readPortal(raw, fail),
    handlerEnvironment,
    gatewayCredentialParameters,
    lightningParameters,
    indexedSources,
    tokenKeyParameter:
      matching('tokenHmacKeyParameter', /^\/[A-Za-z0-9_.\-/]{1,1010}$/, 'an SSM parameter name starting with "/" (the name, never the key)') ??
      DEFAULT_TOKEN_KEY_PARAMETER,
    apiThrottle: {
      read: { rateLimit: integer('apiRateLimit', 500), burstLimit: integer('apiBurstLimit', 1000) },
      write: { rateLimit: integer('apiWriteRateLimit', 200), burstLimit: integer('apiWriteBurstLimit', 400) },
    },
    chainSources: chainSources(sourceEnv),
    callbackTimeoutMs: raw('callbackTimeoutMs') === undefined ? undefined : integer('callbackTimeoutMs', 1),
    alarmEmail: matching('alarmEmail', /^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'an e-mail address'),
    email: readEmail(raw, fail),
  };
}

/** The email settings: a sender domain turns email on; the From must be at that domain. */
function readEmail(raw: (key: SettingKey) => string | undefined, fail: (key: SettingKey, problem: string) => never): DeployConfig['email'] {
  const domain = raw('emailDomain');
  const from = raw('emailFrom');
  const sesRegion = raw('emailSesRegion');
  if (domain === undefined) {
    if (from !== undefined) fail('emailFrom', 'needs emailDomain');
    if (sesRegion !== undefined) fail('emailSesRegion', 'needs emailDomain');
    return undefined;
  }
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(domain)) fail('emailDomain', `must be a lower-case DNS name, got "${domain}"`);
  if (from !== undefined && !new RegExp(`^([^<>@]*<)?[^@\\s<>]+@${domain.replaceAll('.', '\\.')}>?$`).test(from.trim())) fail('emailFrom', `must be an address at ${domain} ("Name <name@${domain}>")`);
  if (sesRegion !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(sesRegion)) fail('emailSesRegion', `must be an AWS region, got "${sesRegion}"`);
  return { domain, from: from?.trim() ?? `Crypto Pay Orders <no-reply@${domain}>`, ...(sesRegion ? { sesRegion } : {}) };
}

/**
 * The LND node: its REST URL (public) and the SSM parameter names of its macaroon (required)
 * and TLS certificate (optional: without it the system's CAs are trusted), as the handlers'
 * lnd-config.ts reads them. Answers the parameters ({} without a node); a half configuration
 * fails synth.
 */
function readLightning(
  raw: (key: SettingKey) => string | undefined,
  fail: (key: SettingKey, problem: string) => never,
  matching: (key: SettingKey, pattern: RegExp, what: string) => string | undefined,
): Record<string, string> {
  const parameters: Record<string, string> = {};
  for (const key of ['lndMacaroonParameter', 'lndTlsCertParameter'] as const) {
    const name = matching(key, /^\/[A-Za-z0-9_.\-/]{1,1010}$/, 'an SSM parameter name starting with "/" (the name, never the secret)');
    if (name) parameters[SETTINGS[key].env] = name;
  }
  if (raw('lndRestUrl') === undefined) {
    if (Object.keys(parameters).length > 0) fail('lndRestUrl', 'is required with lndMacaroonParameter and lndTlsCertParameter');
    return {};
  }
  if (parameters[SETTINGS.lndMacaroonParameter.env] === undefined) fail('lndMacaroonParameter', 'is required with lndRestUrl');
  return parameters;
}

function readPaymentPage(
  raw: (key: SettingKey) => string | undefined,
  fail: (key: SettingKey, problem: string) => never,
): DeployConfig['paymentPage'] {
  const url = raw('paymentPageUrl');
  const domainName = raw('paymentPageDomain');
  const certificateArn = raw('paymentPageCertificateArn');
  if (url !== undefined) {
    if (domainName !== undefined) fail('paymentPageUrl', 'and paymentPageDomain exclude each other: set one');
    // Buyers pay on this page: it must never be served over plain HTTP.
    return { url: httpsUrl('paymentPageUrl', url, fail) };
  }
  if (domainName === undefined && certificateArn === undefined) return {};
  if (domainName === undefined) return fail('paymentPageDomain', 'is required with paymentPageCertificateArn');
  if (certificateArn === undefined) return fail('paymentPageCertificateArn', 'is required with paymentPageDomain');
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(domainName)) {
    fail('paymentPageDomain', `must be a lower-case DNS name, got "${domainName}"`);
  }
  // CloudFront only takes certificates from us-east-1, whatever the stack's region.
  if (!/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]+$/.test(certificateArn)) {
    fail('paymentPageCertificateArn', 'must be an ACM certificate ARN in us-east-1');
  }
  return { customDomain: { domainName, certificateArn } };
}

function readPortal(raw: (key: SettingKey) => string | undefined, fail: (key: SettingKey, problem: string) => never): DeployConfig['portal'] {
  const domainName = raw('portalDomain');
  const certificateArn = raw('portalCertificateArn');
  if (domainName === undefined && certificateArn === undefined) return {};
  if (domainName === undefined) return fail('portalDomain', 'is required with portalCertificateArn');
  if (certificateArn === undefined) return fail('portalCertificateArn', 'is required with portalDomain');
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(domainName)) fail('portalDomain', `must be a lower-case DNS name, got "${domainName}"`);
  if (!/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]+$/.test(certificateArn)) fail('portalCertificateArn', 'must be an ACM certificate ARN in us-east-1');
  return { customDomain: { domainName, certificateArn } };
}

/** An absolute https URL, normalized: money-related traffic never goes over plain HTTP. */
function httpsUrl(key: SettingKey, value: string, fail: (key: SettingKey, problem: string) => never): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return fail(key, `must be an absolute URL, got "${value}"`);
  }
  if (parsed.protocol !== 'https:') fail(key, 'must use https');
  return parsed.toString();
}
