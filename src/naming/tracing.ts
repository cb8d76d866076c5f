/** The name of the runtime's tracer (the instrumentation scope of its spans). */
export const TRACER_NAME = 'kafka-retry-topology';

/**
 * The runtime's own span attributes, beside the messaging conventions' (docs/tracing.md).
 * Retry attributes live under `krt.retry.*`.
 */
export const TRACE_ATTRIBUTES = {
  consumer: 'krt.consumer',
  /** 1 on the main topic, as `x-attempt` counts. */
  attempt: 'krt.retry.attempt',
  /** The tier the record was read from (`1m`); absent on the main topic. */
  tier: 'krt.retry.tier',
  /** Where the attempt sent the record: one of TRACE_DESTINATIONS. */
  destination: 'krt.retry.destination',
  /** The tier the record goes to next, when the destination is a tier. */
  destinationTier: 'krt.retry.destination.tier',
  /** The error kind the classifier gave the failure (`transient-long`, `permanent-data`...). */
  classification: 'krt.retry.classification',
  /** The failure's error name, as `x-error-class` carries it. */
  errorName: 'krt.retry.error.name',
  /** True on an attempt at a record `krt dlq replay` sent back. */
  replayed: 'krt.retry.replayed',
  /** On a span link: which context it is, one of TRACE_LINKS. */
  link: 'krt.retry.link',
} as const;

export const TRACE_DESTINATIONS = {
  done: 'done',
  tier: 'tier',
  dlq: 'dlq',
  /** stop() or a rebalance cut the attempt short: the record is read again. */
  interrupted: 'interrupted',
} as const;

export const TRACE_LINKS = {
  /** The main-topic record's producer context. */
  original: 'original',
  /** The attempt that published this tier or DLQ record. At a record's first hop the only link is the original. */
  previousHop: 'previous-hop',
} as const;
