import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { PaymentNotAvailableError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { parseDecimal } from '#shared/domain/money';
import { statusOf } from '#shared/http/errors';
import type { GatewayPaymentRequest, PaymentGateway } from '#shared/payments/gateways/port';
import { type CreateInvoiceInput, type CreatedInvoice, type LightningNode, decodeBolt11, SandboxLightningNode } from '#shared/payments/lightning/index';
import { HdPaymentMethods, SANDBOX_EOS_ACCOUNT, type PaymentMethodsConfig } from '#shared/payments/payment-methods';
import type { PaymentRequest } from '#shared/payments/payment-details';
import { evmConfig } from '#shared/chains/evm';

/** A provider that only records that it was asked. */
class RecordingNode implements LightningNode {
  readonly calls: CreateInvoiceInput[] = [];
  constructor(private readonly bolt11: string) {}
  async createInvoice(input: CreateInvoiceInput): Promise<CreatedInvoice> {
    this.calls.push(input);
    return { bolt11: this.bolt11, paymentHash: '00'.repeat(32) };
  }
}

class RecordingGateway implements PaymentGateway {
  readonly calls: GatewayPaymentRequest[] = [];
  constructor(private readonly url: string) {}
  async createPayment(request: GatewayPaymentRequest) {
    this.calls.push(request);
    return { url: this.url };
  }
}

const merchant = (sandbox: boolean, gateways: string[] = ['ALIPAY', 'ALIGLOBAL', 'WECHAT']): MerchantProfile => ({
  user_id: sandbox ? 1 : 2,
  name: sandbox ? 'Sandbox shop' : 'Live shop',
  sandbox,
  receive_currency: 'USD',
  gateways,
  created_at: '2026-11-23T00:00:00.000Z',
});

const NOW = new Date('2026-11-23T12:00:00.000Z');

const request = (profile: MerchantProfile, currency: string, amount = '0.0002'): PaymentRequest => ({
  merchant: profile,
  orderId: 'order-1',
  invoiceId: '01JDKQ4ZQ6V1T2X3Y4Z5A6B7C8',
  currency,
  amount: parseDecimal(amount),
  description: 'Monthly Program x 1',
  expiresAt: new Date(NOW.getTime() + 3600_000),
  mobile: false,
  fast: false,
  now: NOW,
});

function providers(overrides: Partial<PaymentMethodsConfig> = {}) {
  const sandboxLightning = new SandboxLightningNode();
  const sandboxGateway = new RecordingGateway('http://pay.test/pay/sandbox-gateway/alipay');
  const config: PaymentMethodsConfig = {
    platformXpubs: {},
    eosAccount: undefined,
    lightning: undefined,
    sandboxLightning,
    gateway: undefined,
    sandboxGateway,
    evm: evmConfig({}),
    ...overrides,
  };
  return { methods: new HdPaymentMethods(config), sandboxLightning, sandboxGateway };
}

describe('a live merchant never gets a sandbox provider', () => {
  it.each(['EOS', 'LBTC', 'ALIPAY', 'ALIGLOBAL', 'WECHAT'])('%s without a configured real provider is PAYMENT_NOT_AVAILABLE, and the sandbox is not asked', async (currency) => {
    const { methods, sandboxGateway } = providers();
    const error = await methods.paymentDetails(request(merchant(false), currency, '72')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PaymentNotAvailableError);
    expect(statusOf(error as PaymentNotAvailableError)).toBe(400);
    expect((error as PaymentNotAvailableError).code).toBe('PAYMENT_NOT_AVAILABLE');
    expect(sandboxGateway.calls).toEqual([]);
  });

  it('LBTC comes from the configured real node, with the amount in msat, the description and the expiry', async () => {
    const live = new RecordingNode('lnbc200u1live');
    const { methods } = providers({ lightning: live });
    const details = await methods.paymentDetails(request(merchant(false), 'LBTC'));
    expect(details).toEqual({ payment_address: 'lnbc200u1live', payment_uri: 'lightning:lnbc200u1live' });
    expect(live.calls).toEqual([{ amountMsat: 20_000_000n, description: 'Monthly Program x 1', expirySeconds: 3600, now: NOW }]);
  });

  it('EOS names the configured real account with the invoice id as memo', async () => {
    const { methods } = providers({ eosAccount: 'shopreceive1' });
    const details = await methods.paymentDetails(request(merchant(false), 'EOS', '17.3625'));
    expect(details).toEqual({
      payment_address: 'shopreceive1',
      memo: '01JDKQ4ZQ6V1T2X3Y4Z5A6B7C8',
      payment_uri: 'eos:shopreceive1?quantity=17.3625%20EOS&memo=01JDKQ4ZQ6V1T2X3Y4Z5A6B7C8',
    });
  });

  it('a gateway comes from the configured real gateway, and only once the merchant has it enabled', async () => {
    const real = new RecordingGateway('https://qr.alipay.example/abc');
    const { methods, sandboxGateway } = providers({ gateway: real });
    const details = await methods.paymentDetails(request(merchant(false), 'ALIPAY', '72'));
    expect(details.gateway_url).toBe('https://qr.alipay.example/abc');
    expect(real.calls.map((call) => call.gateway)).toEqual(['ALIPAY']);
    expect(sandboxGateway.calls).toEqual([]);
  });
});

describe('a sandbox merchant only ever gets the sandbox providers', () => {
  // Real providers are configured here: a sandbox order must still never reach them
  // (a real invoice or account for a sandbox order could take real money that never settles it).
  const real = () => ({
    lightning: new RecordingNode('lnbc200u1live'),
    eosAccount: 'shopreceive1',
    gateway: new RecordingGateway('https://qr.alipay.example/abc'),
  });

  it('LBTC: an invoice signed by the sandbox node for the exact amount', async () => {
    const configured = real();
    const { methods, sandboxLightning } = providers(configured);
    const details = await methods.paymentDetails(request(merchant(true), 'LBTC'));
    const decoded = decodeBolt11(details.payment_address);
    expect(decoded.signatureValid).toBe(true);
    expect(bytesToHex(decoded.payeeNodeKey!)).toBe(sandboxLightning.nodeId);
    expect(decoded.amountMsat).toBe(20_000_000n);
    expect(configured.lightning.calls).toEqual([]);
  });

  it('EOS: the sandbox account, not the configured one', async () => {
    const { methods } = providers(real());
    const details = await methods.paymentDetails(request(merchant(true), 'EOS', '1'));
    expect(details.payment_address).toBe(SANDBOX_EOS_ACCOUNT);
    expect(details.memo).toBe('01JDKQ4ZQ6V1T2X3Y4Z5A6B7C8');
  });

  it('gateways: the sandbox gateway, not the configured one', async () => {
    const configured = real();
    const { methods, sandboxGateway } = providers(configured);
    const details = await methods.paymentDetails(request(merchant(true, []), 'WECHAT', '72'));
    expect(details.gateway_url).toBe('http://pay.test/pay/sandbox-gateway/alipay');
    expect(sandboxGateway.calls.map((call) => call.gateway)).toEqual(['WECHAT']);
    expect(configured.gateway.calls).toEqual([]);
  });
});
