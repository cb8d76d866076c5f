import { discardRecords } from '../../src/dlq/replay';
import { DlqSession } from '../../src/dlq/session';
import type { DlqRecord } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import type { DlqKafkaDouble } from './dlq-kafka-double';
import { appendDeadLetters, byValue, dlqScenario, listedValues } from './dlq-double-scenario';

/**
 * h145 review: a session opened on the DLQ before it was deleted and created again writes
 * its floors (`handled-below`, naming the old topic's id) at the start of a replay or
 * discard, before any check that the topic is still the log it read. Those entries are
 * stamped after the new topic's own entries, and the fold leaves out every entry written no
 * later than an entry naming another id: the new topic's entries written without an id (a
 * machine without the Confluent client, or a session whose id read failed at open) go with
 * them, and the records they handled are listed, and replayed, again.
 */
const T0 = Date.parse('2026-01-10T00:00:00.000Z');
const HOUR = 3_600_000;

async function discard(double: DlqKafkaDouble, consumer: ConsumerModel, at: number, pick: (records: readonly DlqRecord[]) => readonly DlqRecord[]): Promise<void> {
  const kafka = double.kafka();
  const session = await DlqSession.open(kafka, consumer);
  try {
    await discardRecords(kafka, session, pick(session.records), { reason: 'test', by: 'tester' }, { now: () => at });
  } finally {
    await session.close();
  }
}

describe('a session opened before the DLQ was created again', () => {
  it('writes no audit entry naming the old topic once it is gone: the new topic\'s entries written without an id stay this log\'s', async () => {
    const { consumer, double } = dlqScenario({ topicIds: true, stampFrom: T0 });
    // The old topic: four records discarded, so each partition has a floor.
    await discard(double, consumer, T0 + 60_000, (r) => byValue(r).slice(0, 4));
    // A console or `krt dlq` session opens on the old topic (its id read), and waits.
    const kafka = double.kafka();
    const stale = await DlqSession.open(kafka, consumer);
    // The DLQ is deleted and created again; ten new records.
    double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
    double.stampFrom(T0 + HOUR);
    appendDeadLetters(double, consumer, 'other');
    // A machine without the Confluent client discards five of the new topic's records.
    double.reportsTopicIds = false;
    await discard(double, consumer, T0 + 2 * HOUR, (r) => byValue(r).slice(0, 5));
    double.reportsTopicIds = true;
    expect(await listedValues(double, consumer)).toHaveLength(5);
    // The stale session now discards: refused, as the topic is another.
    await expect(discardRecords(kafka, stale, stale.records.slice(0, 1), { reason: 'stale', by: 'tester' }, { now: () => T0 + 3 * HOUR })).rejects.toThrow(/deleted and created again/);
    await stale.close();
    const stamped = double.messages(consumer.dlqAudit.name).map((m) => JSON.parse(m.value!.toString()) as Record<string, unknown>);
    expect(stamped.filter((e) => e.at === new Date(T0 + 3 * HOUR).toISOString())).toEqual([]);
    // A week later Kafka deleted the replay group's commits: the audit log decides.
    double.commits.delete(consumer.groups.replay);
    expect(await listedValues(double, consumer)).toEqual(['other-value-5', 'other-value-6', 'other-value-7', 'other-value-8', 'other-value-9']);
  });
});
