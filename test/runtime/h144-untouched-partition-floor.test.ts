import { discardRecords } from '../../src/dlq/replay';
import { DlqSession } from '../../src/dlq/session';
import type { DlqRecord } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

// Review h144 of the handled-below floors (set-up as dlq-mid-step-attack.test.ts).
function setUp(): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  double.stampFrom(Date.now() - 86_400_000);
  for (let i = 0; i < 10; i++) {
    double.append(consumer.dlq.name, i % 2, {
      key: `order-${i}`,
      value: `order-value-${i}`,
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(i % 2), [HEADERS.originalOffset]: String(100 + i), [HEADERS.errorClass]: 'DownstreamTimeout' },
    });
  }
  return { consumer, double };
}

async function discard(double: DlqKafkaDouble, consumer: ConsumerModel, pick: (r: DlqRecord) => boolean): Promise<void> {
  const kafka = double.kafka();
  const session = await DlqSession.open(kafka, consumer);
  try {
    await discardRecords(kafka, session, session.records.filter(pick), { reason: 'test', by: 'tester' });
  } finally {
    await session.close();
  }
}

describe('a partition no command touched since its floor aged out, in a DLQ commands touch every day', () => {
  // What is seen: partition 1's five records were discarded, then deleted by the DLQ's
  // retention; commands went on in partition 0 (its dead letters kept coming, partition 1's
  // did not). A year on, the audit log's retention deleted every entry of partition 1's step,
  // its floor too: later steps write the floor of a partition their commit writes, and none
  // wrote partition 1's. Once the replay group idles a week (Kafka deletes all its offsets),
  // the fallback counts partition 1's five handled records as expired unhandled:
  // kafka_dlq_expired_total jumps by 5 and pages, and the next command commits the count.
  // Why: the floor was written per partition a step committed, not per partition of the DLQ.
  // Fixed: each replay or discard writes, before its first step, the floor of every partition
  // as it found it (src/dlq/replay.ts recordFloors), so each partition's latest floor is as
  // recent as the last command on the DLQ.
  it('counts none of its handled records as expired', async () => {
    const { consumer, double } = setUp();
    await discard(double, consumer, (r) => r.partition === 1);
    const first = double.messages(consumer.dlqAudit.name);
    expect(first.map((m) => m.key!.toString()).sort()).toEqual(['1:0', '1:1', '1:2', '1:3', '1:4', '1:handled-below-5']);
    await discard(double, consumer, (r) => r.partition === 0 && r.offset < 2n);
    double.deleteBelow(consumer.dlq.name, 1, 5n);
    for (const m of first) double.deleteBelow(consumer.dlqAudit.name, m.partition, m.offset + 1n);
    double.commits.delete(consumer.groups.replay);
    const fromAudit = await DlqSession.open(double.kafka(), consumer);
    await fromAudit.close();
    expect(fromAudit.records.map((r) => r.id)).toEqual(['0:2', '0:3', '0:4']);
    expect(fromAudit.expired).toEqual([]);
  });
});
