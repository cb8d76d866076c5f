import { applyDecorators, Injectable, SetMetadata } from '@nestjs/common';
import type { ConsumerDescriptor, ErrorClassifier } from '../../runtime';
import { KAFKA_RETRY_CONSUMER } from '../kafka-retry.constants';

export interface KafkaRetryConsumerOptions {
  /**
   * Asked first for this consumer's failures, before the mapping of Nest exceptions and
   * the runtime's table; return undefined to leave an error to them.
   */
  readonly classify?: ErrorClassifier | undefined;
}

export interface KafkaRetryConsumerMetadata {
  readonly descriptor: ConsumerDescriptor;
  readonly options: KafkaRetryConsumerOptions;
}

/**
 * Makes a provider (it is `@Injectable()` too) the handler of one consumer of a generated
 * router package: its `@OnRecord()` method runs for each record of the main topic and the
 * retry tiers.
 * `consumers` is the package's export of that name, so a name the spec lacks does not
 * compile.
 */
export function KafkaRetryConsumer<C extends Readonly<Record<string, ConsumerDescriptor>>, N extends keyof C & string>(
  consumers: C,
  name: N,
  options: KafkaRetryConsumerOptions = {},
): ClassDecorator {
  const metadata: KafkaRetryConsumerMetadata = { descriptor: consumers[name], options };
  return applyDecorators(Injectable(), SetMetadata(KAFKA_RETRY_CONSUMER, metadata));
}
