import { Registry } from 'prom-client';
import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';
import { CONTROL_RECORD, hidingControlRecords, withoutHighWatermark } from './control-record-port';

/**
 * Found by attack 17 (its widened held-anchor property, seed 17, shrunk; with the maxInFlight
 * wait patched locally so the property got past attack17-in-flight-limit-held-*): LOST records.
 *
 * Scenario: a at 0 runs and is committed (1, acknowledged); big at 1 is held (no copy fits), its
 * partition paused. The main topic is deleted and created again (no rebalance), and the new log's
 * offset 0 is one no client hands out: the producer's transaction the deletion broke was aborted
 * (its record and the abort marker are skipped), or a commit marker, or compaction. The new log's
 * records n1 to n3 follow. The operator raises the DLQ's limit.
 *
 * Seen: n1 never runs. resumeOffsetAfterHold reads the group's commit: none, below the acknowledged
 * 1, not this member's own, so it knows the log is new and seeks to 0. But nothing is started over
 * there: the new log is recognised only by its first record being at offset 0 (progressOf's
 * isNewLog(first, acknowledged): `first === 0n`). The first record handed out is n1, at 1, below
 * the progress's next offset 2: progress.resume takes it for a record this member finished (the
 * old log's big at 1) and seeks past it, to 2.
 *
 * Code at fault: src/runtime/main-pipeline.ts holdPaused/resumeOffsetAfterHold, which finds a new
 * log and leaves the judgement to the next batch, and src/runtime/new-log.ts isNewLog, which
 * takes only a record at exactly offset 0 for a new log's start (the client reads from the log's
 * start; its first record there need not be at 0). The same rule, without a hold, reads any main
 * partition whose new log hides offset 0 past its first records (kafkajs's read from the earliest
 * after a fetch out of range, attack 9's recreated-topic-without-rebalance path): the second case.
 * Controls, checked while writing them: with a plain record at offset 0 both cases pass.
 *
 * Class: a new log taken for the old one, by an offset taken for a record (as
 * attack17-anchor-gap-in-new-log-reads-on: offsets with no record in them).
 *
 * Fix I'd make: when resumeOffsetAfterHold finds the group's commit gone or below what was
 * acknowledged (not its own), start the partition over there (startOver, partitions.delete) before
 * it seeks to 0, rather than leaving it to a record at offset 0; and in progressOf take the first
 * batch after a seek or reset to the log's start (not only a record at 0) for the start.
 *
 * The held case is fixed: a resume that finds the group's commit moved back starts the partition
 * over there (main-pipeline.ts holdPaused). The case without a hold is fixed too (session 33): a
 * batch below the partition's next offset with no rebalance is judged by the last record taken
 * (resume-anchor.ts judgeRewind): the log's high watermark before it, or another record at its
 * offset, is a new log; a batch ending before it is sought to it and judged there.
 */
let maxMessageBytes = 2_000;

describe('unordered: a main topic created again (no rebalance) while a record is held, its new log with no record at offset 0', () => {
  it('runs every record of the new log once the limit is raised', async () => {
    maxMessageBytes = 2_000;
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const events: RetryEvent[] = [];
    const succeeded: string[] = [];
    const retrying = createRetryingConsumer(consumer, {
      kafka: hidingControlRecords(
        checkedSends(broker, (records) => {
          if (records.some((r) => r.messages.some((m) => messageBytes(m) > maxMessageBytes))) throw tooLargeError();
        }),
      ),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        if (record.topic === consumer.mainTopic && valueOf(record).startsWith('big')) throw httpError(503);
        succeeded.push(valueOf(record));
      },
    });
    await retrying.start();
    const produce = (value: string) => broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from(value), partition: 0 });
    produce('a');
    produce(`big${'x'.repeat(1_897)}`); // offset 1: fits the main topic, no copy fits
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    expect({ held: events.filter((e) => e.type === 'publish-held').length, committed: broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0) }).toEqual({ held: 1, committed: 1 });

    broker.recreateTopic(consumer.mainTopic, { rebalance: false });
    produce(CONTROL_RECORD); // the new log's offset 0: an aborted record, never handed out
    for (let i = 1; i < 4; i++) produce(`n${i}`);
    maxMessageBytes = 4_000; // the operator raises the DLQ's max.message.bytes
    await broker.run({ until: clock.now() + 120_000, maxSteps: 10_000 }).catch(() => undefined);
    await retrying.stop();
    expect(events.filter((e) => e.type === 'routed').length).toBe(1); // big's copy went out
    // Seen: ['n2', 'n3'].
    expect(succeeded.filter((v) => v.startsWith('n'))).toEqual(['n1', 'n2', 'n3']);
  }, 30_000);
});

describe('unordered: a main topic created again (no rebalance), read from its earliest record, its new log with no record at offset 0', () => {
  it('runs every record of the new log, not only those past the old log\'s commit', async () => {
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const succeeded: string[] = [];
    const retrying = createRetryingConsumer(consumer, {
      kafka: hidingControlRecords(broker.port()),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      handler: async (record: ConsumedRecord) => void succeeded.push(valueOf(record)),
    });
    await retrying.start();
    const produce = (value: string) => broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from(value), partition: 0 });
    for (const value of ['a', 'b', 'c']) produce(value);
    await broker.run({ until: clock.now() + 10_000, maxSteps: 5_000 });
    expect(broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(3);

    broker.recreateTopic(consumer.mainTopic, { rebalance: false });
    produce(CONTROL_RECORD); // the new log's offset 0: an aborted record, never handed out
    produce('n1');
    broker.readFromEarliest(consumer.mainTopic, 0); // kafkajs: its fetch at 3 is out of range on the new log (its end is 2)
    await broker.run({ until: clock.now() + 10_000, maxSteps: 5_000 });
    await retrying.stop();
    // Seen: []: n1 at 1 is below the progress's next offset 3, taken for a finished record, and read past.
    expect(succeeded.filter((v) => v.startsWith('n'))).toEqual(['n1']);
  });
});

describe('unordered: the same, with a client that does not tell the high watermark', () => {
  it('runs the new log\'s records once a record reaches the old log\'s last record taken', async () => {
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const succeeded: string[] = [];
    const retrying = createRetryingConsumer(consumer, {
      kafka: withoutHighWatermark(hidingControlRecords(broker.port())),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      handler: async (record: ConsumedRecord) => void succeeded.push(valueOf(record)),
    });
    await retrying.start();
    const produce = (value: string) => broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from(value), partition: 0 });
    for (const value of ['a', 'b', 'c']) produce(value);
    await broker.run({ until: clock.now() + 10_000, maxSteps: 5_000 });

    broker.recreateTopic(consumer.mainTopic, { rebalance: false });
    produce(CONTROL_RECORD);
    produce('n1');
    broker.readFromEarliest(consumer.mainTopic, 0);
    await broker.run({ until: clock.now() + 10_000, maxSteps: 5_000 });
    const beforeMore = succeeded.filter((v) => v.startsWith('n'));
    for (const value of ['n2', 'n3']) produce(value);
    await broker.run({ until: clock.now() + 10_000, maxSteps: 5_000 });
    await retrying.stop();
    // Until a record reaches offset 2 (c's), nothing tells the log is new: n1 waits, it is not read past.
    expect({ beforeMore, after: succeeded.filter((v) => v.startsWith('n')), committed: broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0) }).toEqual({ beforeMore: [], after: ['n1', 'n2', 'n3'], committed: 4 });
  });
});
