import { discardRecords, replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { DlqRecord } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import type { DlqKafkaDouble } from './dlq-kafka-double';
import { appendDeadLetters, deadLetterValues, dlqScenario, listedValues } from './dlq-double-scenario';

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

const auditEntries = (double: DlqKafkaDouble, consumer: ConsumerModel) => double.messages(consumer.dlqAudit.name).map((m) => JSON.parse(m.value!.toString()) as Record<string, unknown>);

describe.each(['replay', 'discard'] as const)('a %s where the admin reports topic ids', (action) => {
  it('names the DLQ topic\'s id in every audit entry it writes', async () => {
    const { consumer, double } = dlqScenario({ topicIds: true, stampFrom: T0 });
    await run(double, consumer, action);
    const ids = new Set(auditEntries(double, consumer).map((e) => e.dlqTopicId));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toEqual(expect.stringMatching(/^[\w-]{16,}$/));
  });

  it('lists every record of a DLQ created again with records of the same marks, once the commits are gone', async () => {
    const { consumer, double } = dlqScenario({ topicIds: true, stampFrom: T0 });
    await run(double, consumer, action);
    expect(await listedValues(double, consumer)).toEqual([]);
    double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
    double.stampFrom(T0);
    appendDeadLetters(double, consumer, 'other');
    // Kafka dropped the group's offsets with the topic: the fold of the audit log decides.
    expect(await listedValues(double, consumer)).toEqual(deadLetterValues('other'));
  });

  const where = action === 'replay' ? (['before its first publish', 'before its first audit entry'] as const) : (['before its first audit entry'] as const);
  it.each(where)('stops before its commit when the DLQ was created again, %s, as long as the old one; the new topic\'s records stay listed', async (step) => {
    const { consumer, double } = dlqScenario({ topicIds: true, stampFrom: T0 });
    let recreated = false;
    double.fault = (op) => {
      const at = op.kind === 'send' && op.topic === (step === 'before its first publish' ? consumer.tiers[0]!.name : consumer.dlqAudit.name);
      if (recreated || !at) return;
      recreated = true;
      double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
      double.stampFrom(T0);
      appendDeadLetters(double, consumer, 'other');
    };
    await expect(run(double, consumer, action, (r) => r.slice(0, 5))).rejects.toThrow(/topic id is .*, not the .* it read, so it was deleted and created again/);
    expect(recreated).toBe(true);
    double.fault = () => {};
    expect(await listedValues(double, consumer)).toEqual(deadLetterValues('other'));
  });
});

describe('audit entries of an earlier release (no topic id) written before an entry naming another id', () => {
  it('are of the earlier topic too: the new topic\'s records are listed', async () => {
    const { consumer, double } = dlqScenario({ topicIds: true, stampFrom: T0 });
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
    appendDeadLetters(double, consumer, 'other');
    expect(await listedValues(double, consumer)).toEqual(deadLetterValues('other'));
  });
});
