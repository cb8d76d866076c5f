import { compileTopologies } from '../src/compile';
import type { ConsumerModel, TopologyModel } from '../src/model/types';
import { benchKafka } from './kafka';
import { createTopicsWithLeaders } from '../scripts/kafka/serving';

/** A one-consumer topology of the DLQ benches, compiled from a spec as `krt` would: 3 partitions, one tier. */
export function benchTopology(consumerName: string, id: string): TopologyModel {
  const result = compileTopologies([
    {
      file: 'topologies/bench.ts',
      exported: {
        name: 'bench',
        owner: { team: 'bench', onCall: '#bench' },
        runbookBaseUrl: 'https://runbooks.example.com',
        consumers: [{ name: consumerName, topic: { name: `bench-${id}.orders`, partitions: 3 }, principal: 'User:bench', ladder: ['1m'] }],
      },
    },
  ]);
  return result.model!.topologies[0]!;
}

/** Creates every topic of the consumer (main, tiers, DLQ, audit log), 3 partitions each. */
export async function createConsumerTopics(consumer: ConsumerModel): Promise<void> {
  const admin = benchKafka().admin();
  await admin.connect();
  await createTopicsWithLeaders(admin, [consumer.mainTopic.name, consumer.dlq.name, consumer.dlqAudit.name, ...consumer.tiers.map((t) => t.name)].map((topic) => ({ topic, numPartitions: 3 })));
  await admin.disconnect();
}
