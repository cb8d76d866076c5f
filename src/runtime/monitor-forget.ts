import type { Gauge } from 'prom-client';
import type { RetryMetrics } from './metrics';

/**
 * Drops a consumer's monitor gauges after a failed poll. Stale values would look like
 * a healthy monitor; missing ones are bridged by the rules' 5-minute `last_over_time`
 * for a short broker hiccup, and fire KafkaRetryMonitorDown for a long one.
 */
export async function forgetMonitorGauges(metrics: RetryMetrics, consumer: string): Promise<void> {
  const gauges: Gauge<string>[] = [metrics.dlqSize, metrics.dlqOldestTimestamp, metrics.tierLag, metrics.tierOverdue, metrics.mainLag, metrics.mainLagSeconds];
  for (const gauge of gauges) {
    for (const { labels } of (await gauge.get()).values) {
      if (labels.consumer === consumer) gauge.remove(labels as Record<string, string>);
    }
  }
}
