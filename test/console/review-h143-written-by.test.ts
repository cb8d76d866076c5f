import { kafkaConsoleDlq } from '../../src/console/kafka-dlq';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from '../runtime/dlq-kafka-double';

describe('review h143: the console\'s table of what a discard wrote, on a DLQ written in transactions', () => {
  // What is seen: 200 dead letters, each in its own transaction (record, commit marker), error
  // classes alternating; the console discards the 100 of class A. Each of them sits between two
  // markers, so the step writes 100 `discarded` entries and 199 `no-records` entries after them.
  // writtenBy looks for the step's entries among the newest 2 * 100 + 10 = 210 (kafka-dlq.ts:
  // "at most one more than its records" is wrong: up to two per record, one per side, and one
  // per partition whose earlier-handled border the step passes). The job's audit table lists
  // 11 of the 100 discards the operator just made. Nothing is lost from the log; the console's
  // confirmation undercounts. Fixed: look among 3 * ids.length + partitions + 10, or better,
  // read back to the first entry at or after `since` (the step's own start).
  it('lists every discarded record\'s entry after the discard', async () => {
    const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
    const double = new DlqKafkaDouble();
    for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
    for (let i = 0; i < 200; i++) {
      double.append(consumer.dlq.name, 0, { key: `order-${i}`, value: `{"n":${i}}`, headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.errorClass]: i % 2 === 0 ? 'A' : 'B' } });
      double.appendMarker(consumer.dlq.name, 0);
    }
    const dlq = kafkaConsoleDlq(double.kafka());
    try {
      const outcome = await dlq.discard(
        consumer,
        { keep: () => true, choose: (snapshot) => snapshot.records.filter((r) => r.decoded.errorClass === 'A') },
        { reason: 'bad data', by: 'ops', onProgress: () => undefined },
      );
      const written = double.messages(consumer.dlqAudit.name).map((m) => JSON.parse(m.value!.toString()) as { action: string });
      expect({ handled: outcome.handled.length, noRecords: written.filter((e) => e.action === 'no-records').length }).toEqual({ handled: 100, noRecords: 199 });
      expect(outcome.audit.length).toBe(100);
    } finally {
      await dlq.close?.();
    }
  });
});
