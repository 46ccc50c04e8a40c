import { type KeyObject, X509Certificate } from 'node:crypto';
import { ConfigError, optionalString } from '#shared/core/env';
import { GatewayCallError, type LiveGateway } from '#shared/payments/gateways/port';
import { AlipayGateway } from '#shared/payments/gateways/alipay';
import { privateKeyFrom, publicKeyFrom } from '#shared/payments/gateways/alipay-signing';
import { credentialSource, field, loadCredentials, optionalField } from '#shared/payments/gateways/credentials';
import { NOTIFY_PATHS } from '#shared/payments/gateways/notify-paths';
import { WechatGateway } from '#shared/payments/gateways/wechat';

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_ALIPAY_GATEWAY = 'https://openapi.alipay.com/gateway.do';

interface Context {
  code: string;
  credentials: Record<string, unknown>;
  notifyUrl: string;
  paymentPageUrl: string;
}

type Factory = (context: Context) => LiveGateway;

function alipay(context: Context): LiveGateway {
  const { code, credentials } = context;
  const gatewayUrl = optionalField(credentials, 'gateway_url', code) ?? (code === 'ALIPAY' ? DEFAULT_ALIPAY_GATEWAY : undefined);
  // Alipay Global has no single public default: the operator names the endpoint of the contract.
  if (!gatewayUrl) throw new ConfigError(`${code} credentials need "gateway_url"`);
  const settleCurrency = optionalField(credentials, 'settle_currency', code);
  if (settleCurrency && !/^[A-Z]{3}$/.test(settleCurrency)) throw new ConfigError(`${code} credentials: "settle_currency" must be an ISO 4217 code`);
  return new AlipayGateway({
    code,
    appId: field(credentials, 'app_id', code),
    privateKey: privateKeyFrom(field(credentials, 'private_key', code)),
    alipayPublicKey: publicKeyFrom(field(credentials, 'alipay_public_key', code)),
    gatewayUrl: new URL(gatewayUrl).toString(),
    notifyUrl: context.notifyUrl,
    returnUrl: (orderId) => pageUrlFor(context.paymentPageUrl, orderId),
    settleCurrency,
    sellerId: optionalField(credentials, 'seller_id', code),
  });
}

const DEFAULT_WECHAT_BASE_URL = 'https://api.mch.weixin.qq.com';

/**
 * WeChat Pay's keys for answers and notifications, by the serial they are sent under: its
 * platform certificates (`platform_certificates`, PEM), and/or its public key
 * (`wechatpay_public_key` with `wechatpay_public_key_id`, the newer mode).
 */
function wechatPlatformKeys(credentials: Record<string, unknown>): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  const certificates = credentials.platform_certificates ?? [];
  if (!Array.isArray(certificates) || certificates.some((pem) => typeof pem !== 'string')) {
    throw new ConfigError('WECHAT credentials: "platform_certificates" must be a list of PEM certificates');
  }
  for (const pem of certificates as string[]) {
    const certificate = new X509Certificate(pem);
    keys.set(certificate.serialNumber.toUpperCase(), certificate.publicKey);
  }
  const publicKey = optionalField(credentials, 'wechatpay_public_key', 'WECHAT');
  if (publicKey) keys.set(field(credentials, 'wechatpay_public_key_id', 'WECHAT'), publicKeyFrom(publicKey));
  if (keys.size === 0) throw new ConfigError('WECHAT credentials need "platform_certificates" or "wechatpay_public_key"');
  return keys;
}

function wechat(context: Context): LiveGateway {
  const { credentials } = context;
  const apiV3Key = field(credentials, 'api_v3_key', 'WECHAT');
  if (Buffer.byteLength(apiV3Key, 'utf8') !== 32) throw new ConfigError('WECHAT credentials: "api_v3_key" must be 32 bytes');
  return new WechatGateway({
    mchid: field(credentials, 'mchid', 'WECHAT'),
    appid: field(credentials, 'appid', 'WECHAT'),
    serialNo: field(credentials, 'merchant_serial_no', 'WECHAT'),
    privateKey: privateKeyFrom(field(credentials, 'private_key', 'WECHAT')),
    apiV3Key,
    platformKeys: wechatPlatformKeys(credentials),
    baseUrl: new URL(optionalField(credentials, 'base_url', 'WECHAT') ?? DEFAULT_WECHAT_BASE_URL).toString(),
    notifyUrl: context.notifyUrl,
  });
}

const FACTORIES: Readonly<Record<keyof typeof NOTIFY_PATHS, Factory>> = { ALIPAY: alipay, ALIGLOBAL: alipay, WECHAT: wechat };
const isLiveGateway = (code: string): code is keyof typeof FACTORIES => Object.hasOwn(FACTORIES, code);

function pageUrlFor(paymentPageUrl: string, orderId: string): string {
  const url = new URL(paymentPageUrl);
  url.searchParams.set('id', orderId);
  return url.toString();
}

/**
 * The live gateways of this process, built on first use from their credentials (read once;
 * a failed read is tried again on the next use). A gateway without credentials is
 * undefined: live merchants get PAYMENT_NOT_AVAILABLE, its notifications are refused.
 * `PUBLIC_API_URL` (the API's public base URL, set by the stack) makes the notification URLs.
 */
export function liveGatewayResolver(env: Env, paymentPageUrl: () => string): (code: string) => Promise<LiveGateway | undefined> {
  const built = new Map<string, Promise<LiveGateway>>();
  return async (code) => {
    if (!isLiveGateway(code)) return undefined;
    const factory = FACTORIES[code];
    let gateway = built.get(code);
    if (!gateway) {
      let source;
      try {
        source = credentialSource(env, code);
      } catch (error) {
        throw new GatewayCallError(`${code} credentials: ${(error as Error).message}`, { cause: error });
      }
      if (!source) return undefined;
      const from = source;
      gateway = (async () => {
        const apiUrl = optionalString(env, 'PUBLIC_API_URL');
        if (!apiUrl) throw new ConfigError(`PUBLIC_API_URL is required with ${code} credentials (gateways post notifications there)`);
        const credentials = await loadCredentials(from);
        const notifyUrl = new URL(NOTIFY_PATHS[code].slice(1), apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`).toString();
        return factory({ code, credentials, notifyUrl, paymentPageUrl: paymentPageUrl() });
      })();
      built.set(code, gateway);
      gateway.catch(() => built.delete(code));
    }
    try {
      return await gateway;
    } catch (error) {
      throw new GatewayCallError(`${code} credentials could not be loaded: ${(error as Error).message}`, { cause: error });
    }
  };
}
