import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

/** The service's metrics as CloudWatch reads them: embedded metric format lines on stdout. */
describe('service metrics', () => {
  let metrics: typeof import('#shared/core/metrics');
  beforeAll(async () => {
    // The test setup keeps metrics quiet (as the local runtime does); this file turns them on.
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    delete process.env.POWERTOOLS_DEV;
    metrics = await import('#shared/core/metrics');
  });
  afterEach(() => vi.restoreAllMocks());

  const written = () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stdout.write);
    return lines;
  };

  it('writes the counts since the last publish as one EMF line in the service namespace', () => {
    const lines = written();
    metrics.countMetric('CallbackDelivered');
    metrics.countMetric('CallbackDelivered');
    metrics.countMetric('CallbackDeadLettered');
    metrics.publishMetrics();
    expect(lines).toHaveLength(1);
    const emf = JSON.parse(lines[0]!);
    expect(emf._aws.CloudWatchMetrics[0].Namespace).toBe('CryptoPayOrders');
    expect(emf._aws.CloudWatchMetrics[0].Metrics).toEqual(
      expect.arrayContaining([
        { Name: 'CallbackDelivered', Unit: 'Count' },
        { Name: 'CallbackDeadLettered', Unit: 'Count' },
      ]),
    );
    expect(emf.CallbackDelivered).toEqual([1, 1]);
    expect(emf.CallbackDeadLettered).toBe(1);
    expect(emf.service).toBe('crypto-pay-orders');
  });

  it('writes nothing when nothing was counted', () => {
    const lines = written();
    metrics.publishMetrics();
    expect(lines).toEqual([]);
  });
});
