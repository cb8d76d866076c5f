import { withTopicIds } from '../../src/connection/topic-ids';
import { discardRecords } from '../../src/dlq/replay';
import { DlqSession } from '../../src/dlq/session';
import { appendDeadLetters, byValue, dlqScenario } from './dlq-double-scenario';

/**
 * h145 review: a session reads the DLQ's id at open before its offsets and records. A DLQ
 * deleted and created again between that read and the rest of the open (an open reads the
 * whole DLQ and, without commits, the whole audit log: minutes for a large one) gave a session
 * of the old id over the new topic's records: its fold took the old topic's entries (naming
 * the id it read) as this log's, and hid the new records at their offsets from `inspect`, a
 * console page and a replay's selection (a step was refused by its check, so nothing wrong
 * was committed). The open reads the id again once it read the log, and refuses a change.
 */
const T0 = Date.parse('2026-01-10T00:00:00.000Z');

describe('a session whose open straddles the DLQ being created again', () => {
  it('lists no fewer records of the topic made again than are unhandled in it (or refuses to open)', async () => {
    const { consumer, double } = dlqScenario({ topicIds: true, stampFrom: T0 });
    {
      const session = await DlqSession.open(double.kafka(), consumer);
      await discardRecords(double.kafka(), session, byValue(session.records).slice(0, 6), { reason: 'old', by: 'tester' }, { now: () => T0 + 60_000 });
      await session.close();
    }
    const plain = double.kafka();
    let reads = 0;
    const read = async (topic: string): Promise<string | undefined> => {
      const [described] = (await plain.admin().fetchTopicMetadata({ topics: [topic] })).topics as { topicId?: string }[];
      // Right after the open's first id read: the DLQ deleted and created again, its records stamped an hour
      // later (other marks: without ids the fold would tell the old entries by them).
      if (++reads === 1 && topic === consumer.dlq.name) {
        double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
        double.stampFrom(T0 + 3_600_000);
        appendDeadLetters(double, consumer, 'other');
      }
      return described?.topicId;
    };
    let listed: string[] | undefined;
    try {
      const session = await DlqSession.open(withTopicIds(double.kafka(), read), consumer);
      await session.close();
      listed = session.records.map((r) => r.value!.toString()).sort();
    } catch (error) {
      expect(String(error)).toMatch(/created again/);
      return;
    }
    expect(listed).toHaveLength(10);
  });
});
