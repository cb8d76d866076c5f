import { SetMetadata } from '@nestjs/common';
import { KAFKA_RETRY_HANDLER } from '../kafka-retry.constants';

/**
 * The method of a `@KafkaRetryConsumer()` class that handles one record: resolve when it
 * is done, throw when it failed (the exception decides where it goes). It receives the
 * record (`{ topic, partition, message }`).
 */
export const OnRecord = (): MethodDecorator => SetMetadata(KAFKA_RETRY_HANDLER, true);
