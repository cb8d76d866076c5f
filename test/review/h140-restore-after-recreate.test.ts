/**
 * Review h140: restoreCommits (src/dlq/session.ts), run at the start of a replay or discard
 * whose session rebuilt a partition's handled state from the audit log, writes its `expired`
 * entries (the gaps retention deleted below the log start) BEFORE anything checks that the DLQ
 * is still the log the session read; only the commit after it checks (checkSameLog). A DLQ
 * deleted and created again between the open and the restore gets an entry about the old log:
 * "expired: partition 1, belowOffset 3, count 2" in the audit log of the new one.
 *
 * Seen (double below): the replay is refused at the commit ("... is not the topic this session
 * read"), but one audit entry was written first. The fold skips it while the new log's start is
 * below 3; once retention moves the new log's start past it, the fallback takes it as this
 * log's: the new log's records below 3 are counted by the old log's count (2), not their own,
 * in kafka_dlq_expired_total and the DLQ tools' expired line. Class: a write of a
 * step before its same-log check (12919b9 checks before the publish and the commit; the
 * restore's audit is a third write). Fixed: restoreCommits checks the log before its audit.
 */
import { replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from '../runtime/dlq-kafka-double';

const clock = (() => {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
})();

it('a DLQ created again before a replay restores the handled state gets no audit entry of the old log', async () => {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  double.stampFrom(Date.now() - 86_400_000);
  const append = (tag: string, count: number) => {
    for (let i = 0; i < count; i++) {
      double.append(consumer.dlq.name, i % 2, {
        key: `${tag}-${i}`,
        value: `${tag}-value-${i}`,
        headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(i % 2), [HEADERS.originalOffset]: String(100 + i), [HEADERS.errorClass]: 'DownstreamTimeout' },
      });
    }
  };
  append('order', 10);
  const kafka = double.kafka();
  // Record 1:0 replayed; then retention deletes 1:1 and 1:2 unhandled, and Kafka deletes the idle group's offsets.
  const first = await DlqSession.open(kafka, consumer);
  await replayRecords(kafka, first, first.records.filter((r) => r.partition === 1 && r.offset === 0n), { route: replayRoute(consumer), rate: 100, by: 'tester', clock }).finally(() => first.close());
  double.deleteBelow(consumer.dlq.name, 1, 3n);
  double.commits.delete(consumer.groups.replay);
  const session = await DlqSession.open(kafka, consumer);
  const auditBefore = double.messages(consumer.dlqAudit.name).length;
  // The DLQ deleted and created again after the open, a few dead letters already in it.
  double.recreateTopic(consumer.dlq.name, consumer.dlq.partitions);
  double.stampFrom(Date.now());
  append('fresh', 2);
  const outcome = await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 100, by: 'tester', clock })
    .then(() => 'replayed', (error: Error) => error.message)
    .finally(() => session.close());
  expect(outcome).toMatch(/not the topic this session read/);
  expect(double.messages(consumer.dlqAudit.name).slice(auditBefore).map((m) => m.value!.toString())).toEqual([]);
});
