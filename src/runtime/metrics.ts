import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { METRICS } from '../naming/metrics';
import { ERROR_KINDS } from './classify';
import { CounterCells } from './counter-cells';
import type { ConsumerDescriptor } from './descriptor';
import { PUBLISH_FAILURE_REASONS } from './publish-failure';

/** Delivery lateness buckets, seconds: sub-second precision up to the late limit of day-long tiers. */
const LATENESS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 43200, 86400];

/** The runtime's metrics, exactly as the generated alert rules query them. */
export interface RetryMetrics {
  readonly registry: Registry;
  readonly messages: Counter<'consumer' | 'topic' | 'outcome'>;
  /** Hot-path series of `messages`, counted without a label lookup per record. */
  readonly messageCells: CounterCells<'consumer' | 'topic' | 'outcome'>;
  readonly retryRouted: Counter<'consumer' | 'tier' | 'error_class'>;
  readonly dlqRouted: Counter<'consumer' | 'error_class'>;
  readonly lateness: Histogram<'consumer' | 'tier'>;
  readonly dlqSize: Gauge<'consumer' | 'topic'>;
  readonly dlqOldestTimestamp: Gauge<'consumer' | 'topic'>;
  readonly tierLag: Gauge<'consumer' | 'topic'>;
  readonly tierOverdue: Gauge<'consumer' | 'topic' | 'partition'>;
  readonly mainLag: Gauge<'consumer' | 'topic' | 'partition'>;
  readonly mainLagSeconds: Gauge<'consumer' | 'topic' | 'partition'>;
  readonly dlqExpired: Counter<'consumer' | 'topic'>;
  /** `destination`: a tier label or `dlq`; `reason`: see PublishFailureReason. */
  readonly publishFailures: Counter<'consumer' | 'destination' | 'reason'>;
}

/** The `destination` label of the DLQ in `kafka_retry_publish_failures_total`. */
export const DLQ_DESTINATION_LABEL = 'dlq';

const byRegistry = new WeakMap<Registry, RetryMetrics>();

/** The metrics on a registry, created once per registry (prom-client refuses a second registration). */
export function retryMetrics(registry: Registry = new Registry()): RetryMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const messageCells = new CounterCells<'consumer' | 'topic' | 'outcome'>();
  const metrics: RetryMetrics = {
    registry,
    messages: new Counter({
      name: METRICS.messagesTotal,
      help: 'Records a main or retry consumer finished with, by outcome.',
      labelNames: ['consumer', 'topic', 'outcome'],
      registers,
      collect() {
        messageCells.flushInto(this);
      },
    }),
    messageCells,
    retryRouted: new Counter({ name: METRICS.retryRoutedTotal, help: 'Records published to a retry tier.', labelNames: ['consumer', 'tier', 'error_class'], registers }),
    dlqRouted: new Counter({ name: METRICS.dlqRoutedTotal, help: 'Records published to the DLQ.', labelNames: ['consumer', 'error_class'], registers }),
    lateness: new Histogram({ name: METRICS.deliveryLatenessSeconds, help: 'Processing start of a tier record minus its x-due-at.', labelNames: ['consumer', 'tier'], buckets: LATENESS_BUCKETS, registers }),
    dlqSize: new Gauge({ name: METRICS.dlqSize, help: "Unhandled DLQ records still in the log: from the later of the log start and the replay group's committed offset to the end, less those handled beyond it.", labelNames: ['consumer', 'topic'], registers }),
    dlqOldestTimestamp: new Gauge({ name: METRICS.dlqOldestUnhandledTimestampSeconds, help: 'Timestamp of the oldest unhandled DLQ record still in the log; absent when there is none.', labelNames: ['consumer', 'topic'], registers }),
    tierLag: new Gauge({ name: METRICS.retryTierLag, help: 'Records waiting in a retry tier.', labelNames: ['consumer', 'topic'], registers }),
    tierOverdue: new Gauge({ name: METRICS.retryTierOverdueSeconds, help: "Now minus the due time of a tier partition's head record; 0 when it is not due or there is none.", labelNames: ['consumer', 'topic', 'partition'], registers }),
    mainLag: new Gauge({ name: METRICS.mainLag, help: 'Records of the main topic the main group has not consumed.', labelNames: ['consumer', 'topic', 'partition'], registers }),
    mainLagSeconds: new Gauge({ name: METRICS.mainLagSeconds, help: "How long ago the main group's next record was written; 0 when it has none.", labelNames: ['consumer', 'topic', 'partition'], registers }),
    dlqExpired: new Counter({ name: METRICS.dlqExpiredTotal, help: "Unhandled DLQ records retention deleted: the gap between the replay group's offset and the log start, plus the gaps krt commands already passed (kept in the group's commit metadata).", labelNames: ['consumer', 'topic'], registers }),
    publishFailures: new Counter({
      name: METRICS.publishFailuresTotal,
      help: 'Publishes to a retry tier or the DLQ that failed and will be tried again (the record stays uncommitted).',
      labelNames: ['consumer', 'destination', 'reason'],
      registers,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

/**
 * Creates every counter series of a consumer at zero, so the first DLQ record shows up
 * as an increase (a series born at 1 has no increase, and its alert would never fire).
 */
export function initializeConsumerSeries(metrics: RetryMetrics, consumer: ConsumerDescriptor): void {
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic)]) {
    for (const outcome of ['success', 'retry', 'dlq']) metrics.messages.inc({ consumer: consumer.name, topic, outcome }, 0);
  }
  for (const kind of ERROR_KINDS) {
    metrics.dlqRouted.inc({ consumer: consumer.name, error_class: kind }, 0);
    for (const tier of consumer.tiers) metrics.retryRouted.inc({ consumer: consumer.name, tier: tier.label, error_class: kind }, 0);
  }
  for (const destination of [...consumer.tiers.map((t) => t.label), DLQ_DESTINATION_LABEL]) {
    for (const reason of PUBLISH_FAILURE_REASONS) metrics.publishFailures.inc({ consumer: consumer.name, destination, reason }, 0);
  }
}
