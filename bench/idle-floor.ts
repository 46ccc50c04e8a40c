/**
 * What a deployment costs a month with every source configured and no order at all: not only
 * the watchers' idle runs (bench/cost.ts `idleMonthlyCost`) but everything that bills by the
 * month or by the clock whether anything happens or not, read off the stack as `cdk synth`
 * builds it (every network and indexed source, the gateways, both custom domains, the alarm
 * e-mail: the configuration of tests/infra/resource-limits.test.ts):
 *
 * - CloudWatch alarms, billed per alarm metric (a metric-math alarm per metric it reads);
 * - CloudWatch custom metric series published while idle (the watchers' UnhealthyCurrencies,
 *   one series: shared/services/health.ts; every other series is published only when something
 *   happens: callbacks, unmatched payments);
 * - KMS keys and Secrets Manager secrets, billed per month each;
 * - the scheduled functions (expire-orders with the order numbering, sweep-callbacks: their
 *   measured idle runs) and the SQS event sources' long polls;
 * - the watchers' idle runs (measured by the watcher group).
 *
 * Node providers, DynamoDB storage and backups (a few cents for an empty table), CloudWatch Logs
 * storage, CloudFront and S3 with no visitor are left out. Prices: us-east-1 list, 2026.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CryptoPayStack } from '#infra/cdk/stack';
import { deployConfig, EVERYTHING_ELSE_SETTINGS, EVERY_SOURCE_SETTINGS, TEST_ENV, testApp } from '../tests/infra/support.ts';
import { DEFAULT_ASSUMPTIONS, PRICES, type IdleCost } from './cost';
import type { FunctionUse } from './instrument';

/** Monthly prices (us-east-1 list, 2026) of what bills by the month. */
export const MONTHLY_PRICES = {
  /** Per standard-resolution alarm metric. */
  alarm_metric: 0.1,
  /** Per custom metric series (first 10,000). */
  custom_metric: 0.3,
  kms_key: 1.0,
  secret: 0.4,
} as const;

/** CloudWatch's always-free tier: 10 alarm metrics and 10 custom metrics a month per account. */
const CLOUDWATCH_FREE = { alarm_metrics: 10, custom_metrics: 10 } as const;

/** Series the service publishes every minute whether or not anything happens. */
const IDLE_METRIC_SERIES = ['UnhealthyCurrencies'] as const;

export interface IdleFloor {
  /** The whole deployment idle, a month, without CloudWatch's free tier (an account that uses it elsewhere). */
  usd_per_month: number;
  /** The same with CloudWatch's always-free 10 alarms and 10 metrics unused elsewhere in the account. */
  usd_per_month_with_free_tier: number;
  lines: { what: string; count: number; usd_per_month: number }[];
  stacks: { main_resources: number; watcher_resources: number };
}

interface Counts {
  alarmMetrics: number;
  alarms: number;
  kmsKeys: number;
  secrets: number;
  sqsEventSources: number;
  resources: number;
}

function countsOf(stack: Stack): Counts {
  const resources = Object.values(Template.fromStack(stack).toJSON().Resources as Record<string, { Type: string; Properties?: Record<string, unknown> }>);
  const ofType = (type: string) => resources.filter((resource) => resource.Type === type);
  const alarms = ofType('AWS::CloudWatch::Alarm');
  const alarmMetrics = alarms.reduce((sum, alarm) => {
    const metrics = alarm.Properties?.Metrics as { MetricStat?: unknown }[] | undefined;
    return sum + (metrics ? metrics.filter((entry) => entry.MetricStat !== undefined).length : 1);
  }, 0);
  const template = Template.fromStack(stack).toJSON().Resources as Record<string, { Type: string }>;
  // A mapping reads a queue when its source is a queue of the template (Fn::GetAtt [id, Arn]).
  const readsQueue = (arn: unknown) => {
    const target = (arn as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
    return target !== undefined && template[target]?.Type === 'AWS::SQS::Queue';
  };
  const sqsEventSources = ofType('AWS::Lambda::EventSourceMapping').filter((mapping) => readsQueue(mapping.Properties?.EventSourceArn)).length;
  return {
    alarmMetrics,
    alarms: alarms.length,
    kmsKeys: ofType('AWS::KMS::Key').length,
    secrets: ofType('AWS::SecretsManager::Secret').length,
    sqsEventSources,
    resources: resources.length,
  };
}

/** The deployment with every setting that adds resources, synthesized (placeholder code: no bundling). */
function synthesizeEverything(): { main: Counts; watchers: Counts } {
  const web = mkdtempSync(join(tmpdir(), 'crypto-pay-idle-'));
  const made = testApp({ bundle: false });
  try {
    for (const app of ['page', 'portal']) {
      mkdirSync(join(web, app));
      writeFileSync(join(web, app, 'index.html'), '<html><head><meta name="api-base-url" content=""></head><body></body></html>');
    }
    const stack = new CryptoPayStack(made.app, 'Idle', {
      env: TEST_ENV,
      config: deployConfig({ ...EVERY_SOURCE_SETTINGS, ...EVERYTHING_ELSE_SETTINGS }),
      paymentPageDir: join(web, 'page'),
      portalDir: join(web, 'portal'),
    });
    return { main: countsOf(stack), watchers: countsOf(stack.watchers!) };
  } finally {
    made.cleanup();
    rmSync(web, { recursive: true, force: true });
  }
}

/**
 * The idle month of the whole deployment. `watchersIdle` is the watcher group's idle figure;
 * `scheduled` the callbacks group's measured idle runs of the scheduled functions.
 */
export function idleFloor(watchersIdle: IdleCost | null, scheduled: Record<string, FunctionUse> | undefined): IdleFloor {
  const { main, watchers } = synthesizeEverything();
  const lines: IdleFloor['lines'] = [];
  const add = (what: string, count: number, usd: number) => lines.push({ what, count, usd_per_month: Math.round(usd * 100) / 100 });
  const alarmMetrics = main.alarmMetrics + watchers.alarmMetrics;
  add(`CloudWatch alarm metrics (${main.alarms + watchers.alarms} alarms)`, alarmMetrics, alarmMetrics * MONTHLY_PRICES.alarm_metric);
  add(`CloudWatch metric series published while idle (${IDLE_METRIC_SERIES.join(', ')})`, IDLE_METRIC_SERIES.length, IDLE_METRIC_SERIES.length * MONTHLY_PRICES.custom_metric);
  add('KMS keys', main.kmsKeys + watchers.kmsKeys, (main.kmsKeys + watchers.kmsKeys) * MONTHLY_PRICES.kms_key);
  add('Secrets Manager secrets (the portal origin secret)', main.secrets + watchers.secrets, (main.secrets + watchers.secrets) * MONTHLY_PRICES.secret);
  // Each SQS event source long-polls with 5 pollers, 20 s waits (bench/cost.ts DEFAULT_ASSUMPTIONS).
  const polls = (main.sqsEventSources + watchers.sqsEventSources) * DEFAULT_ASSUMPTIONS.idle_sqs_receives_per_month;
  add('SQS event sources: empty long polls', polls, polls * PRICES.sqs_request);
  for (const [fn, runs] of Object.entries(DEFAULT_ASSUMPTIONS.scheduled_runs_per_month)) {
    const use = scheduled?.[fn];
    if (!use) continue;
    const perRun =
      PRICES.lambda_request +
      (Math.ceil(use.durationMs) / 1000) * (DEFAULT_ASSUMPTIONS.memory_mb / 1024) * PRICES.lambda_gb_second_arm64 +
      Math.max(use.readUnits, use.requests * DEFAULT_ASSUMPTIONS.min_read_units_per_request) * PRICES.dynamodb_read_request_unit +
      use.writeUnits * PRICES.dynamodb_write_request_unit;
    add(`${fn} idle runs (measured: ${Math.ceil(use.durationMs)} ms, ${use.requests} DynamoDB requests)`, runs, runs * perRun);
  }
  if (watchersIdle)
    add(
      `watchers: a run per source a minute, a look at the source every ${Math.round(watchersIdle.runs_per_month / watchersIdle.looks_per_month)} (watcher group)`,
      watchersIdle.runs_per_month * Object.keys(watchersIdle.per_source_usd).length,
      watchersIdle.usd_per_month,
    );
  const total = lines.reduce((sum, line) => sum + line.usd_per_month, 0);
  const free = Math.min(alarmMetrics, CLOUDWATCH_FREE.alarm_metrics) * MONTHLY_PRICES.alarm_metric + Math.min(IDLE_METRIC_SERIES.length, CLOUDWATCH_FREE.custom_metrics) * MONTHLY_PRICES.custom_metric;
  return {
    usd_per_month: Math.round(total * 100) / 100,
    usd_per_month_with_free_tier: Math.round((total - free) * 100) / 100,
    lines,
    stacks: { main_resources: main.resources, watcher_resources: watchers.resources },
  };
}
