import { Injectable } from '@nestjs/common';
import { DiscoveryService, ExternalContextCreator, MetadataScanner, Reflector } from '@nestjs/core';
import type { ConsumedRecord } from '../runtime';
import type { KafkaRetryConsumerMetadata } from './decorators/kafka-retry-consumer.decorator';
import { KAFKA_RETRY_CONSUMER, KAFKA_RETRY_CONTEXT, KAFKA_RETRY_HANDLER } from './kafka-retry.constants';
import { ConsumerWiringError } from './consumer-wiring-error';

/** A `@KafkaRetryConsumer()` provider, found at bootstrap, with its `@OnRecord()` method wrapped as Nest wraps handlers. */
export interface ConsumerBinding extends KafkaRetryConsumerMetadata {
  readonly provider: string;
  readonly handler: (record: ConsumedRecord) => Promise<void>;
}

/** Waits for an Observable a handler or an RPC-style exception filter returned; its error is the record's failure. */
function settle(result: unknown): Promise<void> {
  const observable = result as { subscribe?: unknown } | null | undefined;
  if (typeof observable?.subscribe !== 'function') return Promise.resolve();
  return new Promise((resolve, reject) => (observable.subscribe as (o: object) => void)({ error: reject, complete: resolve }));
}

/**
 * Finds the handlers with DiscoveryService, like @nestjs/schedule and @nestjs/bullmq.
 * Each runs through Nest's ExternalContextCreator, so guards, interceptors and
 * exception filters (@UseFilters, global ones) apply as in a controller: a filter that
 * handles an error (returns a value) settles the record as done; one that rethrows, or
 * throws another exception, hands that exception to the classifier.
 */
@Injectable()
export class KafkaRetryExplorer {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly contextCreator: ExternalContextCreator,
  ) {}

  explore(): ConsumerBinding[] {
    const bindings: ConsumerBinding[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const metadata = wrapper.metatype ? this.reflector.get<KafkaRetryConsumerMetadata | undefined>(KAFKA_RETRY_CONSUMER, wrapper.metatype as Function) : undefined;
      if (!metadata) continue;
      if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) throw new ConsumerWiringError(`${wrapper.name} handles consumer ${metadata.descriptor.name}: a @KafkaRetryConsumer() provider must be a singleton (not request-scoped or transient).`);
      const instance = wrapper.instance as Record<string, (...args: unknown[]) => unknown>;
      const methods = this.scanner.getAllMethodNames(Object.getPrototypeOf(instance)).filter((m) => this.reflector.get(KAFKA_RETRY_HANDLER, instance[m]!));
      if (methods.length !== 1) throw new ConsumerWiringError(`${wrapper.name} handles consumer ${metadata.descriptor.name}: give exactly one of its methods @OnRecord() (found ${methods.length}).`);
      const method = methods[0]!;
      const run = this.contextCreator.create(instance, instance[method]!, method, undefined, undefined, undefined, undefined, { guards: true, interceptors: true, filters: true }, KAFKA_RETRY_CONTEXT);
      bindings.push({ ...metadata, provider: String(wrapper.name), handler: async (record) => settle(await run(record)) });
    }
    const names = bindings.map((b) => b.descriptor.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) throw new ConsumerWiringError(`two @KafkaRetryConsumer() providers handle consumer ${twice}: ${bindings.filter((b) => b.descriptor.name === twice).map((b) => b.provider).join(' and ')}; a consumer has one handler.`);
    return bindings;
  }
}
