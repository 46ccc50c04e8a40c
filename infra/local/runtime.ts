import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROUTES } from '#shared/http/routes';
import { createApiServer, type RouteBinding } from '#infra/local/http-adapter';
import { apiFunctions } from '#infra/local/handlers';
import { ensureTable, LOCAL_AWS_ENV, startDynamoDbLocal, type LocalDynamoDb } from '#infra/local/dynamodb';
import { startLocalSqs, type LocalSqs } from '#infra/local/sqs';
import { staticFiles } from '#infra/local/static-files';
import { startCallbackPipeline } from '#infra/local/pipeline';
import { freePort } from '#infra/local/ports';
import { startMailbox } from '#infra/local/mailbox';
import { localTokenKey, stateFile, type RuntimeState } from '#infra/local/runtime-state';

export interface RuntimeOptions {
  port: number;
  host?: string;
  /** Where DynamoDB Local keeps its data and the runtime its state; in memory when absent. */
  dataDir?: string;
  tableName?: string;
  /** Use this as the demo merchant's API token (else one is generated once and kept). */
  demoApiToken?: string;
  /** Use an already running DynamoDB (tests); otherwise DynamoDB Local is started. */
  dynamodbEndpoint?: string;
  /** How often the expiry handler runs (EventBridge does it every minute in AWS). */
  expirySweepSeconds: number;
  /**
   * The header the adapter takes a request's client address from, behind a proxy of your own
   * (QUOTA_CLIENT_IP_HEADER); else the connection's. The handlers key the request quotas they
   * count in the table on it (QUOTA_MERCHANT_RATE, ...; read from the environment as in AWS).
   */
  clientIpHeader?: string;
  /** The local SMTP server's port (SMTP_PORT; default: a free one). */
  smtpPort?: number;
}

export interface DemoMerchant {
  user_id: number;
  api_token: string;
  callback_secret: string;
}

export interface Runtime {
  url: string;
  paymentPageUrl: string;
  /** The merchant portal (http://localhost:<port>/portal/: passkeys need a domain, not an IP). */
  portalUrl: string;
  /** A fresh one-time invite link for the demo merchant's portal (72 hours). */
  demoInviteUrl: string;
  demo: DemoMerchant;
  /** Every email the service sends arrives at this SMTP server on loopback; its mailbox is served here. */
  mail: { smtpUrl: string; mailboxUrl: string; messages: () => readonly import('#infra/local/mailbox').CapturedMail[] };
  dynamodbEndpoint: string;
  /** The chains whose payments are watched (those with a source configured). */
  watching: string[];
  stop(): Promise<void>;
}

const PAGE_PREFIX = '/pay/';
const PORTAL_PREFIX = '/portal/';
const MAIL_PREFIX = '/mail/';

/**
 * A previous run killed with SIGKILL leaves its DynamoDB Local running on our data. Stop it
 * with SIGTERM and wait, so it flushes what it acknowledged before we open the data again.
 */
async function stopOrphanedJava(dataDir: string): Promise<void> {
  const pidFile = join(dataDir, 'dynamodb.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  const isOurJava = () => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal.jar');
    } catch {
      return false;
    }
  };
  if (!Number.isInteger(pid) || pid <= 0 || !isOurJava()) return;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < 15_000 && isOurJava(); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (isOurJava()) process.kill(pid, 'SIGKILL');
}

async function seedDemoMerchant(dataDir: string | undefined, demoApiToken: string | undefined): Promise<DemoMerchant> {
  // Loaded only now: the store reads its configuration from the environment set above.
  const { findMerchant } = await import('#shared/store/merchants');
  const { apiTokenHash, findMerchantByApiToken } = await import('#shared/services/api-tokens');
  const { rehashApiToken } = await import('#shared/store/api-tokens');
  const { createMerchant } = await import('#shared/services/merchants');
  const demoFile = dataDir ? join(dataDir, 'demo-merchant.json') : undefined;
  const token = demoApiToken ?? (demoFile && existsSync(demoFile) ? (JSON.parse(readFileSync(demoFile, 'utf8')) as DemoMerchant).api_token : undefined);
  if (token) {
    // A demo stored before tokens were keyed is found by its old hash and upgraded.
    const found = await findMerchantByApiToken(token, await apiTokenHash(token), rehashApiToken);
    const merchant = found && (await findMerchant(found.merchant.user_id));
    if (merchant) return { user_id: merchant.user_id, api_token: token, callback_secret: merchant.callback_secret };
  }
  // The demo hears every status change, to show them all.
  const created = await createMerchant({ name: 'Demo Shop', sandbox: true, apiToken: token, callbackStatuses: 'all' });
  // Local convenience only: the demo's token is kept in plain text in the data folder.
  if (demoFile) writeFileSync(demoFile, JSON.stringify(created), { mode: 0o600 });
  return created;
}

/** Runs the scheduled expiry handler (expiry and order numbering) on a timer, one run at a time; returns its stop. */
async function startExpirySweeper(seconds: number): Promise<() => Promise<void>> {
  const { handler } = await import('#functions/expire-orders/handler');
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => handler()).catch((error: unknown) => console.error('expiry sweep failed:', error));
  }, seconds * 1000);
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/**
 * Runs the chain watcher of every chain with a source configured (BTC_ESPLORA_URL,
 * BTC_RPC_URL, ...) and the indexed ones (LND_REST_URL; EOS_ACCOUNT with EOS_HISTORY_URL;
 * TRON_API_URL; SOLANA_RPC_URL; TON_API_URL; STELLAR_HORIZON_URL), in process, as the AWS watcher functions do: each polls every
 * WATCH_INTERVAL_SECONDS and backs off on errors. Returns the chains and the stop.
 */
async function startChainWatchers(): Promise<{ chains: string[]; stop: () => Promise<void> }> {
  const { chainSources } = await import('#shared/chains/sources');
  const { readEosConfig } = await import('#shared/chains/eos');
  const { readLightningConfig } = await import('#shared/chains/lightning');
  const { readTronConfig } = await import('#shared/chains/tron');
  const { readSolanaConfig } = await import('#shared/chains/solana');
  const { readTonConfig } = await import('#shared/chains/ton');
  const { readStellarConfig } = await import('#shared/chains/stellar');
  // Nothing configured (the default): load none of the watcher code.
  const indexed = [readEosConfig, readTronConfig, readSolanaConfig, readTonConfig, readStellarConfig].some((read) => read(process.env).watched);
  const nothing = chainSources(process.env).length === 0 && readLightningConfig(process.env).restUrl === undefined && !indexed;
  if (nothing) return { chains: [], stop: async () => undefined };
  const { runnableWatchers } = await import('#shared/watchers/runnable');
  const { watchChainRun } = await import('#shared/watchers/polled');
  const controller = new AbortController();
  // The same run function as the AWS watch-chain function, one per chain until stopped.
  const watchers = runnableWatchers();
  const loops = watchers.map(({ chain }) => watchChainRun(chain, controller.signal));
  return {
    chains: watchers.map(({ chain, source }) => `${chain} (${source})`),
    stop: async () => {
      controller.abort();
      await Promise.all(loops);
    },
  };
}

/**
 * The whole service on one machine: DynamoDB Local, the SQS emulator, the table and queues,
 * the API handlers behind an API Gateway-style adapter, and the payment page, on one port.
 */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const dataDir = options.dataDir ? resolve(options.dataDir) : undefined;
  const tableName = options.tableName ?? 'crypto-pay-orders';
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    await stopOrphanedJava(dataDir);
  }
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch(() => undefined);
  };
  try {
    let dynamodb: LocalDynamoDb | undefined;
    const dynamodbEndpoint = options.dynamodbEndpoint ?? (dynamodb = await startDynamoDbLocal({ dataDir: dataDir && join(dataDir, 'dynamodb') })).endpoint;
    if (dynamodb) {
      const started = dynamodb;
      stops.push(() => started.stop());
      if (dataDir) writeFileSync(join(dataDir, 'dynamodb.pid'), String(started.pid));
    }
    const sqs: LocalSqs = await startLocalSqs({ prefix: tableName });
    stops.push(() => sqs.stop());
    // Email goes to a real SMTP server on loopback; its mailbox is served at /mail/.
    const mailbox = await startMailbox({ port: options.smtpPort });
    stops.push(() => mailbox.stop());
    await ensureTable(dynamodbEndpoint, tableName);

    const bindings: RouteBinding[] = ROUTES.map((route) => {
      const load = apiFunctions[route.fn];
      if (!load) throw new Error(`no local handler for ${route.fn}`);
      return { ...route, load };
    });
    // The port is listened on last, when every part is ready (a client that calls as soon as
    // the port answers must find the demo merchant); the page's address needs it before that.
    const port = options.port === 0 ? await freePort() : options.port;
    const url = `http://${options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1'}:${port}`;
    const paymentPageUrl = process.env.PAYMENT_PAGE_URL ?? `${url}${PAGE_PREFIX}`;
    // WebAuthn takes a domain as relying party, never an IP address: the portal is on localhost.
    const portalOrigin = process.env.PORTAL_ORIGIN ?? `http://localhost:${port}`;

    // The handlers' configuration, as the CDK stack sets it for each Lambda.
    Object.assign(process.env, {
      ...Object.fromEntries(Object.entries(LOCAL_AWS_ENV).filter(([key]) => !process.env[key])),
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: dynamodbEndpoint,
      PAYMENT_PAGE_URL: paymentPageUrl,
      PORTAL_ORIGIN: portalOrigin,
      // Route handlers count request quotas and failed authentications in the table, as the stack sets it.
      QUOTA_STORE: 'table',
      // Where gateways post notifications (a tunnel's URL when a real gateway should reach this machine).
      PUBLIC_API_URL: process.env.PUBLIC_API_URL ?? `${url}/`,
      CALLBACK_QUEUE_URL: sqs.callbackQueueUrl,
      CALLBACK_DLQ_URL: sqs.callbackDeadLetterQueueUrl,
      SUBSCRIPTION_QUEUE_URL: sqs.subscriptionQueueUrl,
      SUBSCRIPTION_DLQ_URL: sqs.subscriptionDeadLetterQueueUrl,
      SQS_ENDPOINT: sqs.endpoint,
      EMAIL_QUEUE_URL: sqs.emailQueueUrl,
      EMAIL_DLQ_URL: sqs.emailDeadLetterQueueUrl,
      EMAIL_FROM: process.env.EMAIL_FROM ?? 'Crypto Pay Orders <no-reply@localhost>',
      // Quick retries locally: a stopped mail server is back in a minute, not hours.
      EMAIL_RETRY_BASE_SECONDS: process.env.EMAIL_RETRY_BASE_SECONDS ?? '5',
      // The explicit local allowance: merchants test against their own machine. Never in AWS.
      CALLBACK_ALLOW_LOOPBACK: process.env.CALLBACK_ALLOW_LOOPBACK ?? 'true',
      CALLBACK_SWEEP_GRACE_SECONDS: process.env.CALLBACK_SWEEP_GRACE_SECONDS ?? '30',
      // Live merchants made with the CLI can try checkouts locally; never set in AWS.
      STATIC_RATES_FOR_LIVE_MERCHANTS: process.env.STATIC_RATES_FOR_LIVE_MERCHANTS ?? 'true',
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
      // No CloudWatch locally: EMF lines would only clutter the terminal.
      POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
      ...localTokenKey(dataDir),
    });

    const demo = await seedDemoMerchant(dataDir, options.demoApiToken);
    const { smtpTransport } = await import('#shared/email/smtp');
    const { createInvite } = await import('#shared/services/portal/team');
    const demoInvite = await createInvite({ merchantId: demo.user_id, name: 'Demo owner' });
    stops.push(await startExpirySweeper(options.expirySweepSeconds));
    const watchers = await startChainWatchers();
    stops.push(watchers.stop);
    stops.push(
      await startCallbackPipeline({
        dynamodbEndpoint,
        tableName,
        sqs,
        checkpointFile: dataDir && join(dataDir, 'stream-checkpoint.json'),
        sweepSeconds: options.expirySweepSeconds,
        email: { transport: smtpTransport(mailbox.smtpUrl), summarySeconds: 3600 },
      }),
    );
    const server = createApiServer(bindings, [staticFiles(PAGE_PREFIX, resolve('web/dist'), 'page'), staticFiles(PORTAL_PREFIX, resolve('web/portal/dist'), 'portal'), mailbox.pages(MAIL_PREFIX)], {
      clientIpHeader: options.clientIpHeader,
    });
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(port, options.host ?? '127.0.0.1', done);
    });
    stops.push(
      () =>
        new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
    );
    if (dataDir) {
      const state: RuntimeState = { dynamodbEndpoint, tableName, apiUrl: url, portalOrigin, pid: process.pid };
      writeFileSync(stateFile(dataDir), JSON.stringify(state));
      stops.push(async () => rmSync(stateFile(dataDir), { force: true }));
    }
    return {
      url,
      paymentPageUrl,
      portalUrl: `${portalOrigin}${PORTAL_PREFIX}`,
      demoInviteUrl: demoInvite.url,
      demo,
      mail: { smtpUrl: mailbox.smtpUrl, mailboxUrl: `${url}${MAIL_PREFIX}`, messages: mailbox.messages },
      dynamodbEndpoint,
      watching: watchers.chains,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
