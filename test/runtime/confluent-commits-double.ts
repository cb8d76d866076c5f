import { commitConfirmed } from '../../src/runtime/adapters/confirmed-commit';
import type { CommittingConsumerLike } from '../../src/runtime/adapters/confirmed-commit';
import type { KafkaPort, OffsetCommit } from '../../src/runtime/port';
import type { MemoryBroker } from '../../src/simulate/memory-broker';

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
