import { Registry } from 'prom-client';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer, RetryingConsumerOptions } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';

/**
 * A main record's value that fits the main topic but whose copy, with the retry headers, is
 * over the world's first limit (2,000 bytes): it is held until the operator raises the limit.
 */
export const BIG = `big${'x'.repeat(1_897)}`;

export interface HeldMainWorldOptions {
  /** Wraps the port whose producer refuses large copies (hidingControlRecords, withoutHighWatermark). */
  readonly port?: (refusingLargeCopies: KafkaPort) => KafkaPort;
  /** Whether each payload names its topic's id (@platformatic/kafka), or none (kafkajs, the default). */
  readonly topicIds?: 'fetch' | 'none';
  /** More options for every consumer the world starts (maxPublishesInFlight, commit). */
  readonly consumerOptions?: Partial<RetryingConsumerOptions>;
  /** Default: a main record valued `big…` fails with a 503, every other record is noted in `succeeded` (and every main record's run in `mainRuns`). */
  readonly handler?: (record: ConsumedRecord) => Promise<void>;
}

/**
 * An unordered consumer of one main partition, on a broker where a main record's copy is
 * refused as too large, by its tier and by the DLQ alike, until the operator raises
 * `maxMessageBytes`. The broker outlives the consumers the world starts, so a test can stop
 * one and start the next, as a restart or a deploy does.
 */
export class HeldMainWorld {
  readonly consumer: ConsumerDescriptor;
  readonly clock = new VirtualClock(1_000_000);
  readonly broker = new MemoryBroker(this.clock);
  readonly events: RetryEvent[] = [];
  readonly succeeded: string[] = [];
  /** With the default handler: the value of every run of a main record, failed or not. */
  readonly mainRuns: string[] = [];
  /** The broker's max.message.bytes, as the producer's port applies it to every request. */
  maxMessageBytes = 2_000;
  private readonly kafka: KafkaPort;
  private running: RetryingConsumer | undefined;

  constructor(private readonly options: HeldMainWorldOptions = {}) {
    this.consumer = billingDescriptor();
    for (const topic of [this.consumer.mainTopic, ...this.consumer.tiers.map((t) => t.topic), this.consumer.dlqTopic]) this.broker.createTopic(topic, 1);
    const refusingLargeCopies = checkedSends(this.broker, (records) => {
      if (records.some((r) => r.messages.some((m) => messageBytes(m) > this.maxMessageBytes))) throw tooLargeError();
    }, options.topicIds);
    this.kafka = options.port ? options.port(refusingLargeCopies) : refusingLargeCopies;
  }

  /** Creates and starts a retrying consumer of the world's consumer: the one `stop` and `restart` stop. */
  async start(): Promise<RetryingConsumer> {
    const retrying = createRetryingConsumer(this.consumer, {
      kafka: this.kafka,
      clock: this.clock,
      registry: new Registry(),
      random: () => 0.5,
      ...this.options.consumerOptions,
      onEvent: (e) => this.events.push(e),
      handler: this.options.handler ?? ((record) => this.failingBig(record)),
    });
    await retrying.start();
    this.running = retrying;
    return retrying;
  }

  /** Stops the consumer started last. */
  async stop(): Promise<void> {
    await this.running?.stop();
  }

  /**
   * A restart or a deploy: stops the consumer started last, starts the next (which reads each
   * partition from the group's commit), runs it a minute and stops it too.
   */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
    await this.runFor(60_000);
    await this.stop();
  }

  /** The main topic deleted and created again with no rebalance (kafkajs rejoins only when the partition ids change). */
  recreateMainTopic(): void {
    this.broker.recreateTopic(this.consumer.mainTopic, { rebalance: false });
  }

  /** Appends a record to the main topic's partition 0. */
  produce(value: string, key = 'k'): void {
    this.broker.append(this.consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
  }

  /**
   * Runs the broker for `ms` of virtual time. A step's error is not the test's subject here:
   * the outcome is judged by what ran and what was committed.
   */
  async runFor(ms: number, maxSteps = 5_000): Promise<void> {
    await this.broker.run({ until: this.clock.now() + ms, maxSteps }).catch(() => undefined);
  }

  /** How many of the world's events are of this type. */
  count(type: RetryEvent['type']): number {
    return this.events.filter((e) => e.type === type).length;
  }

  /** The main group's commit of the main topic's partition. */
  committed(): number | undefined {
    return this.broker.committedOffset(this.consumer.groups.main, this.consumer.mainTopic, 0);
  }

  private async failingBig(record: ConsumedRecord): Promise<void> {
    if (record.topic === this.consumer.mainTopic) this.mainRuns.push(valueOf(record));
    if (record.topic === this.consumer.mainTopic && valueOf(record).startsWith('big')) throw httpError(503);
    this.succeeded.push(valueOf(record));
  }
}
