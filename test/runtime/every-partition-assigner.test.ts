import { AssignerProtocol } from 'kafkajs';
import { everyPartitionAsRoundRobin, everyPartitionAssigner, subscribedTopics } from '../../src/runtime/adapters/every-partition-assigner';

const cluster = (partitions: Record<string, number>) => ({
  addMultipleTargetTopics: async () => undefined,
  findTopicPartitionMetadata: (topic: string) => Array.from({ length: partitions[topic] ?? 0 }, (_, partitionId) => ({ partitionId })),
});
const member = (memberId: string, topics: string[]) => ({ memberId, memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }) });

describe('the assigner that gives every member every partition', () => {
  it('gives each member every partition of the topics it subscribed to, as kafkajs reads an assignment', async () => {
    const assigner = everyPartitionAssigner({ cluster: cluster({ 'orders.dlq': 3, 'orders.dlq.audit': 2 }) });
    const assignments = await assigner.assign({ members: [member('a', ['orders.dlq']), member('b', ['orders.dlq.audit']), member('c', ['orders.dlq'])], topics: ['orders.dlq'] });
    expect(assignments.map(({ memberId, memberAssignment }) => [memberId, AssignerProtocol.MemberAssignment.decode(memberAssignment)?.assignment])).toEqual([
      ['a', { 'orders.dlq': [0, 1, 2] }],
      ['b', { 'orders.dlq.audit': [0, 1] }],
      ['c', { 'orders.dlq': [0, 1, 2] }],
    ]);
  });

  it('keeps the protocol name DLQ readers of earlier releases announce, and offers kafkajs’s round-robin name second', () => {
    const c = cluster({});
    expect([everyPartitionAssigner({ cluster: c }).name, everyPartitionAsRoundRobin({ cluster: c }).name]).toEqual(['KrtDlqReadEverything', 'RoundRobinAssigner']);
  });

  it('announces a subscription kafkajs reads, and reads the one kafkajs announces', () => {
    const announced = everyPartitionAssigner({ cluster: cluster({}) }).protocol({ topics: ['orders.dlq', 'orders.dlq.audit'] }).metadata;
    expect([AssignerProtocol.MemberMetadata.decode(announced)?.topics, subscribedTopics(member('a', ['orders.dlq']).memberMetadata), subscribedTopics(Buffer.alloc(1))]).toEqual([
      ['orders.dlq', 'orders.dlq.audit'],
      ['orders.dlq'],
      undefined,
    ]);
  });
});
