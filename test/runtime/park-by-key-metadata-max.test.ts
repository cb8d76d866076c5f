import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { KafkaPort, OffsetCommit } from '../../src/runtime/port';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { httpError, valueOf } from './harness';
import { consumer, T0 } from './park-by-key-world';

/**
 * A broker whose offset.metadata.max.bytes is below the runtime's park-by-key budget (4000
 * by default): past it every commit of the partition's state is refused
 * (OFFSET_METADATA_TOO_LARGE). Sent again as is, the same commit is refused again, and the
 * records it carries run and publish into the tier again and again.
 */
describe('park-by-key on a broker that keeps less commit metadata than the budget', () => {
  const BROKER_MAX_BYTES = 300;

  /** The memory broker, refusing commit metadata past BROKER_MAX_BYTES as Kafka does (kafkajs's error). */
  function refusingPort(broker: MemoryBroker, refused: number[]): KafkaPort {
    const port = broker.port();
    return {
      producer: () => port.producer(),
      consumer: (groupId, options) => {
        const c = port.consumer(groupId, options);
        const commitOffsets = c.commitOffsets.bind(c);
        c.commitOffsets = async (offsets: OffsetCommit[]) => {
          const largest = Math.max(0, ...offsets.map((o) => Buffer.byteLength(o.metadata ?? '')));
          if (largest > BROKER_MAX_BYTES) {
            refused.push(largest);
            throw Object.assign(new Error('The metadata field of the offset request was too large'), { name: 'KafkaJSProtocolError', type: 'OFFSET_METADATA_TOO_LARGE', code: 12, retriable: false });
          }
          return commitOffsets(offsets);
        };
        return c;
      },
    };
  }

  it('60 keys fail into the tier at once: each record runs on the main topic a bounded number of times, and every one succeeds in the tier', async () => {
    const clock = new VirtualClock(T0);
    const broker = new MemoryBroker(clock);
    broker.throwReaction = 'kafkajs'; // a refused commit thrown out of eachMessage: delivered again, as kafkajs does
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const KEYS = 60;
    for (let i = 0; i < KEYS; i++) broker.append(consumer.mainTopic, { key: Buffer.from(`order-${i}`), value: Buffer.from(`v${i}`), partition: 0 });
    const refused: number[] = [];
    const mainRuns = new Map<string, number>();
    const succeeded = new Set<string>();
    const retrying = createRetryingConsumer(consumer, {
      kafka: refusingPort(broker, refused),
      clock,
      random: () => 0.5,
      // The downstream is down for the main topic's first pass, back for the tier.
      handler: async (record: ConsumedRecord) => {
        if (record.topic === consumer.mainTopic) {
          mainRuns.set(valueOf(record), (mainRuns.get(valueOf(record)) ?? 0) + 1);
          throw httpError(503);
        }
        succeeded.add(valueOf(record));
      },
    });
    await retrying.start();
    await broker.run({ stopWhen: () => succeeded.size === KEYS, maxSteps: 20_000 }).catch(() => undefined); // an unsettled run is judged by what succeeded
    await retrying.stop();

    expect(refused.length).toBeGreaterThan(0); // the broker's limit was reached
    expect({ succeeded: succeeded.size, mostMainRuns: Math.max(...mainRuns.values()) <= 3 }).toEqual({ succeeded: KEYS, mostMainRuns: true });
  });
});
