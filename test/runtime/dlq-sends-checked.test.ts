import { replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import { HEADERS } from '../../src/naming/headers';
import { UnknownPartitionError } from '../../src/runtime/publish-failure';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';
import { recordEntries } from './audit-record-entries';

/**
 * Found by a review of the clients' silent successes (session 45): kafkajs's send() resolves
 * without writing a record whose partition the topic lacks, or, on a retry, one whose
 * partition's leader moved to a broker that answered before. The DLQ replay took such an
 * answer as published, audited the record and committed it as handled: it left the DLQ and
 * reached no topic; an audit entry left out so was lost with nothing said. Every DLQ tool send
 * now names each record's partition and checks kafkajs's answer (src/dlq/checked-send.ts).
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
    const refusal = await replay.then(() => undefined, (error: unknown) => error as Error);
    expect(refusal?.message).toContain(`kafkajs did not write the records for ${tier.name} partition ${partition}`);
    expect(refusal?.cause).toBeInstanceOf(UnknownPartitionError);
    await session.close();

    const after = await DlqSession.open(kafka, consumer);
    await after.close();
    expect({ unhandled: after.records.map((r) => r.id), audited: recordEntries(double, consumer.dlqAudit.name).length, published: double.messages(tier.name).length }).toEqual({ unhandled: ['0:0'], audited: 0, published: 0 });
  });

  it('an audit entry kafkajs leaves out while send() resolves stops the replay before its commit, and the rerun records every record once', async () => {
    const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
    const double = new DlqKafkaDouble();
    for (const topic of [consumer.mainTopic, consumer.dlq, consumer.dlqAudit, ...consumer.tiers]) double.createTopic(topic.name, topic.partitions);
    for (const i of [0, 1]) {
      double.append(consumer.dlq.name, 0, {
        key: `order-${i}`,
        value: 'v',
        headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'DownstreamTimeout' },
      });
    }
    const kafka = double.kafka();
    double.leaveOutNextSendTo.add(consumer.dlqAudit.name);
    const replayAll = async () => {
      const session = await DlqSession.open(kafka, consumer);
      try {
        await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 100, by: 'ana', clock });
      } finally {
        await session.close();
      }
    };
    await expect(replayAll()).rejects.toThrow(`kafkajs did not write the records for ${consumer.dlqAudit.name}`);
    await replayAll();

    const after = await DlqSession.open(kafka, consumer);
    await after.close();
    const audited = recordEntries(double, consumer.dlqAudit.name).map((m) => String(m.key));
    expect({ unhandled: after.records.length, audited: [...new Set(audited)].sort(), auditedOnce: audited.length === new Set(audited).size }).toEqual({ unhandled: 0, audited: ['0:0', '0:1'], auditedOnce: true });
    // Every record and entry waits for all in-sync replicas.
    expect(double.sends.filter((s) => s.acks !== -1)).toEqual([]);
  });
});
