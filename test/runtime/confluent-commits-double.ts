import { commitConfirmed } from '../../src/runtime/adapters/confirmed-commit';
import type { CommittingConsumerLike } from '../../src/runtime/adapters/confirmed-commit';
import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort, OffsetCommit } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { httpError, valueOf } from './harness';
import { consumer } from './park-by-key-world';

/**
 * The memory broker behind the Confluent adapter's commit (commitConfirmed): commits matching
 * `lost` answer (commitAsync: once queued) but are not stored, `times` times in all.
 */
export function confluentCommits(broker: MemoryBroker, lost: (o: OffsetCommit) => boolean, times: number): KafkaPort {
  const port = broker.port();
  let losses = 0;
  return {
    producer: () => port.producer(),
    consumer: (groupId, options) => {
      const c = port.consumer(groupId, options);
      const store = c.commitOffsets.bind(c);
      const read = c.committed.bind(c);
      // One client per consumer, as the adapter has (commitConfirmed remembers its suspects per client).
      const client: CommittingConsumerLike = {
        commitOffsets: async (o) => {
          if (losses < times && o.some(lost)) {
            losses++;
            return;
          }
          await store(o);
        },
        committed: async (partitions) => Promise.all(partitions.map(async ({ topic, partition }) => ({ topic, ...(await read(topic, [partition]))[0]! }))),
      };
      c.commitOffsets = (offsets) => commitConfirmed(client, offsets, 0);
      return c;
    },
  };
}

/**
 * A park-by-key member on the Confluent client over the memory broker (every topic of one
 * partition), its commits through confluentCommits (`lost`, `times` times). Its handler notes
 * each record as `key:value`, and fails it (a 503, ` FAIL` noted) while `fails` says so.
 */
export function confluentParkByKeyMember(options: { now: number; lost: (o: OffsetCommit) => boolean; times?: number; fails: (label: string, record: ConsumedRecord) => boolean }) {
  const clock = new VirtualClock(options.now);
  const broker = new MemoryBroker(clock);
  broker.throwReaction = 'confluent';
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  const handled: string[] = [];
  const events: RetryEvent[] = [];
  const start = async () => {
    const retrying = createRetryingConsumer(consumer, {
      kafka: confluentCommits(broker, options.lost, options.times ?? 2),
      clock,
      random: () => 0.5,
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        const label = `${record.message.key?.toString()}:${valueOf(record)}`;
        if (options.fails(label, record)) {
          handled.push(`${label} FAIL`);
          throw httpError(503);
        }
        handled.push(label);
      },
    });
    await retrying.start();
    return retrying;
  };
  const produce = (key: string, value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
  return { clock, broker, handled, events, start, produce };
}
