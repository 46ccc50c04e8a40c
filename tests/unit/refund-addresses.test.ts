import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bech32 } from '@scure/base';
import { checkRefundAddress } from '#shared/payments/refund-addresses';
import { encodeBolt11, privateKeySigner } from '#shared/payments/lightning/bolt11';
import { refundPaymentUri } from '#shared/payments/refund-uri';

/**
 * The refund address check per network, against published addresses (BIP173/BIP350 and EIP-55
 * test vectors, the networks' well-known contracts) rather than our own encoders.
 */

const now = new Date('2026-11-27T10:00:00Z');
/** A testnet P2WPKH address, encoded by @scure/base (not our code). */
const TESTNET = bech32.encode('tb', [0, ...bech32.toWords(new Uint8Array(20).fill(7))]);
const live = (currency: string, amount = '0.001') => ({ currency, amount, sandbox: false });
const reason = (currency: string, address: string, memo?: string) => {
  const checked = checkRefundAddress(live(currency), address, memo, now);
  return checked.ok ? 'ok' : checked.reason;
};

describe('checkRefundAddress', () => {
  it('takes BTC segwit v0, taproot and base58 mainnet addresses (BIP173/BIP350 vectors)', () => {
    for (const address of [
      'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', // BIP173, upper case
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', // BIP350 taproot
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    ]) {
      expect(reason('BTC', address), address).toBe('ok');
    }
  });

  it('refuses BTC addresses of another network, another coin, or with a typo, saying which', () => {
    expect(reason('BTC', TESTNET)).toMatch(/test network.*mainnet/);
    expect(reason('BTC', bech32.encode('ltc', [0, ...bech32.toWords(new Uint8Array(20).fill(9))]))).toMatch(/This is a Litecoin address, but this refund is paid in BTC on Bitcoin/);
    expect(reason('BTC', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr')).toMatch(/typo/);
    // BIP350: a v1 program written with bech32 (not bech32m) is invalid.
    expect(reason('BTC', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd')).not.toBe('ok');
    expect(reason('BTC', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toMatch(/Ethereum-style/);
  });

  it('takes a sandbox refund on a test network', () => {
    expect(checkRefundAddress({ currency: 'BTC', amount: '0.001', sandbox: true }, TESTNET, undefined, now).ok).toBe(true);
  });

  it('checks EIP-55 on every EVM network and refuses the zero address and token contracts', () => {
    for (const currency of ['ETH', 'USDT_ERC20', 'USDC_ARB', 'USDC_BASE', 'USDT_BNB']) {
      expect(reason(currency, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'), currency).toBe('ok');
      expect(reason(currency, '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'), currency).toBe('ok');
    }
    expect(reason('ETH', '0x52908400098527886E0F7030069857D2E4169EE7')).toBe('ok'); // EIP-55's all-caps vector
    expect(reason('ETH', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toMatch(/no checksum/);
    expect(reason('ETH', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toMatch(/typo/);
    expect(reason('ETH', '0x0000000000000000000000000000000000000000')).toMatch(/zero address/);
    expect(reason('USDT_ERC20', '0xdAC17F958D2ee523a2206206994597C13D831ec7')).toMatch(/USDT_ERC20 token contract on Ethereum/);
    expect(reason('USDC_ARB', '0xaf88d065e77c8cC2239327C5EDb3A432268e5831')).toMatch(/USDC_ARB token contract on Arbitrum One/);
    expect(reason('USDT_ERC20', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toMatch(/This is a TRON address, but this refund is paid in USDT_ERC20 on Ethereum/);
  });

  it('TRON: a base58check address, not the USDT contract', () => {
    expect(reason('USDT_TRC20', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7')).toBe('ok');
    expect(reason('USDT_TRC20', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toMatch(/USDT token contract on TRON/);
    expect(reason('USDT_TRC20', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU8')).toMatch(/typo/);
    expect(reason('USDT_TRC20', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toMatch(/Ethereum-style.*TRON/);
  });

  it('Solana: a wallet, not the mint, a program or a token account (off the curve)', () => {
    expect(reason('USDC_SOL', '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM')).toBe('ok');
    expect(reason('USDC_SOL', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toMatch(/USDC mint/);
    expect(reason('USDC_SOL', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')).toMatch(/SPL Token program/);
    // An associated token account (a program-derived address: tests/unit/solana-token-account.test.ts).
    expect(reason('USDC_SOL', 'HmBpVD6N1vuGvQpS8KrwWH6Tr8rSwXQBEDKn5VXW6yyw')).toMatch(/program-derived/);
  });

  it('BCH: CashAddr with or without its prefix, not the legacy form', () => {
    expect(reason('BCH', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a')).toBe('ok');
    expect(reason('BCH', 'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a')).toBe('ok');
    expect(reason('BCH', '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu')).toMatch(/legacy-format/);
    expect(reason('BCH', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6c')).toMatch(/typo/);
  });

  it('EOS: an account that is not a system one, a memo of at most 256 bytes', () => {
    expect(reason('EOS', 'binancecleos', '104522719')).toBe('ok');
    expect(reason('EOS', 'eosio.token')).toMatch(/system account/);
    expect(reason('EOS', 'Not_An_Account')).toMatch(/EOS account name/);
    expect(reason('EOS', 'binancecleos', 'x'.repeat(257))).toMatch(/256 bytes/);
    expect(reason('BTC', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'memo')).toMatch(/take no memo/);
  });

  it('LBTC: a signed mainnet BOLT11 invoice of exactly the amount, valid an hour more', () => {
    const key = secp256k1.utils.randomSecretKey();
    const invoice = (amountMsat: bigint, network: 'bc' | 'tb' = 'bc', expirySeconds = 86_400) =>
      encodeBolt11(
        { network, amountMsat, timestamp: Math.floor(now.getTime() / 1000), paymentHash: new Uint8Array(32).fill(1), paymentSecret: new Uint8Array(32).fill(2), description: 'refund', expirySeconds },
        privateKeySigner(key),
      );
    expect(reason('LBTC', invoice(100_000_000n))).toBe('ok'); // 0.001 BTC
    expect(reason('LBTC', `lightning:${invoice(100_000_000n)}`)).toBe('ok');
    expect(reason('LBTC', invoice(99_999_000n))).toMatch(/not the refund's 100000000 msat/);
    expect(reason('LBTC', invoice(100_000_000n, 'tb'))).toMatch(/test network/);
    expect(reason('LBTC', invoice(100_000_000n, 'bc', 600))).toMatch(/expires too soon/);
    expect(reason('LBTC', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq')).toMatch(/Bitcoin address, but this refund is paid in LBTC on Lightning/);
  });

  it('gateways are refunded by the gateway', () => {
    expect(reason('ALIPAY', 'anything')).toMatch(/gateway/);
  });
});

describe('refundPaymentUri', () => {
  it('is BIP21, EIP-681 (ether with its chain id, a token transfer), tron:, Solana Pay, lightning:, eos:', () => {
    const uri = (currency: string, address: string, amount = '0.001', memo?: string) => refundPaymentUri({ currency, amount, address, ...(memo ? { memo } : {}) });
    expect(uri('BTC', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq')).toBe('bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.001');
    expect(uri('ETH_ARB', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0.5')).toBe('ethereum:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed@42161?value=500000000000000000');
    expect(uri('USDT_ERC20', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '9.99')).toBe(
      'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=9990000',
    );
    expect(uri('USDT_TRC20', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', '9.99')).toBe('tron:TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7?token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&amount=9.99');
    expect(uri('USDC_SOL', '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', '9.99')).toBe(
      'solana:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM?amount=9.99&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    );
    expect(uri('LBTC', 'lnbc1xyz')).toBe('lightning:lnbc1xyz');
    expect(uri('EOS', 'binancecleos', '1.5', '104522719')).toBe('eos:binancecleos?quantity=1.5000%20EOS&memo=104522719');
    expect(refundPaymentUri({ currency: 'BTC', amount: '0.001' })).toBeUndefined();
  });
});
