import { encodeMemberAssignment, encodeMemberMetadata } from './co-partition-assigner';

/** The protocol name every krt reader that needs whole topics announces: readers of any krt version agree on it. */
export const EVERY_PARTITION_ASSIGNER = 'KrtDlqReadEverything';

/** kafkajs's round-robin protocol name, the only one a monitor of an older release announces. */
export const KAFKAJS_ROUND_ROBIN = 'RoundRobinAssigner';

export interface ClusterLike {
  addMultipleTargetTopics(topics: string[]): Promise<unknown>;
  findTopicPartitionMetadata(topic: string): { partitionId: number }[];
}

export interface KafkaJsAssigner {
  name: string;
  version: number;
  assign(group: { members: { memberId: string; memberMetadata: Buffer }[]; topics: string[] }): Promise<{ memberId: string; memberAssignment: Buffer }[]>;
  protocol(subscription: { topics: string[] }): { name: string; metadata: Buffer };
}

/**
 * A kafkajs assigner, announced as `name`, that gives every member of the group every
 * partition of the topics it reads. For groups whose members only read (they never commit
 * progress): two reads at once (the CLI and the console, three replicas' monitors) do not
 * split a topic between them; with the round-robin assigner each would wait for the
 * partitions the other holds, until both time out. A member joining or leaving still makes
 * the others rejoin; they resume where they were.
 *
 * Members of one group may read different topics (the console's DLQ readers stay in the
 * group while it reads the audit log there; the monitor reads the DLQ and its audit log):
 * each gets the topics of its own subscription, which the leader may not have read metadata
 * for yet, since kafkajs hands the assigner the leader's subscription only.
 *
 * Written without kafkajs (as co-partition-assigner.ts) so that the runtime does not import it.
 */
export const everyPartitionAssignerNamed =
  (name: string) =>
  ({ cluster }: { cluster: ClusterLike }): KafkaJsAssigner => ({
    name,
    version: 0,
    async assign({ members, topics }) {
      const subscriptions = members.map(({ memberId, memberMetadata }) => ({ memberId, topics: subscribedTopics(memberMetadata) ?? topics }));
      await cluster.addMultipleTargetTopics([...new Set(subscriptions.flatMap((s) => s.topics))]);
      return subscriptions.map(({ memberId, topics: read }) => ({
        memberId,
        memberAssignment: encodeMemberAssignment(new Map(read.map((topic) => [topic, cluster.findTopicPartitionMetadata(topic).map((m) => m.partitionId)]))),
      }));
    },
    protocol({ topics }) {
      return { name, metadata: encodeMemberMetadata(topics) };
    },
  });

/** The assigner of the DLQ reader group, and the one the monitor prefers. */
export const everyPartitionAssigner = everyPartitionAssignerNamed(EVERY_PARTITION_ASSIGNER);

/**
 * The same assignment announced under kafkajs's round-robin name, second in a member's list:
 * the broker picks a protocol every member announces, so while a member of an older release
 * (round-robin only) is in the group this one is picked, and the old member is not refused
 * (INCONSISTENT_GROUP_PROTOCOL), nor is the new one. The old member only reads the assignment
 * it is handed: led by a new member, it too gets every partition; led by an old one, the
 * group is split as before the upgrade.
 */
export const everyPartitionAsRoundRobin = everyPartitionAssignerNamed(KAFKAJS_ROUND_ROBIN);

/** The topics of a ConsumerProtocolSubscription (any version: the topics come first), or undefined if unreadable. */
export function subscribedTopics(metadata: Buffer | undefined): string[] | undefined {
  try {
    if (!metadata || metadata.length < 6) return undefined;
    const count = metadata.readInt32BE(2);
    const topics: string[] = [];
    let at = 6;
    for (let i = 0; i < count; i++) {
      const length = metadata.readInt16BE(at);
      topics.push(metadata.toString('utf8', at + 2, at + 2 + length));
      at += 2 + length;
    }
    return topics;
  } catch {
    return undefined;
  }
}
