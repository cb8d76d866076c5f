/**
 * `@kafka-retry-topology/runtime`: what services import. It never imports generator code,
 * cdktf or handlebars, so a service does not pull in Terraform tooling.
 */
export { createRetryingConsumer } from './retrying-consumer';
export type { RetryingConsumer, RetryingConsumerOptions } from './retrying-consumer';
export { createRouter } from './router';
export type { ConsumedRecord, PublishOptions, Router, RouterOptions, RoutedDestination } from './router';
export type { PublishFailureReason } from './publish-failure';
export { KrtError } from './krt-error';
export { DeserializationError, jsonSchemaDecoder, refuse } from './value-codec';
export type { DecodedRecord, ValueDecoder, ValueOf } from './value-codec';
export type { ConsumerDescriptor, ErrorPolicy, InPlacePolicy, JsonSchema, TierDescriptor, ValueCodecDescriptor } from './descriptor';
export { resolveDestination, attemptOf } from './resolve';
export type { Destination, DlqReason, Failure } from './resolve';
export { composeClassifiers, defaultClassifier, errorName, ERROR_KINDS, policyClassifier } from './classify';
export type { ErrorClassifier, ErrorKind } from './classify';
export { decodeRetryHeaders, encodeRetryHeaders, MAX_ERROR_MESSAGE_LENGTH } from './headers';
export type { RawHeaders, RetryHeaders } from './headers';
export { decodeSpringDltHeaders, decodeSpringRetryTopicHeaders, encodeSpringDltHeaders, encodeSpringRetryTopicHeaders } from './spring-headers';
export { decodeOrigin, firstFailedGroup } from './record-origin';
export type { OriginLayout, RecordOrigin } from './record-origin';
export { backoffMs } from './backoff';
export type { Random } from './backoff';
export { systemClock } from './clock';
export type { Clock } from './clock';
export { retryMetrics } from './metrics';
export type { RetryMetrics } from './metrics';
export type { RetryEvent, RetryEventListener } from './events';
export type { ConsumerPort, EachBatchPayload, EachMessagePayload, KafkaPort, OutgoingMessage, PortMessage, ProducerPort, RunOptions } from './port';
export { kafkajsPort } from './adapters/kafkajs';
export type { KafkaJsLike } from './adapters/kafkajs';
export { confluentPort } from './adapters/confluent';
export type { ConfluentKafkaClient, ConfluentKafkaLike } from './adapters/confluent';
export { platformaticPort } from './adapters/platformatic';
export type { PlatformaticKafkaLike, PlatformaticPortOptions } from './adapters/platformatic';
export { ClientCannotCarryError } from './adapters/platformatic-refusals';
export { HEADERS, SPRING_DLT_HEADERS, SPRING_RETRY_TOPIC_HEADERS } from '../naming/headers';
export type { HeaderStyle } from '../naming/headers';
export { METRICS } from '../naming/metrics';
export { formatDuration, parseDuration } from '../duration';
export type { Duration } from '../duration';
export { createDlqMonitor } from './monitor';
export type { DlqMonitor, DlqMonitorOptions, DlqSnapshot } from './monitor';
export type { MonitorPort } from './monitor-port';
export { kafkajsMonitorPort } from './adapters/kafkajs-monitor';
