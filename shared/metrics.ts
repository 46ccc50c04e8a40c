/**
 * Custom CloudWatch metrics in the embedded metric format (EMF): one JSON line on stdout per
 * call, which CloudWatch Logs turns into metric data points (no API call, no extra
 * permission). Written straight to stdout, not through console.log: with Lambda's JSON log
 * format console.log would wrap the line and CloudWatch would not see a metric in it.
 */
export const METRICS_NAMESPACE = 'CryptoPayOrders';

export function emitMetrics(
  dimensions: Readonly<Record<string, string>>,
  values: Readonly<Record<string, { value: number; unit: 'Count' | 'Milliseconds' | 'None' }>>,
  now: Date = new Date(),
): void {
  const line = {
    _aws: {
      Timestamp: now.getTime(),
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [Object.keys(dimensions)],
          Metrics: Object.entries(values).map(([name, { unit }]) => ({ Name: name, Unit: unit })),
        },
      ],
    },
    ...dimensions,
    ...Object.fromEntries(Object.entries(values).map(([name, { value }]) => [name, value])),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
