import { inject } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import { startLocalSqs, type LocalSqs } from '#infra/local/sqs';
import { startMailbox } from '#infra/local/mailbox';

/**
 * The API and the whole callback pipeline (table stream, order-events, the SQS emulator,
 * deliver-callback) on the real local parts, on a table of its own so its stream carries only
 * this file's orders. Callbacks may go to loopback and retry after 1 s; `env` adds or
 * overrides settings. Modules that read the environment load only after it is set.
 */
export async function startPipeline(
  table: string,
  env: Record<string, string> = {},
  options: { email?: boolean; emailVisibilitySeconds?: number; sqsEndpoint?: (emulator: string) => Promise<string> } = {},
) {
  const dynamodbEndpoint = inject('dynamodbEndpoint');
  await ensureTable(dynamodbEndpoint, table);
  const sqs: LocalSqs = await startLocalSqs({ prefix: table, emailVisibilitySeconds: options.emailVisibilitySeconds });
  // With email: a real SMTP server on loopback receives what the service sends (mailbox.waitFor reads it).
  const mailbox = options.email ? await startMailbox() : undefined;
  // The environment each Lambda of the pipeline gets; set before their modules load.
  Object.assign(process.env, {
    TABLE_NAME: table,
    CALLBACK_QUEUE_URL: sqs.callbackQueueUrl,
    CALLBACK_DLQ_URL: sqs.callbackDeadLetterQueueUrl,
    SUBSCRIPTION_QUEUE_URL: sqs.subscriptionQueueUrl,
    SUBSCRIPTION_DLQ_URL: sqs.subscriptionDeadLetterQueueUrl,
    // The functions' SQS client; `sqsEndpoint` may put a proxy in front (the event sources still read the emulator, as Lambda's do).
    SQS_ENDPOINT: options.sqsEndpoint ? await options.sqsEndpoint(sqs.endpoint) : sqs.endpoint,
    CALLBACK_ALLOW_LOOPBACK: 'true',
    CALLBACK_RETRY_BASE_SECONDS: '1',
    CALLBACK_MAX_ATTEMPTS: '4',
    CALLBACK_SWEEP_GRACE_SECONDS: '5',
    ...(mailbox ? { EMAIL_QUEUE_URL: sqs.emailQueueUrl, EMAIL_DLQ_URL: sqs.emailDeadLetterQueueUrl, EMAIL_FROM: 'Test Shop Payments <pay@shop.test>', EMAIL_RETRY_BASE_SECONDS: '1' } : {}),
    ...env,
  });
  const support = await import('./api');
  const api = await support.startApi();
  const { startCallbackPipeline } = await import('#infra/local/pipeline');
  const { smtpTransport } = await import('#shared/email/smtp');
  const stopPipeline = await startCallbackPipeline({
    dynamodbEndpoint,
    tableName: table,
    sqs,
    sweepSeconds: 1,
    ...(mailbox ? { email: { transport: smtpTransport(mailbox.smtpUrl), summarySeconds: 3600 } } : {}),
  });
  return {
    sqs,
    mailbox,
    api,
    support,
    stop: async () => {
      await stopPipeline();
      await api.close();
      await sqs.stop();
      await mailbox?.stop();
    },
  };
}
