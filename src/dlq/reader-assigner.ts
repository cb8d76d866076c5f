import { AssignerProtocol } from 'kafkajs';
import type { PartitionAssigner } from 'kafkajs';

/** The protocol name every krt DLQ reader announces: readers of any krt version agree on it. */
export const EVERY_PARTITION_ASSIGNER = 'KrtDlqReadEverything';

/**
 * A kafkajs assigner that gives every member of the DLQ reader group every partition. The
 * readers only read (they never commit progress), so two sessions reading at once (the
 * CLI and the console, two operators) do not split the DLQ between them: with the
 * round-robin assigner each would wait for the partitions the other holds, until both time
 * out. A member joining or leaving still makes the others rejoin; they resume where they were.
 */
export const everyPartitionAssigner: PartitionAssigner = ({ cluster }) => ({
  name: EVERY_PARTITION_ASSIGNER,
  version: 0,
  async assign({ members, topics }) {
    const assignment = Object.fromEntries(topics.map((topic) => [topic, cluster.findTopicPartitionMetadata(topic).map((m) => m.partitionId)]));
    return members.map(({ memberId }) => ({ memberId, memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment, userData: Buffer.alloc(0) }) }));
  },
  protocol({ topics }) {
    return { name: EVERY_PARTITION_ASSIGNER, metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }) };
  },
});
