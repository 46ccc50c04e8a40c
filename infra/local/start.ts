/**
 * `npm start`: the whole service locally, nothing else to set up (Java 17 runs DynamoDB Local).
 * Configuration: PORT (3000), HOST (127.0.0.1), DATA_DIR (.data), DEMO_API_TOKEN (generated),
 * EXPIRY_SWEEP_SECONDS (30), SMTP_PORT (a free one: the local mail server), EMAIL_FROM, QUOTA_CLIENT_IP_HEADER (none: the socket's
 * address); the quotas' limits as in AWS (QUOTA_MERCHANT_RATE, ..., docs/operator-guide.md "Rate limits"),
 * counted in the table by the handlers as in AWS;
 * DYNAMODB_ENDPOINT (none: DynamoDB Local is started) with TABLE_NAME (crypto-pay-orders) to use a
 * DynamoDB that is already running instead.
 */
import { LOCAL_AWS_ENV } from '#infra/local/dynamodb';
import { startRuntime } from '#infra/local/runtime';
import { positiveInteger } from '#shared/core/env';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= LOCAL_AWS_ENV.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;

const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got "${process.env.PORT}"`);
  process.exit(2);
}

export const runtime = await startRuntime({
  port,
  host: process.env.HOST,
  dataDir: process.env.DATA_DIR ?? '.data',
  demoApiToken: process.env.DEMO_API_TOKEN || undefined,
  // A DynamoDB already running (your own DynamoDB Local): no Java is started, the table is made if missing.
  dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
  tableName: (process.env.DYNAMODB_ENDPOINT && process.env.TABLE_NAME) || undefined,
  expirySweepSeconds: positiveInteger(process.env, 'EXPIRY_SWEEP_SECONDS', 30),
  smtpPort: process.env.SMTP_PORT ? positiveInteger(process.env, 'SMTP_PORT', 2525) : undefined,
  clientIpHeader: process.env.QUOTA_CLIENT_IP_HEADER || undefined,
}).catch((error: unknown) => {
  console.error(`Could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

console.log(`API:            ${runtime.url}`);
console.log(`Payment page:   ${runtime.paymentPageUrl}`);
console.log(`Portal:         ${runtime.portalUrl}`);
console.log(`Demo merchant:  user_id ${runtime.demo.user_id} (sandbox)`);
console.log(`Demo API token: ${runtime.demo.api_token}`);
console.log(`Callback secret: ${runtime.demo.callback_secret}`);
console.log(`Mailbox:        ${runtime.mail.mailboxUrl}  (every email sent; SMTP at ${runtime.mail.smtpUrl})`);
console.log(
  `Chain watchers: ${runtime.watching.length ? runtime.watching.join(', ') : 'none (set BTC_ESPLORA_URL, BTC_RPC_URL, ..., LND_REST_URL, EOS_HISTORY_URL, TRON_API_URL, SOLANA_RPC_URL, TON_API_URL or STELLAR_HORIZON_URL to watch one)'}`,
);
console.log(`Portal invite:  ${runtime.demoInviteUrl}`);
console.log('                (open it once to make a passkey for the demo merchant; "npm run merchant -- invite <user_id>" makes another)');
console.log('');
console.log('Try:');
console.log(
  `  curl -s -X POST ${runtime.url}/v1/orders -H 'content-type: application/json' -H 'token: ${runtime.demo.api_token}' \\\n` +
    `    -d '{"merchant_order_id":"demo-1","price_amount":9.99,"price_currency":"USD","title":"Demo order"}'`,
);
console.log('');
console.log('Ctrl-C stops everything.');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void runtime.stop().then(() => process.exit(0));
  });
}
