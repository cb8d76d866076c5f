import { groupRecords, recordJson } from '../../src/dlq/inspect';
import { discardRecords, replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { encodeSpringRetryTopicHeaders } from '../../src/runtime/spring-headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';
import { recordEntries } from './audit-record-entries';

const clock = { now: () => 0, sleep: async () => {} };

function dlq(count: number): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  for (let i = 0; i < count; i++) {
    double.append(consumer.dlq.name, 0, { key: `order-${i}`, value: `value-${i}`, headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'DownstreamTimeout' } });
  }
  return { consumer, double };
}

const published = (double: DlqKafkaDouble, consumer: ConsumerModel) => double.messages(consumer.tiers[0]!.name).map((m) => String(m.headers[HEADERS.replayedFromDlq]).split('/')[1]!);

describe('krt dlq sessions one after another and at once', () => {
  it('a session opened before another replayed its records publishes only what is still unhandled when its turn comes', async () => {
    const { consumer, double } = dlq(3);
    const kafka = double.kafka();
    const first = await DlqSession.open(kafka, consumer);
    const second = await DlqSession.open(kafka, consumer);
    await replayRecords(kafka, first, first.records.slice(0, 2), { route: replayRoute(consumer), rate: 100, by: 'a', clock });
    await first.close();
    const result = await replayRecords(kafka, second, second.records, { route: replayRoute(consumer), rate: 100, by: 'b', clock });
    await second.close();
    expect({ replayed: result.replayed, published: published(double, consumer) }).toEqual({ replayed: 1, published: ['0:0', '0:1', '0:2'] });
  });

  it('a discard while a replay holds the consumer is refused with one sentence and changes nothing', async () => {
    const { consumer, double } = dlq(2);
    const kafka = double.kafka();
    const replaying = await DlqSession.open(kafka, consumer);
    await replaying.hold();
    const other = await DlqSession.open(kafka, consumer);
    const outcome = await discardRecords(kafka, other, other.records, { reason: 'superseded', by: 'b' }).then(String, (e: Error) => e.message);
    await Promise.all([replaying.close(), other.close()]);
    expect({ outcome, audited: recordEntries(double, consumer.dlqAudit.name).length }).toEqual({
      outcome: `another krt dlq command is replaying or discarding records of ${consumer.name} (krt on /127.0.0.1 in group ${consumer.groups.replay}); nothing was published. Wait for it to end, then run this one again`,
      audited: 0,
    });
  });

  it('the lease is given back at the end of a replay: the next command on the consumer runs', async () => {
    const { consumer, double } = dlq(2);
    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    await replayRecords(kafka, session, session.records.slice(0, 1), { route: replayRoute(consumer), rate: 100, by: 'a', clock });
    const next = await DlqSession.open(kafka, consumer);
    await discardRecords(kafka, next, next.records, { reason: 'superseded', by: 'b' });
    await Promise.all([session.close(), next.close()]);
    expect(recordEntries(double, consumer.dlqAudit.name).map((m) => m.key!.toString())).toEqual(['0:0', '0:1']);
  });

  it('a commit marker between records becomes handled once the record before it is, and not before', async () => {
    const { consumer, double } = dlq(2);
    double.appendMarker(consumer.dlq.name, 0);
    double.append(consumer.dlq.name, 0, { key: 'order-3', value: 'value-3', headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: '3' } });
    const kafka = double.kafka();
    const committed = () => double.commits.get(consumer.groups.replay)?.get(`${consumer.dlq.name}:0`)?.offset;
    const session = await DlqSession.open(kafka, consumer);
    await replayRecords(kafka, session, session.records.filter((r) => r.id === '0:0'), { route: replayRoute(consumer), rate: 100, by: 'a', clock });
    const afterFirst = committed();
    await replayRecords(kafka, session, session.records.filter((r) => r.id === '0:1'), { route: replayRoute(consumer), rate: 100, by: 'a', clock });
    await session.close();
    expect({ ids: session.records.map((r) => r.id), afterFirst, afterSecond: committed() }).toEqual({ ids: ['0:0', '0:1', '0:3'], afterFirst: '1', afterSecond: '3' });
  });
});

describe('DLQ records in Spring\'s @RetryableTopic layout (kafka_original-* headers only)', () => {
  it('inspect groups them by Spring\'s exception class and original topic, and --json names the original record', async () => {
    const { consumer, double } = dlq(0);
    const headers = encodeSpringRetryTopicHeaders({
      originalTopic: consumer.mainTopic.name,
      originalPartition: 2,
      originalOffset: '41',
      originalTimestamp: 1_700_000_000_000,
      consumerGroup: consumer.groups.main,
      exceptionFqcn: 'org.example.PaymentDeclined',
      exceptionMessage: 'card expired',
      attempts: 4,
      backoffTimestamp: 1_700_000_060_000,
    });
    double.append(consumer.dlq.name, 0, { key: 'order-1', value: 'v', headers });
    const session = await DlqSession.open(double.kafka(), consumer);
    await session.close();
    const [group] = groupRecords(session.records);
    const json = recordJson(session.records[0]!);
    expect({ group: [group!.errorClass, group!.originalTopic, group!.example], origin: [json.originalPartition, json.originalOffset, json.originalTimestamp] }).toEqual({
      group: ['org.example.PaymentDeclined', consumer.mainTopic.name, 'card expired'],
      origin: [2, '41', '2023-11-14T22:13:20.000Z'],
    });
  });
});
