import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { observabilityConfig } from '#shared/core/config';

let metrics: Metrics | undefined;

/**
 * The process's CloudWatch metrics (Powertools, embedded metric format in the log), built on
 * first use. POWERTOOLS_METRICS_DISABLED=true (the local runtime, tests) keeps them quiet.
 */
export function serviceMetrics(): Metrics {
  const { metricsNamespace, serviceName } = observabilityConfig();
  return (metrics ??= new Metrics({ namespace: metricsNamespace, serviceName }));
}

/** Counts one occurrence of `name` (published by publishMetrics). */
export function countMetric(name: string, value = 1): void {
  serviceMetrics().addMetric(name, MetricUnit.Count, value);
}

/** Writes the metrics counted so far (one log line), if any. */
export function publishMetrics(): void {
  if (metrics?.hasStoredMetrics()) metrics.publishStoredMetrics();
}

/**
 * Publishes one value at once with no dimension but `service`: one metric series however many
 * functions publish it (CloudWatch bills each series a month, so per-chain dimensions on what
 * every watcher publishes all the time would cost a metric per chain while nothing happens).
 */
export function publishValue(name: string, value: number): void {
  serviceMetrics().singleMetric().addMetric(name, MetricUnit.Count, value);
}
