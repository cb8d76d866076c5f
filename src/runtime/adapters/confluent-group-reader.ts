import type { OffsetsAdminLike } from './group-offsets';

/** The parts of a Confluent KafkaJS-API consumer the reader uses. */
export interface ReaderConsumerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** An admin over the consumer's own librdkafka handle, connected after the consumer. */
  dependentAdmin(): OffsetsAdminLike;
}

/**
 * An admin of the group's commits and the topics' log starts for the Confluent client: one
 * over the handle of a consumer of the group that never subscribes, so never joins.
 *
 * Not a plain admin client: librdkafka (2.15.1) handles a group-offsets answer of
 * NOT_COORDINATOR (a coordinator just moved, or a broker just started) by asking the handle's
 * consumer group to look for the coordinator again (rdkafka_request.c
 * rd_kafka_handle_OffsetFetch, `rd_kafka_cgrp_op(rk->rk_cgrp, ...)`), and an admin's handle has
 * no consumer group: the process died by SIGSEGV (confluent-kafka-javascript #374, librdkafka
 * #5040). A consumer's handle has one, and this one, never subscribed, only looks the
 * coordinator up. Not the group's running consumer either: its reads would wait behind its
 * rebalances, which can wait for the very record that asked.
 *
 * Disconnecting destroys the handle (the consumer's), which is what group-offsets.ts's
 * retireAdminOnFailure needs to fail a request left waiting for the coordinator once.
 */
export function groupReaderAdmin(reader: ReaderConsumerLike): OffsetsAdminLike {
  const admin = reader.dependentAdmin();
  return {
    async connect() {
      await reader.connect();
      try {
        await admin.connect();
      } catch (error) {
        await reader.disconnect().catch(() => undefined);
        throw error;
      }
    },
    async disconnect() {
      try {
        await admin.disconnect();
      } finally {
        await reader.disconnect();
      }
    },
    fetchOffsets: (o) => admin.fetchOffsets(o),
    fetchTopicOffsets: (topic) => admin.fetchTopicOffsets(topic),
  };
}
