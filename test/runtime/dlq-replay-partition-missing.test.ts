import { replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

/**
 * Found by a review of the clients' silent successes (session 45): kafkajs's send() resolves
 * without writing a record whose partition the topic lacks, and the DLQ replay took the answer
 * as published, audited the record and committed it as handled: it left the DLQ and reached no
 * topic. That happens when the live topic has fewer partitions than the spec says (a topic
 * created by hand, drift). The replay now checks what kafkajs says it wrote, as the runtime does.
 */
const clock = { now: () => 0, sleep: async () => {} };

describe('a replay into a tier that lacks the record\'s original partition (the live topic smaller than the spec)', () => {
  it('fails naming the partition, and leaves the record unhandled in the DLQ', async () => {
    const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
    const double = new DlqKafkaDouble();
    for (const topic of [consumer.mainTopic, consumer.dlq, consumer.dlqAudit, ...consumer.tiers.slice(1)]) double.createTopic(topic.name, topic.partitions);
    const tier = consumer.tiers[0]!;
    double.createTopic(tier.name, 1);
    const partition = tier.partitions - 1;
    double.append(consumer.dlq.name, 0, {
      key: 'order-1',
      value: 'v',
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(partition), [HEADERS.originalOffset]: '7', [HEADERS.errorClass]: 'DownstreamTimeout' },
    });
    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    const replay = replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 100, by: 'ana', clock });
    await expect(replay).rejects.toThrow(`${tier.name} has no partition ${partition}`);
    await session.close();

    const after = await DlqSession.open(kafka, consumer);
    await after.close();
    expect({ unhandled: after.records.map((r) => r.id), audited: double.messages(consumer.dlqAudit.name).length, published: double.messages(tier.name).length }).toEqual({ unhandled: ['0:0'], audited: 0, published: 0 });
  });
});
