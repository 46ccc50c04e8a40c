import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NETWORK_SETTINGS, SETTINGS, TIP_AGE_SETTINGS } from '#infra/cdk/config';
import { REPO_ROOT } from '#infra/cdk/paths';
import { deployConfig } from './support.ts';

// BIP32 test vector 1, account m/84'/0'/0' (public; the sandbox key) and the vector's root private key.
const TEST_XPUB =
  'xpub6C1HVMz946r433QEjZGpYYWYcspxXXBPys5PBGkmQboRXE6RLfFiStEkKbWKCZaPgDrzZh9nUEunxuiuy6MNdw23du2Ek7GoKYMJVH8eK5E';
const TEST_XPRV =
  'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';

describe('deploy configuration', () => {
  it('has defaults for everything and forwards nothing unset', () => {
    expect(deployConfig()).toEqual({
      stackName: 'CryptoPayOrders',
      logLevel: 'INFO',
      paymentPage: {},
      portal: {},
      handlerEnvironment: {},
      gatewayCredentialParameters: {},
      lightningParameters: {},
      indexedSources: [],
      tokenKeyParameter: '/crypto-pay-orders/token-hmac-key',
      chainSources: [],
      apiThrottle: { read: { rateLimit: 500, burstLimit: 1000 }, write: { rateLimit: 200, burstLimit: 400 } },
      alarmEmail: undefined,
    });
  });

  it('takes context over the environment', () => {
    const config = deployConfig({ STACK_NAME: 'FromEnv', API_RATE_LIMIT: '7' }, { stackName: 'FromContext', apiRateLimit: 9 });
    expect(config.stackName).toBe('FromContext');
    expect(config.apiThrottle.read.rateLimit).toBe(9);
  });

  it('forwards handler settings under the names the handlers read', () => {
    const config = deployConfig({
      INVOICE_TTL_CRYPTO_SECONDS: '1800',
      ORDER_TTL_SECONDS: '7200',
      AUTH_CACHE_SECONDS: '0',
      PLATFORM_XPUB_BTC: TEST_XPUB,
      EOS_ACCOUNT: 'shoppay.a1',
      ETH_CHAIN_ID: '11155111',
      USDC_ERC20_CONTRACT: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
      RATE_SOURCE_URL: 'https://rates.example.com/v2/exchange-rates?currency=USD',
      WECHAT_CREDENTIALS_PARAMETER: '/pay/prod/wechat',
    });
    expect(config.handlerEnvironment).toEqual({
      INVOICE_TTL_CRYPTO_SECONDS: '1800',
      ORDER_TTL_SECONDS: '7200',
      AUTH_CACHE_SECONDS: '0',
      PLATFORM_XPUB_BTC: TEST_XPUB,
      EOS_ACCOUNT: 'shoppay.a1',
      ETH_CHAIN_ID: '11155111',
      USDC_ERC20_CONTRACT: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
      RATE_SOURCE_URL: 'https://rates.example.com/v2/exchange-rates?currency=USD',
      // Which gateways have credentials (codes only, for every function; the parameter's name goes to the gateway functions).
      LIVE_GATEWAYS: 'WECHAT',
    });
    expect(config.gatewayCredentialParameters).toEqual({ WECHAT_CREDENTIALS_PARAMETER: '/pay/prod/wechat' });
    expect(config.tokenKeyParameter).toBe('/crypto-pay-orders/token-hmac-key');
    expect(deployConfig({ TOKEN_HMAC_KEY_PARAMETER: '/pay/prod/token-key' }).tokenKeyParameter).toBe('/pay/prod/token-key');
  });

  it.each([
    [{ PLATFORM_XPUB_BTC: TEST_XPRV }, /platformXpubBtc \(PLATFORM_XPUB_BTC\) is not a usable BTC extended public key/],
    [{ PLATFORM_XPUB_ETH: 'xpub-not-base58' }, /platformXpubEth/],
    [{ INVOICE_TTL_GATEWAY_SECONDS: '0' }, /invoiceTtlGatewaySeconds .* positive integer/],
    [{ AUTH_CACHE_SECONDS: '-1' }, /authCacheSeconds .* non-negative integer/],
    [{ API_BURST_LIMIT: '10.5' }, /apiBurstLimit/],
    [{ POWERTOOLS_LOG_LEVEL: 'LOUD' }, /logLevel/],
    [{ EOS_ACCOUNT: 'Not-An-Account' }, /eosAccount/],
    [{ USDT_ERC20_CONTRACT: '0x1234' }, /usdtErc20Contract .* contract address/],
    [{ ETH_CHAIN_ID: '0' }, /ethChainId .* positive integer/],
    [{ ALIPAY_CREDENTIALS_PARAMETER: 'sk_live_51Hxyz' }, /alipayCredentialsParameter .* SSM parameter name/],
    [{ TOKEN_HMAC_KEY_PARAMETER: '0123456789abcdef0123456789abcdef' }, /tokenHmacKeyParameter .* SSM parameter name/],
    [{ PAYMENT_PAGE_URL: 'http://pay.example.com/' }, /paymentPageUrl .* https/],
    [{ PAYMENT_PAGE_URL: 'pay.example.com' }, /paymentPageUrl .* absolute URL/],
    [{ RATE_SOURCE_URL: 'http://rates.example.com/' }, /rateSourceUrl .* https/],
    [{ PAYMENT_PAGE_URL: 'https://a.example/', PAYMENT_PAGE_DOMAIN: 'pay.example.com' }, /exclude each other/],
    [{ PAYMENT_PAGE_DOMAIN: 'pay.example.com' }, /paymentPageCertificateArn .* required/],
    [
      { PAYMENT_PAGE_DOMAIN: 'pay.example.com', PAYMENT_PAGE_CERTIFICATE_ARN: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc' },
      /us-east-1/,
    ],
    [{ ALARM_EMAIL: 'nobody' }, /alarmEmail/],
    [{ STACK_NAME: '1-bad name' }, /stackName/],
    [{ BTC_GENESIS_HASH: 'testnet' }, /btcGenesisHash \(BTC_GENESIS_HASH\) must be a block hash/],
    [{ BCH_CHECKPOINT: '478559' }, /bchCheckpoint \(BCH_CHECKPOINT\) must be "<height>:<block hash>"/],
    [{ TRON_GENESIS_HASH: 'nile' }, /tronGenesisHash \(TRON_GENESIS_HASH\) must be a block hash/],
    [{ SOLANA_GENESIS_HASH: 'devnet' }, /solanaGenesisHash \(SOLANA_GENESIS_HASH\) must be a genesis hash \(base58, 32 bytes\)/],
  ])('refuses %o at synth time', (env, message) => {
    expect(() => deployConfig(env)).toThrow(message);
  });

  it("forwards the UTXO chains' genesis and checkpoint settings (a testnet deployment)", () => {
    const testnet = '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943';
    expect(deployConfig({ BTC_GENESIS_HASH: testnet, BCH_CHECKPOINT: 'none' }).handlerEnvironment).toEqual({ BTC_GENESIS_HASH: testnet, BCH_CHECKPOINT: 'none' });
  });

  it("forwards TRON's and Solana's network settings with the network's own token (a Nile and devnet deployment)", () => {
    const nile = '0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc';
    const devnet = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';
    const tokens = { USDT_TRC20_CONTRACT: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', USDC_SOL_MINT: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' };
    expect(deployConfig({ TRON_GENESIS_HASH: nile, SOLANA_GENESIS_HASH: devnet, ...tokens }).handlerEnvironment).toEqual({ TRON_GENESIS_HASH: nile, SOLANA_GENESIS_HASH: devnet, ...tokens });
  });

  it("refuses TRON's or Solana's test network with the mainnet token (left as the default too), and mainnet with another token", () => {
    const nile = '0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc';
    const pair = /deploy settings tronGenesisHash \(TRON_GENESIS_HASH\) and usdtTrc20Contract \(USDT_TRC20_CONTRACT\) do not go together: TRON_GENESIS_HASH is Nile testnet's, where USDT_TRC20's mainnet token TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t/;
    expect(() => deployConfig({ TRON_API_URL: 'https://nile.trongrid.io', TRON_GENESIS_HASH: nile })).toThrow(pair);
    expect(() => deployConfig({ TRON_GENESIS_HASH: nile, USDT_TRC20_CONTRACT: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' })).toThrow(pair);
    expect(() => deployConfig({ USDT_TRC20_CONTRACT: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' })).toThrow(/do not go together: USDT_TRC20_CONTRACT TXYZ\w+ is not USDT_TRC20's mainnet token/);
    expect(() => deployConfig({ SOLANA_GENESIS_HASH: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG' })).toThrow(
      /deploy settings solanaGenesisHash \(SOLANA_GENESIS_HASH\) and usdcSolMint \(USDC_SOL_MINT\) do not go together: SOLANA_GENESIS_HASH is devnet's/,
    );
    expect(() => deployConfig({ USDC_SOL_MINT: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' })).toThrow(/usdcSolMint .* is not USDC_SOL's mainnet token/);
    // A malformed value is still named as its own setting.
    expect(() => deployConfig({ USDT_TRC20_CONTRACT: '0xdAC17F958D2ee523a2206206994597C13D831ec7' })).toThrow(/deploy setting usdtTrc20Contract \(USDT_TRC20_CONTRACT\) must be a TRON address/);
  });

  it("forwards each block chain's tip-age limit and the lag bound, checked as the handlers check them", () => {
    expect(deployConfig({ BTC_MAX_TIP_AGE_SECONDS: '14400', SOURCE_MAX_LAG_SECONDS: '600' }, { arbitrumMaxTipAgeSeconds: 0 }).handlerEnvironment).toEqual({
      BTC_MAX_TIP_AGE_SECONDS: '14400',
      ARBITRUM_MAX_TIP_AGE_SECONDS: '0',
      SOURCE_MAX_LAG_SECONDS: '600',
    });
    expect(() => deployConfig({ LTC_MAX_TIP_AGE_SECONDS: '45m' })).toThrow(/deploy setting ltcMaxTipAgeSeconds \(LTC_MAX_TIP_AGE_SECONDS\) must be a non-negative integer/);
    expect(() => deployConfig({ SOURCE_MAX_LAG_SECONDS: '0' })).toThrow(/sourceMaxLagSeconds/);
  });

  it('accepts a custom page domain with its us-east-1 certificate', () => {
    const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/0f1e2d3c-aaaa-bbbb-cccc-123456789abc';
    expect(deployConfig({ PAYMENT_PAGE_DOMAIN: 'pay.example.com', PAYMENT_PAGE_CERTIFICATE_ARN: certificateArn }).paymentPage).toEqual({
      customDomain: { domainName: 'pay.example.com', certificateArn },
    });
  });

  it('forwards each EVM network\'s chain id, token contracts and confirmations, checked, from the environment or context', () => {
    const contract = '0x1111111111111111111111111111111111111111';
    const config = deployConfig(
      { ARBITRUM_CHAIN_ID: '421614', USDT_ARB_CONTRACT: contract, USDT_BNB_CONFIRMATIONS: '15', USDT_ERC20_CONFIRMATIONS: '20' },
      { cusdConfirmations: 30 },
    );
    expect(config.handlerEnvironment).toEqual({
      ARBITRUM_CHAIN_ID: '421614',
      USDT_ARB_CONTRACT: contract,
      USDT_BNB_CONFIRMATIONS: '15',
      USDT_ERC20_CONFIRMATIONS: '20',
      CUSD_CONFIRMATIONS: '30',
    });
    expect(() => deployConfig({ BASE_CHAIN_ID: 'base' })).toThrow(/baseChainId \(BASE_CHAIN_ID\) must be a positive integer/);
    expect(() => deployConfig({ USDC_POL_CONTRACT: '0x1234' })).toThrow(/usdcPolContract \(USDC_POL_CONTRACT\) must be a 0x-prefixed 20-byte contract address/);
    expect(() => deployConfig({ ETH_ARB_CONFIRMATIONS: '0' })).toThrow(/ethArbConfirmations/);
  });

  it('is documented: docs/deploy.md names every setting and its variable', () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'deploy.md'), 'utf8');
    for (const [key, { env }] of Object.entries({ ...SETTINGS, ...NETWORK_SETTINGS, ...TIP_AGE_SETTINGS })) {
      expect(docs, key).toContain(`\`${key}\``);
      expect(docs, env).toContain(`\`${env}\``);
    }
  });
});
