/** Reflect-metadata keys of the decorators; the explorer reads them at bootstrap. */
export const KAFKA_RETRY_CONSUMER = 'kafka-retry-topology:consumer';
export const KAFKA_RETRY_HANDLER = 'kafka-retry-topology:handler';

/** The ExecutionContext type guards, interceptors and exception filters see (`host.getType()`). */
export const KAFKA_RETRY_CONTEXT = 'kafka-retry';
