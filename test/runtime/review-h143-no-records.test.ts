import { replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

const clock = (() => {
  let now = 0;
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
})();

function consumerModel(): ConsumerModel {
  return compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
}

function scene() {
  const consumer = consumerModel();
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  const record = (i: number) => ({ key: `order-${i}`, value: `value-${i}`, headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'X' } });
  return { consumer, double, record };
}

async function replayAll(double: DlqKafkaDouble, consumer: ConsumerModel): Promise<void> {
  const kafka = double.kafka();
  const session = await DlqSession.open(kafka, consumer);
  try {
    await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 100, by: 'tester', clock });
  } finally {
    await session.close();
  }
}

const noRecordsEntries = (double: DlqKafkaDouble, consumer: ConsumerModel) =>
  double
    .messages(consumer.dlqAudit.name)
    .map((m) => JSON.parse(m.value!.toString()) as Record<string, unknown>)
    .filter((e) => e.action === 'no-records')
    .map((e) => [e.from, e.to, e.offset]);

describe('review h143: no-record ranges that touch, passed by two replays (the DLQ end between them)', () => {
  // What is seen: offset 0 a record (its transaction's commit marker at 1); a first replay
  // (DLQ end 2) replays 0 and passes the marker 1 (entry 1-1, border 0). A transaction is then
  // aborted (its records 2-3 and abort marker: here three offsets with no record, 2-4), then
  // record 5 and its marker 6. A second replay reads from the commit (2): the range 2-4 is
  // bordered by offset 1, handled below the commit, so its entry names border 1 (a marker, no
  // record entry names it). Once the group's offsets are gone, the fold takes a range only when
  // its border is handled by the *record* entries (isHandled on the state before any range is
  // added, handledFromAuditLogSliced): 2-4 is left out, for good. `krt dlq inspect` lists no
  // record but the backlog reads 3 (kafka_dlq_size 3 in the monitor: the DLQ alert pages on
  // markers), and the write-back (restoreCommits) writes the same entry (border 1) again.
  // Class: the fold's rule is not closed under the session's (a border handled by an earlier
  // range); the loss is alerts for nothing, never a hidden record.
  // Fix: in the fold, take the bordered ranges to a fixpoint (sorted by offset, each range
  // whose border the state *with the ranges taken so far* handles), or have the session name
  // as border the handled record the earlier range hangs on.
  it.failing('rebuilds a backlog of 0 after both replays, once the group\'s offsets are gone', async () => {
    const { consumer, double, record } = scene();
    double.append(consumer.dlq.name, 0, record(0));
    double.appendMarker(consumer.dlq.name, 0);
    await replayAll(double, consumer);
    for (let i = 0; i < 3; i++) double.appendMarker(consumer.dlq.name, 0);
    double.append(consumer.dlq.name, 0, record(5));
    double.appendMarker(consumer.dlq.name, 0);
    await replayAll(double, consumer);
    expect(noRecordsEntries(double, consumer)).toEqual([['1', '1', '0'], ['2', '4', '1'], ['6', '6', '5']]);
    const live = await DlqSession.open(double.kafka(), consumer);
    await live.close();
    expect(live.backlog).toBe(0);
    double.commits.delete(consumer.groups.replay);
    const rebuilt = await DlqSession.open(double.kafka(), consumer);
    await rebuilt.close();
    expect({ records: rebuilt.records.length, backlog: rebuilt.backlog }).toEqual({ records: 0, backlog: 0 });
  });

  // What is seen: the write-back of the rebuilt state (a replay of nothing: restoreCommits)
  // audits the range 2-4 again with border 1, and the next rebuild still reads a backlog of 3.
  it.failing('the write-back of the rebuilt state makes the next rebuild pass the range', async () => {
    const { consumer, double, record } = scene();
    double.append(consumer.dlq.name, 0, record(0));
    double.appendMarker(consumer.dlq.name, 0);
    await replayAll(double, consumer);
    for (let i = 0; i < 3; i++) double.appendMarker(consumer.dlq.name, 0);
    double.append(consumer.dlq.name, 0, record(5));
    double.appendMarker(consumer.dlq.name, 0);
    await replayAll(double, consumer);
    double.commits.delete(consumer.groups.replay);
    await replayAll(double, consumer);
    expect(noRecordsEntries(double, consumer).slice(3)).toEqual([['2', '4', '1']]);
    double.commits.delete(consumer.groups.replay);
    const rebuilt = await DlqSession.open(double.kafka(), consumer);
    await rebuilt.close();
    expect(rebuilt.backlog).toBe(0);
  });
});
