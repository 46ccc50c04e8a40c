/**
 * The service's view of a Lightning node: it only needs invoices. Production wires a real node
 * (LND, CLN, a custodial API, ...) behind {@link LightningNode}; {@link SandboxLightningNode}
 * simulates one so the sandbox and tests issue real, verifiable BOLT #11 invoices.
 */
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { type Bolt11Network, encodeBolt11, privateKeySigner } from '#shared/payments/lightning/bolt11';

/** A request for an invoice. */
export interface CreateInvoiceInput {
  /** Amount in millisatoshis (> 0). */
  amountMsat: bigint;
  description: string;
  expirySeconds: number;
  /** Invoice creation time (injected so callers control the clock). */
  now: Date;
}

/** An issued invoice. */
export interface CreatedInvoice {
  /** The BOLT #11 payment request, lowercase. */
  bolt11: string;
  /** sha256 of the payment preimage, lowercase hex: the key to match the payment later. */
  paymentHash: string;
}

/** Whatever issues Lightning invoices for us: a real node in production, a simulation in the sandbox. */
export interface LightningNode {
  createInvoice(input: CreateInvoiceInput): Promise<CreatedInvoice>;
}

/** Options for {@link SandboxLightningNode}. */
export interface SandboxLightningNodeOptions {
  /** Invoice currency prefix; 'bc' (mainnet) by default. */
  network?: Bolt11Network;
  /** Overrides the built-in sandbox key (32 bytes). */
  privateKey?: Uint8Array;
}

/**
 * SANDBOX ONLY. A fixed, publicly derivable key: anyone can sign as this "node", so it must
 * never receive real funds. It exists so sandbox invoices carry a stable, checkable node id.
 */
export const SANDBOX_NODE_PRIVATE_KEY: Uint8Array = sha256(new TextEncoder().encode('sandbox-lightning-node'));

/**
 * A simulated node: signs genuine BOLT #11 invoices with the sandbox key but is connected to
 * no network, so nothing can actually be paid. Real deployments implement {@link LightningNode}
 * with a real node, keeping the same interface.
 */
export class SandboxLightningNode implements LightningNode {
  private readonly network: Bolt11Network;
  private readonly privateKey: Uint8Array;
  private readonly sign: ReturnType<typeof privateKeySigner>;
  private publicKeyHex: string | undefined;

  constructor(options: SandboxLightningNodeOptions = {}) {
    this.privateKey = options.privateKey ?? SANDBOX_NODE_PRIVATE_KEY;
    this.network = options.network ?? 'bc';
    this.sign = privateKeySigner(this.privateKey);
  }

  /**
   * Compressed public key (hex) that every invoice's signature recovers to. Computed on first
   * use: the first secp256k1 multiplication builds noble's precomputed tables (tens of ms),
   * which every function importing the payment methods would otherwise pay at cold start.
   */
  get nodeId(): string {
    this.publicKeyHex ??= bytesToHex(secp256k1.getPublicKey(this.privateKey, true));
    return this.publicKeyHex;
  }

  /** Issues an invoice with a fresh random preimage and payment secret. */
  async createInvoice(input: CreateInvoiceInput): Promise<CreatedInvoice> {
    // The preimage is the proof of payment; a sandbox has nobody to reveal it to, so it is not kept.
    const paymentHash = sha256(randomBytes(32));
    const bolt11 = encodeBolt11(
      {
        network: this.network,
        amountMsat: input.amountMsat,
        timestamp: Math.floor(input.now.getTime() / 1000),
        paymentHash,
        paymentSecret: randomBytes(32),
        description: input.description,
        expirySeconds: input.expirySeconds,
      },
      this.sign,
    );
    return { bolt11, paymentHash: bytesToHex(paymentHash) };
  }
}

/** The `lightning:` URI for wallets and QR codes (BOLT #11 recommends no `//`). */
export function lightningUri(bolt11: string): string {
  return `lightning:${bolt11.toLowerCase()}`;
}
