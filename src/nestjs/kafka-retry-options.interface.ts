import type { Registry } from 'prom-client';
import type { ConsumerDescriptor, ErrorClassifier, KafkaPort, MonitorPort, RetryEventListener, RetryingConsumerOptions } from '../runtime';

/** Runtime options every consumer of the module shares; see docs/runtime.md. */
export type KafkaRetryConsumerDefaults = Pick<RetryingConsumerOptions, 'commit' | 'publishBackoff' | 'includeStackTraces' | 'parkingBudgetBytes' | 'drainTimeoutMs'>;

export interface KafkaRetryModuleOptions {
  /** The Kafka client, as a port: `kafkajsPort(new Kafka(...))` or `confluentPort(...)`. */
  readonly kafka: KafkaPort;
  /** Where the metrics go: the registry your `/metrics` serves. Default: prom-client's global `register`. */
  readonly registry?: Registry | undefined;
  readonly defaults?: KafkaRetryConsumerDefaults | undefined;
  /** Asked for every consumer's failures after its own `classify` and before the Nest exception mapping. */
  readonly classify?: ErrorClassifier | undefined;
  /** Every decision of every consumer, for logs; routed records and refused publishes are logged anyway. */
  readonly onEvent?: RetryEventListener | undefined;
  /**
   * Runs the DLQ monitor of each consumer beside it (the gauges the alerts query, and
   * the DLQ's state in the health indicator). The port reads as the monitor principal:
   * `(consumer) => kafkajsMonitorPort(monitorKafka, consumer.groups.monitor)`.
   */
  readonly dlqMonitor?: {
    readonly port: (consumer: ConsumerDescriptor) => MonitorPort;
    /** Default 30 s. */
    readonly intervalMs?: number | undefined;
  } | undefined;
}
