/**
 * A kafkajs partition assigner that gives one member partition p of every subscribed
 * topic, so the member that owns main partition p also owns tier partitions p, where
 * that partition's failures go (park-by-key keeps its per-partition state in one place).
 *
 * kafkajs ships only a round-robin assigner, which splits a partition number across
 * members. The bytes below are Kafka's ConsumerProtocol (version 0) that kafkajs's own
 * `AssignerProtocol` reads; the tests check them against it. Written here so that the
 * runtime does not import kafkajs.
 */

export const CO_PARTITIONED_ASSIGNER = 'KrtCoPartitioned';

interface ClusterLike {
  findTopicPartitionMetadata(topic: string): { partitionId: number }[];
}

interface KafkaJsAssigner {
  name: string;
  version: number;
  assign(group: { members: { memberId: string }[]; topics: string[] }): Promise<{ memberId: string; memberAssignment: Buffer }[]>;
  protocol(subscription: { topics: string[] }): { name: string; metadata: Buffer };
}

/** Partition number n of every topic goes to the n-th member (sorted by id), round the members. */
export function coPartitionedAssignment(memberIds: readonly string[], partitionsByTopic: ReadonlyMap<string, readonly number[]>): Map<string, Map<string, number[]>> {
  const members = [...memberIds].sort();
  const result = new Map(members.map((m) => [m, new Map<string, number[]>()]));
  for (const [topic, partitions] of [...partitionsByTopic].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const partition of [...partitions].sort((a, b) => a - b)) {
      const owner = result.get(members[partition % members.length]!)!;
      owner.set(topic, [...(owner.get(topic) ?? []), partition]);
    }
  }
  return result;
}

export const coPartitionedAssigner = ({ cluster }: { cluster: ClusterLike }): KafkaJsAssigner => ({
  name: CO_PARTITIONED_ASSIGNER,
  version: 0,
  async assign({ members, topics }) {
    const partitions = new Map(topics.map((topic) => [topic, cluster.findTopicPartitionMetadata(topic).map((m) => m.partitionId)]));
    const assignment = coPartitionedAssignment(
      members.map((m) => m.memberId),
      partitions,
    );
    return [...assignment].map(([memberId, byTopic]) => ({ memberId, memberAssignment: encodeMemberAssignment(byTopic) }));
  },
  protocol({ topics }) {
    return { name: CO_PARTITIONED_ASSIGNER, metadata: encodeMemberMetadata(topics) };
  },
});

const int16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const string = (s: string) => {
  const bytes = Buffer.from(s, 'utf8');
  return Buffer.concat([int16(bytes.length), bytes]);
};
const emptyUserData = int32(0);

/** ConsumerProtocolSubscription v0: version, topics, user data. */
export function encodeMemberMetadata(topics: readonly string[]): Buffer {
  return Buffer.concat([int16(0), int32(topics.length), ...topics.map(string), emptyUserData]);
}

/** ConsumerProtocolAssignment v0: version, (topic, partitions)[], user data. */
export function encodeMemberAssignment(byTopic: ReadonlyMap<string, readonly number[]>): Buffer {
  const topics = [...byTopic].map(([topic, partitions]) => Buffer.concat([string(topic), int32(partitions.length), ...partitions.map(int32)]));
  return Buffer.concat([int16(0), int32(topics.length), ...topics, emptyUserData]);
}
