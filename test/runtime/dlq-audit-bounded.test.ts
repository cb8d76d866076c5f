import { AUDIT_COPIED_CHARS, AUDIT_STEP_BYTES } from '../../src/dlq/audit';
import { discardRecords, replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';
import type { Operation } from './dlq-kafka-double';

/*
 * Found by the attack on #25: a dead letter's x-error-class is whatever its producer wrote.
 * 600 KB of `"` fit the DLQ and the tier, but its audit entry (the text JSON-escaped, 1.2 MB)
 * was refused by the audit log after the record was published: the replay stopped before
 * its commit, unaudited, and every try published it again. An entry now copies at most
 * AUDIT_COPIED_CHARS of any text it did not choose, and a step is cut to what its audit
 * entries fit before anything of it is published.
 */

function dlqWith(errorClasses: readonly string[]): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  // The DLQ and the tier take records of several megabytes, as a DLQ raised for big records does; the audit log has Kafka's default.
  double.maxBatchBytes = 1_048_588;
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  errorClasses.forEach((errorClass, i) =>
    double.append(consumer.dlq.name, 0, {
      key: `order-${i}`,
      value: '{}',
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: errorClass },
    }),
  );
  return { consumer, double };
}

async function replayAll(double: DlqKafkaDouble, consumer: ConsumerModel): Promise<void> {
  const kafka = double.kafka();
  const session = await DlqSession.open(kafka, consumer);
  try {
    await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 1_000, by: 'ana' });
  } finally {
    await session.close();
  }
}

const auditValues = (double: DlqKafkaDouble, consumer: ConsumerModel) => double.messages(consumer.dlqAudit.name).map((m) => JSON.parse(m.value!.toString()) as Record<string, unknown>);
/** The entries naming a record (each step also writes its partitions' `handled-below` floor). */
const recordEntries = (double: DlqKafkaDouble, consumer: ConsumerModel) => auditValues(double, consumer).filter((v) => v.action === 'replayed' || v.action === 'discarded');

describe('a replay of a dead letter whose headers hold a huge text', () => {
  it('publishes it once with its audit entry, which copies the start of the text and says how long it was', async () => {
    const { consumer, double } = dlqWith(['"'.repeat(600_000)]);
    // The tier takes the big record (the double checks the audit log's batch the same way).
    double.maxBatchBytes = 2_000_000;
    await replayAll(double, consumer);
    expect(double.messages(consumer.tiers[0]!.name)).toHaveLength(1);
    const [entry] = auditValues(double, consumer);
    expect(entry).toMatchObject({ action: 'replayed', offset: '0', errorClass: `${'"'.repeat(AUDIT_COPIED_CHARS)}… (600000 characters in all)` });
    expect(double.messages(consumer.dlqAudit.name)[0]!.value!.length).toBeLessThan(10_000);
  });

  it('is handled, so a second replay publishes nothing again', async () => {
    const { consumer, double } = dlqWith(['"'.repeat(600_000)]);
    double.maxBatchBytes = 2_000_000;
    await replayAll(double, consumer);
    await replayAll(double, consumer);
    expect(double.messages(consumer.tiers[0]!.name)).toHaveLength(1);
    expect(recordEntries(double, consumer)).toHaveLength(1);
  });
});

describe('a step whose audit entries together would not fit one send', () => {
  // 300 records whose error names escape to six bytes a character: about 6 KB of entry each, 1.8 MB in all.
  const hostile = Array.from({ length: 300 }, (_, i) => `${'\u0001'.repeat(AUDIT_COPIED_CHARS)}${i}`);

  it('is published, audited and committed in parts, each part audited before the next is published', async () => {
    const { consumer, double } = dlqWith(hostile);
    const seen: Operation[] = [];
    double.fault = (op) => void seen.push(op);
    await replayAll(double, consumer);
    const sends = seen.filter((op): op is Extract<Operation, { kind: 'send' }> => op.kind === 'send');
    expect(sends.length).toBeGreaterThan(2);
    // Tier, audit log, tier, audit log ...: never two publishes without the audit between them.
    const order = seen.filter((op) => op.kind === 'send' || op.kind === 'commit').map((op) => (op.kind === 'commit' ? 'commit' : op.topic === consumer.dlqAudit.name ? 'audit' : 'publish'));
    expect(order.join(' ')).toMatch(/^(publish audit commit ?)+$/);
    expect(double.messages(consumer.tiers[0]!.name)).toHaveLength(300);
    expect(new Set(recordEntries(double, consumer).map((v) => `${String(v.partition)}:${String(v.offset)}`)).size).toBe(300);
  });

  it('keeps each part of the audit log within AUDIT_STEP_BYTES', async () => {
    const { consumer, double } = dlqWith(hostile);
    const counts: number[] = [];
    double.fault = (op) => void (op.kind === 'send' && op.topic === consumer.dlqAudit.name && counts.push(op.count));
    await replayAll(double, consumer);
    const entryBytes = Math.max(...double.messages(consumer.dlqAudit.name).map((m) => m.value!.length + m.key!.length));
    for (const count of counts) expect(count * entryBytes).toBeLessThanOrEqual(AUDIT_STEP_BYTES + entryBytes);
  });
});

describe('a step of a DLQ written in transactions (a marker after each record)', () => {
  // The `no-records` entries of the markers a step's commit passes go with its record entries: the part is cut to fit both.
  it('keeps each part of the audit log, its no-records entries included, within AUDIT_STEP_BYTES', async () => {
    const hostile = Array.from({ length: 200 }, (_, i) => `${'\u0001'.repeat(AUDIT_COPIED_CHARS)}${i}`);
    const { consumer, double } = dlqWith([]);
    hostile.forEach((errorClass, i) => {
      double.append(consumer.dlq.name, 0, { key: `order-${i}`, value: '{}', headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: errorClass } });
      double.appendMarker(consumer.dlq.name, 0);
    });
    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    // Each audit send's bytes, measured at the next send and at the end (the fault hook runs before a send).
    const sends: number[] = [];
    let before = 0;
    let sent = false;
    const measure = () => {
      const all = double.messages(consumer.dlqAudit.name).reduce((sum, m) => sum + m.value!.length + m.key!.length, 0);
      if (sent) sends.push(all - before);
      before = all;
    };
    double.fault = (op) => {
      if (op.kind !== 'send' || op.topic !== consumer.dlqAudit.name) return;
      measure();
      sent = true;
    };
    try {
      // Every other record: each has a marker on either side that its commit passes.
      await replayRecords(kafka, session, session.records.filter((_, i) => i % 2 === 0), { route: replayRoute(consumer), rate: 1_000, by: 'ana' });
    } finally {
      await session.close();
    }
    measure();
    const values = auditValues(double, consumer);
    // Every marker but the last (after record 199, not replayed).
    expect(values.filter((v) => v.action === 'no-records')).toHaveLength(199);
    const entryBytes = Math.max(...double.messages(consumer.dlqAudit.name).map((m) => m.value!.length + m.key!.length));
    for (const bytes of sends) expect(bytes).toBeLessThanOrEqual(AUDIT_STEP_BYTES + 3 * entryBytes);
    expect(sends.length).toBeGreaterThan(1);
  });
});

describe('a discard with a reason longer than an audit entry copies', () => {
  it('records the start of the reason and how long it was, and discards every record once', async () => {
    const { consumer, double } = dlqWith(['Timeout', 'Timeout']);
    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    try {
      await discardRecords(kafka, session, session.records, { reason: 'r'.repeat(5_000), by: 'ana' });
    } finally {
      await session.close();
    }
    const entries = recordEntries(double, consumer);
    expect(entries).toHaveLength(2);
    for (const entry of entries) expect(entry.reason).toBe(`${'r'.repeat(AUDIT_COPIED_CHARS)}… (5000 characters in all)`);
  });
});
