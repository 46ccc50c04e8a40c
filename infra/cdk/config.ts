import { ConfigError, nonNegativeInteger, positiveInteger } from '#shared/core/env';
import { deployVariableOf, type Setting } from '#shared/core/settings';
import { GATEWAY_CURRENCIES } from '#shared/domain/currencies';
import { EVM_NETWORKS } from '#shared/domain/networks';
import { deriveAddress, type AddressCurrency } from '#shared/payments/addresses/index';
import { type ChainSourceConfig, chainSources } from '#shared/chains/sources';
import { readSolanaConfig } from '#shared/chains/solana';
import { readTronConfig } from '#shared/chains/tron';
import { readTonConfig } from '#shared/chains/ton';
import { readStellarConfig } from '#shared/chains/stellar';
import { readUtxoChainConfig, UTXO_CHAINS } from '#shared/chains/utxo';
import { deploySettings } from '#shared/payments/setting-families';

/** Where the API token key is read from unless tokenHmacKeyParameter names another parameter. */
export const DEFAULT_TOKEN_KEY_PARAMETER = '/crypto-pay-orders/token-hmac-key';

/**
 * Every setting the operator gives the stack, by CDK context key: the declarations of
 * shared/core/settings.ts and shared/payments/setting-families.ts whose place is `operator`,
 * `parameter` or `deploy`. Each is read from CDK context (`-c key=value` or cdk.json) first,
 * then from the variable of the deploying shell (`env`); docs/reference.md lists them all.
 * Only public values belong here: secrets are given by SSM parameter *name*.
 */
export const SETTINGS: Readonly<Record<string, { env: string; declared: Setting; name: string }>> = Object.fromEntries(
  deploySettings().map(([key, name, declared]) => [key, { env: deployVariableOf(name, declared), declared, name }]),
);

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
  /**
   * The toncenter key's parameter (TON_API_KEY_PARAMETER -> SSM name), when TON is watched: every
   * function knows the name, only the TON watcher and the refund checks may read it.
   */
  tonParameters: Readonly<Record<string, string>>;
  /** Sources watched by their own index, one watcher function each: LBTC (LND) and EOS (Hyperion). */
  indexedSources: readonly ('LBTC' | 'EOS' | 'TRON' | 'SOLANA' | 'TON' | 'STELLAR')[];
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

/** Looks up one context value (`app.node.tryGetContext`). */
export type ContextLookup = (key: string) => unknown;

/** A context key of {@link SETTINGS}. */
type SettingKey = string;

const LOG_LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];

const PARAMETER_NAME = /^\/[A-Za-z0-9_.\-/]{1,1010}$/;
const DNS_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Formats of string settings checked here; the chains' identities are checked by their own readers below. */
const FORMATS: Readonly<Record<string, readonly [RegExp, string]>> = {
  EOS_ACCOUNT: [/^[a-z1-5.]{1,12}$/, 'an EOS account name (a-z, 1-5, dot; up to 12)'],
  PLATFORM_WALLET_SOL: [/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a Solana address (base58)'],
  PORTAL_RP_ID: [DNS_NAME, 'a lower-case DNS name (the portal domain or a parent of it)'],
  ...Object.fromEntries(EVM_NETWORKS.flatMap((network) => Object.keys(network.tokens)).map((code) => [`${code}_CONTRACT`, [/^0x[0-9a-fA-F]{40}$/, 'a 0x-prefixed 20-byte contract address'] as const])),
};

/** `operator` settings the stack uses itself rather than passing them on as they are. */
const OWN_HANDLING = new Set(['PAYMENT_PAGE_URL', 'LND_REST_URL']);

/**
 * Reads and checks every setting; throws a ConfigError naming the setting on a bad value. Every
 * `operator` setting of the declarations is passed to the functions (checked by its type, its
 * format, and the chains' own readers), every `parameter` one as an SSM parameter's name to the
 * functions whose routes are granted it.
 */
export function readDeployConfig(context: ContextLookup, env: NodeJS.ProcessEnv): DeployConfig {
  /** A setting's value: its context key first, then its variable. */
  const raw = (key: SettingKey): string | undefined => {
    const fromContext = context(key);
    const value = (fromContext === undefined || fromContext === null ? env[SETTINGS[key]!.env] : String(fromContext))?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const fail = (key: SettingKey, problem: string): never => {
    throw new ConfigError(`deploy setting ${key} (${SETTINGS[key]!.env}) ${problem}`);
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
  const keyOf = (name: string): SettingKey => Object.keys(SETTINGS).find((key) => SETTINGS[key]!.name === name)!;

  const stackName = matching('stackName', /^[A-Za-z][A-Za-z0-9-]{0,127}$/, 'a CloudFormation stack name') ?? 'CryptoPayOrders';
  const logLevel = (raw('logLevel')?.toUpperCase() ?? 'INFO') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) fail('logLevel', `must be one of ${LOG_LEVELS.join(', ')}`);

  // Handler settings, checked by type and format; unset ones are left out (the handlers' defaults apply).
  const handlerEnvironment: Record<string, string> = {};
  const parameters: Record<string, string> = {};
  for (const [key, { env: variable, declared, name }] of Object.entries(SETTINGS)) {
    if (raw(key) === undefined || OWN_HANDLING.has(name)) continue;
    if (declared.aws === 'parameter') {
      parameters[name] = matching(key, PARAMETER_NAME, 'an SSM parameter name starting with "/" (the name, never the secret)')!;
    } else if (declared.aws === 'operator') {
      const format = FORMATS[name];
      handlerEnvironment[variable] =
        declared.type === 'positive' || declared.type === 'nonNegative'
          ? String(integer(key, 1, declared.type === 'positive' ? positiveInteger : nonNegativeInteger))
          : declared.type === 'url'
            ? httpsUrl(key, raw(key)!, fail)
            : format
              ? matching(key, format[0], format[1])!
              : raw(key)!;
    }
  }
  for (const [variable, xpub] of Object.entries(handlerEnvironment)) {
    if (!variable.startsWith('PLATFORM_XPUB_')) continue;
    const currency = variable.slice('PLATFORM_XPUB_'.length) as AddressCurrency;
    // Deriving one address proves the key parses, is public and fits the currency.
    try {
      deriveAddress(currency, xpub, 0);
    } catch (error) {
      fail(keyOf(variable), `is not a usable ${currency} extended public key: ${(error as Error).message}`);
    }
  }
  // EOS is paid to live merchants only where its transfers are watched.
  if (handlerEnvironment.EOS_HISTORY_URL !== undefined && handlerEnvironment.EOS_ACCOUNT === undefined) {
    fail('eosHistoryUrl', 'needs eosAccount (the account whose transfers it is read for)');
  }
  const lightningParameters = readLightning(raw, fail, parameters);
  if (Object.keys(lightningParameters).length > 0) {
    handlerEnvironment.LND_REST_URL = httpsUrl('lndRestUrl', raw('lndRestUrl')!, fail);
    Object.assign(handlerEnvironment, lightningParameters);
  }
  const tonParameters: Record<string, string> = parameters.TON_API_KEY !== undefined ? { TON_API_KEY_PARAMETER: parameters.TON_API_KEY } : {};
  if (tonParameters.TON_API_KEY_PARAMETER !== undefined && handlerEnvironment.TON_API_URL === undefined) fail('tonApiKeyParameter', 'is set without tonApiUrl');
  Object.assign(handlerEnvironment, tonParameters);
  // Sources watched by their own index. TRON and Solana: public API URLs (a TronGrid key, or a
  // provider's key in a Solana URL, is not supported here yet), their watchers asked per open invoice.
  const indexedSources: DeployConfig['indexedSources'] = [
    ...(Object.keys(lightningParameters).length > 0 ? (['LBTC'] as const) : []),
    ...(handlerEnvironment.EOS_HISTORY_URL !== undefined ? (['EOS'] as const) : []),
    ...(handlerEnvironment.TRON_API_URL !== undefined ? (['TRON'] as const) : []),
    ...(handlerEnvironment.SOLANA_RPC_URL !== undefined ? (['SOLANA'] as const) : []),
    ...(handlerEnvironment.TON_API_URL !== undefined ? (['TON'] as const) : []),
    ...(handlerEnvironment.STELLAR_HORIZON_URL !== undefined ? (['STELLAR'] as const) : []),
  ];

  // The chain each UTXO, TRON and Solana source must be on, checked by the handlers' own parser;
  // TRON's and Solana's token together with their network (a test network's own token).
  const chainChecks: [readonly string[], (env: Record<string, string>) => unknown][] = [
    ...UTXO_CHAINS.flatMap((chain) => [`${chain}_GENESIS_HASH`, `${chain}_CHECKPOINT`]).map((name) => [[name], readUtxoChainConfig] as [readonly string[], typeof readUtxoChainConfig]),
    [['TRON_GENESIS_HASH', 'USDT_TRC20_CONTRACT'], readTronConfig],
    [['SOLANA_GENESIS_HASH', 'USDC_SOL_MINT', 'PYUSD_MINT'], readSolanaConfig],
    [['STELLAR_NETWORK_PASSPHRASE', 'USDC_XLM_ISSUER'], readStellarConfig],
    [['PLATFORM_WALLET_TON'], readTonConfig],
  ];
  for (const [names, parse] of chainChecks) {
    const values = Object.fromEntries(names.flatMap((name) => (handlerEnvironment[name] === undefined ? [] : [[name, handlerEnvironment[name]]])));
    if (Object.keys(values).length === 0) continue;
    try {
      parse(values);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // One setting's own value, named as the setting; else the pair does not go together.
      const own = /^environment variable (\S+) (.*)$/s.exec(error.message);
      if (own && names.includes(own[1]!)) fail(keyOf(own[1]!), own[2]!);
      throw new ConfigError(`deploy settings ${names.map((name) => `${keyOf(name)} (${name})`).join(' and ')} do not go together: ${error.message}`);
    }
  }

  // Secrets by SSM name: the API token key, the gateways' credentials (their functions only),
  // and the chain nodes' URLs (every function knows the names; the watchers read them).
  const gatewayCredentialParameters: Record<string, string> = {};
  for (const [name, parameter] of Object.entries(parameters)) {
    if (name === 'TOKEN_HMAC_KEY' || name.startsWith('LND_')) continue;
    if (GATEWAY_CURRENCIES.some((code) => name === `${code}_CREDENTIALS`)) gatewayCredentialParameters[`${name}_PARAMETER`] = parameter;
    else handlerEnvironment[`${name}_PARAMETER`] = parameter;
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
    tonParameters,
    indexedSources,
    tokenKeyParameter: parameters.TOKEN_HMAC_KEY ?? DEFAULT_TOKEN_KEY_PARAMETER,
    apiThrottle: {
      read: { rateLimit: integer('apiRateLimit', 500), burstLimit: integer('apiBurstLimit', 1000) },
      write: { rateLimit: integer('apiWriteRateLimit', 200), burstLimit: integer('apiWriteBurstLimit', 400) },
    },
    chainSources: chainSources(handlerEnvironment),
    callbackTimeoutMs: handlerEnvironment.CALLBACK_TIMEOUT_MS === undefined ? undefined : Number(handlerEnvironment.CALLBACK_TIMEOUT_MS),
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
 * lnd-config.ts reads them, from the `parameter` settings read. Answers the parameters ({}
 * without a node); a half configuration fails synth.
 */
function readLightning(raw: (key: SettingKey) => string | undefined, fail: (key: SettingKey, problem: string) => never, secrets: Readonly<Record<string, string>>): Record<string, string> {
  const parameters: Record<string, string> = {};
  for (const name of ['LND_MACAROON', 'LND_TLS_CERT']) if (secrets[name] !== undefined) parameters[`${name}_PARAMETER`] = secrets[name];
  if (raw('lndRestUrl') === undefined) {
    if (Object.keys(parameters).length > 0) fail('lndRestUrl', 'is required with lndMacaroonParameter and lndTlsCertParameter');
    return {};
  }
  if (parameters.LND_MACAROON_PARAMETER === undefined) fail('lndMacaroonParameter', 'is required with lndRestUrl');
  return parameters;
}

function readPaymentPage(raw: (key: SettingKey) => string | undefined, fail: (key: SettingKey, problem: string) => never): DeployConfig['paymentPage'] {
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
  if (!DNS_NAME.test(domainName)) {
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
  if (!DNS_NAME.test(domainName)) fail('portalDomain', `must be a lower-case DNS name, got "${domainName}"`);
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
