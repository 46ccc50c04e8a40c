/** Lightning BTC (LBTC): BOLT #11 invoices and the node interface that issues them. */
export {
  type Bolt11InvoiceInput,
  type Bolt11Network,
  type Bolt11Signer,
  type DecodedBolt11,
  Bolt11Error,
  bolt11SigningData,
  decodeBolt11,
  encodeAmount,
  encodeBolt11,
  privateKeySigner,
} from '#shared/payments/lightning/bolt11';
export {
  type CreateInvoiceInput,
  type CreatedInvoice,
  type LightningNode,
  type SandboxLightningNodeOptions,
  SANDBOX_NODE_PRIVATE_KEY,
  SandboxLightningNode,
  lightningUri,
} from '#shared/payments/lightning/node';
