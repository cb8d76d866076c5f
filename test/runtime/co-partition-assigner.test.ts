import { AssignerProtocol } from 'kafkajs';
import { coPartitionedAssigner } from '../../src/runtime/adapters/co-partition-assigner';

const partitions: Record<string, number> = { 'orders.confirmed': 3, 'orders.confirmed.retry.1m': 3, 'orders.confirmed.retry.10m': 3 };
const cluster = { findTopicPartitionMetadata: (topic: string) => Array.from({ length: partitions[topic]! }, (_, partitionId) => ({ partitionId })) };
const topics = Object.keys(partitions);

describe('the co-partitioned assigner for kafkajs (park-by-key)', () => {
  it('gives one member partition p of the main topic and of every tier', async () => {
    const assigner = coPartitionedAssigner({ cluster });
    const result = await assigner.assign({ members: [{ memberId: 'm-b' }, { memberId: 'm-a' }], topics });
    const decoded = Object.fromEntries(result.map((r) => [r.memberId, AssignerProtocol.MemberAssignment.decode(r.memberAssignment)!.assignment]));
    expect(decoded).toEqual({
      'm-a': { 'orders.confirmed': [0, 2], 'orders.confirmed.retry.10m': [0, 2], 'orders.confirmed.retry.1m': [0, 2] },
      'm-b': { 'orders.confirmed': [1], 'orders.confirmed.retry.10m': [1], 'orders.confirmed.retry.1m': [1] },
    });
  });

  it('assigns every partition exactly once, and nothing to members beyond the partition count', async () => {
    const members = ['a', 'b', 'c', 'd', 'e'].map((memberId) => ({ memberId }));
    const result = await coPartitionedAssigner({ cluster }).assign({ members, topics });
    const owned = result.flatMap((r) => Object.entries(AssignerProtocol.MemberAssignment.decode(r.memberAssignment)!.assignment).flatMap(([t, ps]) => ps.map((p) => `${t}/${p}`)));
    expect(owned.sort()).toEqual(topics.flatMap((t) => [0, 1, 2].map((p) => `${t}/${p}`)).sort());
    expect(result.map((r) => AssignerProtocol.MemberAssignment.decode(r.memberAssignment)!.assignment)).toContainEqual({});
  });

  it('writes its subscription in the bytes kafkajs reads', () => {
    const { name, metadata } = coPartitionedAssigner({ cluster }).protocol({ topics });
    expect(name).toBe('KrtCoPartitioned');
    expect(AssignerProtocol.MemberMetadata.decode(metadata)).toEqual({ version: 0, topics, userData: Buffer.alloc(0) });
  });
});
