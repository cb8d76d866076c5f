/**
 * `@kafka-retry-topology/runtime/nestjs`: the retrying consumers of generated router packages as
 * Nest providers. The runtime itself stays framework-free; only this subpath imports Nest.
 */
export { KafkaRetryModule } from './kafka-retry.module';
export { KAFKA_RETRY_MODULE_OPTIONS } from './kafka-retry.module-definition';
export type { KafkaRetryConsumerDefaults, KafkaRetryModuleOptions } from './kafka-retry-options.interface';
export { KafkaRetryConsumer } from './decorators/kafka-retry-consumer.decorator';
export type { KafkaRetryConsumerOptions } from './decorators/kafka-retry-consumer.decorator';
export { OnRecord } from './decorators/on-record.decorator';
export { nestExceptionClassifier } from './nest-exception-classifier';
export { KafkaRetryHealthIndicator } from './kafka-retry.health';
export type { KafkaRetryHealthResult } from './kafka-retry.health';
export type { ConsumerHealth } from './consumer-status';
export { KAFKA_RETRY_CONTEXT } from './kafka-retry.constants';
export { ConsumerWiringError } from './consumer-wiring-error';
