import { groupOffsetsReader } from '../../src/runtime/adapters/group-offsets';
import type { OffsetsAdminLike } from '../../src/runtime/adapters/group-offsets';
import type { KafkaPort } from '../../src/runtime/port';
import type { MemoryBroker } from '../../src/simulate/memory-broker';

/** An admin answering fetchOffsets as kafkajs's does: each partition's stored offset as a string, '-1' when none. */
function kafkajsLikeAdmin(broker: MemoryBroker, groupId: string): OffsetsAdminLike {
  return {
    connect: async () => {},
    disconnect: async () => {},
    fetchOffsets: async ({ topics }) =>
      topics.map((topic) => ({
        topic,
        partitions: [0, 1].map((partition) => ({
          partition,
          offset: String(broker.committedOffset(groupId, topic, partition) ?? -1),
          metadata: broker.committedMetadata(groupId, topic, partition),
        })),
      })),
    fetchTopicOffsets: async (topic) => [0, 1].map((partition) => ({ partition, low: String(broker.logStartOf(topic, partition)) })),
  };
}

/** The memory broker's port, its consumers reading their group's commits as the kafkajs adapter does (groupOffsetsReader). */
export function readingAsKafkajsAdapter(broker: MemoryBroker): void {
  const port = broker.port.bind(broker);
  broker.port = (): KafkaPort => {
    const inner = port();
    return {
      ...inner,
      consumer: (groupId, options) => {
        const c = inner.consumer(groupId, options);
        const offsets = groupOffsetsReader(() => kafkajsLikeAdmin(broker, groupId), groupId);
        c.committed = (topic, partitions) => offsets.committed(topic, partitions);
        return c;
      },
    };
  };
}
