import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

/**
 * h145 review: the console carries a count (summary-cache.ts) from one session to the next
 * while their handled versions are equal and the last record counted shows the same mark. A
 * DLQ created again with records of the same marks and nothing handled in either topic had
 * the same version: the old topic's count, groups and oldest record were carried onto the new
 * one. Where the session read the topic's id, the version names it.
 */
const T0 = Date.parse('2026-01-10T00:00:00.000Z');

function appendTen(double: DlqKafkaDouble, consumer: ConsumerModel, tag: string, errorClass: string): void {
  double.stampFrom(T0);
  for (let i = 0; i < 10; i++) {
    double.append(consumer.dlq.name, i % 2, {
      key: `${tag}-${i}`,
      value: `${tag}-value-${i}`,
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(i % 2), [HEADERS.originalOffset]: String(100 + i), [HEADERS.errorClass]: errorClass },
    });
  }
}

async function version(double: DlqKafkaDouble, consumer: ConsumerModel): Promise<string> {
  const session = await DlqSession.open(double.kafka(), consumer);
  await session.close();
  return session.handledVersion;
}

describe.each([true, false])('the handled version of a DLQ created again with records of the same marks (ids read: %s)', (ids) => {
  it(ids ? 'differs from the old topic\'s' : 'is the old topic\'s (without ids, nothing tells them apart here)', async () => {
    const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
    const double = new DlqKafkaDouble();
    double.reportsTopicIds = ids;
    for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
    appendTen(double, consumer, 'order', 'DownstreamTimeout');
    const before = await version(double, consumer);
    double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
    appendTen(double, consumer, 'other', 'Validation');
    const after = await version(double, consumer);
    if (ids) expect(after).not.toBe(before);
    else expect(after).toBe(before);
  });
});
