import { discardRecords, replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { DlqRecord } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

/**
 * A DLQ topic deleted and created again under its name, where the admin reports topic ids (the
 * CLI reads them through the Confluent client, src/connection/topic-ids.ts): the new topic has
 * another id, so neither a step's check nor the audit log's fold takes it for the log read,
 * even where its records match the old ones offset for offset (the cases kafkajs alone misses:
 * test/runtime/dlq-mid-step-attack.test.ts, dlq-audit-other-log-attack.test.ts).
 */
const clock = (() => {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
})();
const T0 = Date.parse('2026-01-10T00:00:00.000Z');

function setUp(): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  double.reportsTopicIds = true;
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  double.stampFrom(T0);
  appendTen(double, consumer, 'order');
  return { consumer, double };
}

/** Ten records; 'order' and 'other' are as long, so two topics stamped from the same time hold records of the same marks. */
function appendTen(double: DlqKafkaDouble, consumer: ConsumerModel, tag: string): void {
  for (let i = 0; i < 10; i++) {
    double.append(consumer.dlq.name, i % 2, {
      key: `${tag}-${i}`,
      value: `${tag}-value-${i}`,
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(i % 2), [HEADERS.originalOffset]: String(100 + i), [HEADERS.errorClass]: 'DownstreamTimeout' },
    });
  }
}

async function run(double: DlqKafkaDouble, consumer: ConsumerModel, action: 'replay' | 'discard', pick: (records: readonly DlqRecord[]) => readonly DlqRecord[] = (r) => r): Promise<void> {
  const kafka = double.kafka();
  const session = await DlqSession.open(kafka, consumer);
  try {
    if (action === 'replay') await replayRecords(kafka, session, pick(session.records), { route: replayRoute(consumer), rate: 100, by: 'tester', clock });
    else await discardRecords(kafka, session, pick(session.records), { reason: 'test', by: 'tester' });
  } finally {
    await session.close();
  }
}

async function listed(double: DlqKafkaDouble, consumer: ConsumerModel): Promise<string[]> {
  const session = await DlqSession.open(double.kafka(), consumer);
  await session.close();
  return session.records.map((r) => r.value!.toString()).sort();
}

const values = (tag: string) => Array.from({ length: 10 }, (_, i) => `${tag}-value-${i}`).sort();
const auditEntries = (double: DlqKafkaDouble, consumer: ConsumerModel) => double.messages(consumer.dlqAudit.name).map((m) => JSON.parse(m.value!.toString()) as Record<string, unknown>);

describe.each(['replay', 'discard'] as const)('a %s where the admin reports topic ids', (action) => {
  it('names the DLQ topic\'s id in every audit entry it writes', async () => {
    const { consumer, double } = setUp();
    await run(double, consumer, action);
    const ids = new Set(auditEntries(double, consumer).map((e) => e.dlqTopicId));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toEqual(expect.stringMatching(/^[\w-]{16,}$/));
  });

  it('lists every record of a DLQ created again with records of the same marks, once the commits are gone', async () => {
    const { consumer, double } = setUp();
    await run(double, consumer, action);
    expect(await listed(double, consumer)).toEqual([]);
    double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
    double.stampFrom(T0);
    appendTen(double, consumer, 'other');
    // Kafka dropped the group's offsets with the topic: the fold of the audit log decides.
    expect(await listed(double, consumer)).toEqual(values('other'));
  });

  const where = action === 'replay' ? (['before its first publish', 'before its first audit entry'] as const) : (['before its first audit entry'] as const);
  it.each(where)('stops before its commit when the DLQ was created again, %s, as long as the old one; the new topic\'s records stay listed', async (step) => {
    const { consumer, double } = setUp();
    let recreated = false;
    double.fault = (op) => {
      const at = op.kind === 'send' && op.topic === (step === 'before its first publish' ? consumer.tiers[0]!.name : consumer.dlqAudit.name);
      if (recreated || !at) return;
      recreated = true;
      double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
      double.stampFrom(T0);
      appendTen(double, consumer, 'other');
    };
    await expect(run(double, consumer, action, (r) => r.slice(0, 5))).rejects.toThrow(/topic id is .*, not the .* it read, so it was deleted and created again/);
    expect(recreated).toBe(true);
    double.fault = () => {};
    expect(await listed(double, consumer)).toEqual(values('other'));
  });
});

describe('audit entries of an earlier release (no topic id) written before an entry naming another id', () => {
  it('are of the earlier topic too: the new topic\'s records are listed', async () => {
    const { consumer, double } = setUp();
    const old = double.messages(consumer.dlq.name);
    // The release before ids named the first five records, without an id (and without a mark).
    for (const m of old.slice(0, 5)) {
      const value = { action: 'replayed', by: 'ops', at: new Date(T0 + 60_000).toISOString(), consumer: consumer.name, dlqTopic: consumer.dlq.name, partition: m.partition, offset: m.offset.toString() };
      double.append(consumer.dlqAudit.name, 0, { key: `${m.partition}:${m.offset}`, value: JSON.stringify(value) });
    }
    // This release replays the rest, naming the old topic's id.
    await run(double, consumer, 'replay', (r) => r);
    double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
    double.stampFrom(T0);
    appendTen(double, consumer, 'other');
    expect(await listed(double, consumer)).toEqual(values('other'));
  });
});
