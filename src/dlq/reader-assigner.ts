import { AssignerProtocol } from 'kafkajs';
import type { PartitionAssigner } from 'kafkajs';

/** The protocol name every krt DLQ reader announces: readers of any krt version agree on it. */
export const EVERY_PARTITION_ASSIGNER = 'KrtDlqReadEverything';

/**
 * A kafkajs assigner that gives every member of the DLQ reader group every partition of
 * the topics it reads. The readers only read (they never commit progress), so two sessions
 * reading at once (the CLI and the console, two operators) do not split the DLQ between
 * them: with the round-robin assigner each would wait for the partitions the other holds,
 * until both time out. A member joining or leaving still makes the others rejoin; they
 * resume where they were.
 *
 * Members of one group may read different topics (the console's DLQ readers stay in the
 * group while it reads the audit log there): each gets the topics of its own subscription,
 * which the leader may not have read metadata for yet, since kafkajs hands the assigner the
 * leader's subscription only.
 */
export const everyPartitionAssigner: PartitionAssigner = ({ cluster }) => ({
  name: EVERY_PARTITION_ASSIGNER,
  version: 0,
  async assign({ members, topics }) {
    const subscriptions = members.map(({ memberId, memberMetadata }) => ({ memberId, topics: AssignerProtocol.MemberMetadata.decode(memberMetadata)?.topics ?? topics }));
    await cluster.addMultipleTargetTopics([...new Set(subscriptions.flatMap((s) => s.topics))]);
    return subscriptions.map(({ memberId, topics: read }) => {
      const assignment = Object.fromEntries(read.map((topic) => [topic, cluster.findTopicPartitionMetadata(topic).map((m) => m.partitionId)]));
      return { memberId, memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment, userData: Buffer.alloc(0) }) };
    });
  },
  protocol({ topics }) {
    return { name: EVERY_PARTITION_ASSIGNER, metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }) };
  },
});
