import { createAuditTail } from '../../src/runtime/monitor-audit-tail';
import type { ReadFrom } from '../../src/runtime/monitor-audit-tail';
import { auditMessages } from '../../src/dlq/audit';
import type { DlqRecord } from '../../src/dlq/session';
import { aConsumer, aTopology, compile } from '../helpers/specs';

type Line = { partition: number; offset: string; value: string };

/** An audit topic in memory whose partitions can be appended to, or replaced by a new topic of the same name. */
function auditTopic() {
  let log: Line[][] = [[], []];
  const append = (partition: number, fields: Record<string, unknown> | string) =>
    log[partition]!.push({ partition, offset: String(log[partition]!.length), value: typeof fields === 'string' ? fields : JSON.stringify(fields) });
  const read: ReadFrom = async (_topic, from) => ({
    records: log.flatMap((lines, partition) => lines.filter((l) => BigInt(l.offset) >= BigInt(from.get(partition) ?? '0'))),
    ends: new Map(log.map((lines, partition) => [partition, String(lines.length)])),
  });
  return { append, read, recreate: () => void (log = [[], []]) };
}

const replayed = (dlqTopic: string, offset: number) => ({ action: 'replayed', by: 'ops', reason: 'fixed', dlqTopic, partition: 0, offset: String(offset) });

describe('the audit log as the monitor keeps it between polls', () => {
  it('keeps the entries about its own DLQ that the handled state is folded from, and only the fields the fold reads', async () => {
    const topic = auditTopic();
    topic.append(0, replayed('orders.dlq', 3));
    topic.append(1, replayed('payments.dlq', 4));
    topic.append(1, { action: 'inspected', dlqTopic: 'orders.dlq' });
    topic.append(0, 'not json');
    const tail = createAuditTail(topic.read, 'orders.dlq.audit', 'orders.dlq');
    expect(await tail.entries()).toEqual([{ fields: { dlqTopic: 'orders.dlq', action: 'replayed', partition: 0, offset: '3' } }]);
  });

  it('adds what was written since the last read to what it kept', async () => {
    const topic = auditTopic();
    topic.append(0, replayed('orders.dlq', 1));
    const tail = createAuditTail(topic.read, 'orders.dlq.audit', 'orders.dlq');
    await tail.entries();
    topic.append(0, replayed('orders.dlq', 2));
    expect((await tail.entries()).map((e) => e.fields.offset)).toEqual(['1', '2']);
  });

  it('forgets what it kept when the audit topic was created again (its end fell below where the last read stopped)', async () => {
    const topic = auditTopic();
    topic.append(0, replayed('orders.dlq', 1));
    topic.append(0, replayed('orders.dlq', 2));
    const tail = createAuditTail(topic.read, 'orders.dlq.audit', 'orders.dlq');
    await tail.entries();
    topic.recreate();
    topic.append(0, replayed('orders.dlq', 7));
    expect((await tail.entries()).map((e) => e.fields.offset)).toEqual(['7']);
  });
});

describe('the entries the monitor keeps, against what the DLQ tools write', () => {
  it('keeps every kind of entry a step writes about its DLQ, so the monitor folds what the sessions fold', async () => {
    const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
    const record = { id: '0:4', partition: 0, offset: 4n, mark: 'm', replayCount: 0, decoded: { originalTopic: consumer.mainTopic.name, errorClass: 'Timeout' } } as unknown as DlqRecord;
    const written = auditMessages(
      consumer,
      {
        records: [record],
        entry: { action: 'discarded', by: 'ops', reason: 'fixed' },
        expired: [{ partition: 0, total: 2, unrecorded: 2, logStart: 2n }],
        noRecords: [{ partition: 0, from: 5n, to: 6n, border: 4n }],
        handledBelow: [{ partition: 0, belowOffset: 7n, expiredTotal: 2n }],
      },
      0,
    );
    const topic = auditTopic();
    for (const m of written) topic.append(0, m.value);
    const tail = createAuditTail(topic.read, consumer.dlqAudit.name, consumer.dlq.name);
    expect((await tail.entries()).map((e) => e.fields.action)).toEqual(written.map((m) => (JSON.parse(m.value) as { action: string }).action));
    expect(new Set(written.map((m) => (JSON.parse(m.value) as { action: string }).action))).toEqual(new Set(['expired', 'discarded', 'no-records', 'handled-below']));
  });
});
