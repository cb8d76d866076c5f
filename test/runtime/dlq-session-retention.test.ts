import { discardRecords } from '../../src/dlq/replay';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

function dlqOf(records: number): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  for (let i = 0; i < records; i++) {
    double.append(consumer.dlq.name, 0, {
      key: `order-${i}`,
      value: `value-${i}`,
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'OrderValidationError' },
    });
  }
  return { consumer, double };
}

async function unhandledOffsets(double: DlqKafkaDouble, consumer: ConsumerModel): Promise<bigint[]> {
  const session = await DlqSession.open(double.kafka(), consumer);
  await session.close();
  return session.records.map((r) => r.offset);
}

describe('a DLQ session when retention passes the replay group offset while it opens', () => {
  it('keeps the handled records handled: the next session lists only the unhandled ones still in the log', async () => {
    const { consumer, double } = dlqOf(1000);
    const kafka = double.kafka();
    const first = await DlqSession.open(kafka, consumer);
    // 700 records handled beyond the committed offset 0 (a discard of one error class, say).
    await discardRecords(kafka, first, first.records.filter((r) => r.offset >= 200n && r.offset < 900n), { reason: 'superseded', by: 'tester' });
    await first.close();
    expect(await unhandledOffsets(double, consumer)).toHaveLength(300);

    // Retention deletes records 0-49 after the session read the offsets, before its first
    // fetch: the client finds its position out of range, resets it and commits the reset.
    let moved = false;
    double.beforeFirstFetch = (_group, topic, partition) => {
      if (topic === consumer.dlq.name && partition === 0 && !moved) {
        moved = true;
        double.deleteBelow(topic, 0, 50n);
      }
    };
    await unhandledOffsets(double, consumer);
    expect(moved).toBe(true);
    double.beforeFirstFetch = () => {};

    const left = await unhandledOffsets(double, consumer);
    expect(left).toHaveLength(150 + 100);
    expect(left.filter((o) => o >= 200n && o < 900n)).toEqual([]);
  });
});

describe('a DLQ session commit', () => {
  it('keeps the records another commit recorded as handled since the session opened', async () => {
    const { consumer, double } = dlqOf(1000);
    const kafka = double.kafka();
    const slow = await DlqSession.open(kafka, consumer);
    const other = await DlqSession.open(kafka, consumer);
    await discardRecords(kafka, other, other.records.filter((r) => r.offset >= 900n), { reason: 'test events', by: 'alice' });
    await other.close();
    await discardRecords(kafka, slow, slow.records.filter((r) => r.offset < 100n), { reason: 'superseded', by: 'bob' });
    await slow.close();
    expect(await unhandledOffsets(double, consumer)).toEqual(Array.from({ length: 800 }, (_, i) => BigInt(100 + i)));
  });
});

describe('a DLQ session when retention passes its position and only offsets without records are left', () => {
  it('reads to the end instead of stalling: the markers past the log start are taken, not passed over as fetched before a seek', async () => {
    const { consumer, double } = dlqOf(3);
    // A transaction's commit marker after the three records; retention then deletes the records, before the first fetch.
    double.appendMarker(consumer.dlq.name, 0);
    double.beforeFirstFetch = (_group, topic, partition) => {
      if (topic === consumer.dlq.name && partition === 0) double.deleteBelow(topic, 0, 3n);
    };
    const session = await DlqSession.open(double.kafka(), consumer, 2_000);
    await session.close();
    expect(session.records).toEqual([]);
  });
});
