import { Registry } from 'prom-client';
import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';
import { CONTROL_RECORD, hidingControlRecords } from './control-record-port';

/**
 * Found by attack 17: LOST records.
 *
 * Scenario: a deploy reads the main topic on from the group's commit, 5, and the first record it
 * takes, big at 5, is held (no copy of it fits even the DLQ), so this process has no commit
 * acknowledged yet. The main topic is deleted and created again (no rebalance); its new log has
 * eight offsets, and offset 5 is one the client never hands out (here: a transaction's commit
 * marker or an aborted record of an exactly-once producer; compaction does the same). The
 * operator raises the DLQ's limit.
 *
 * Seen: n0 to n4, the new log's first records, never run; n6 and n7 do, and the group commits 8.
 * With no acknowledged commit, resumeOffsetAfterHold says nothing, so the partition is sought to
 * its anchor (big, offset 5). The client's first record there is n6 (offset 6): judgeReadAtAnchor
 * answers 'moved-on' ("compaction or retention removed the anchor, the same log") and the batch
 * is taken as the old log's continuation.
 *
 * Code at fault: src/runtime/resume-anchor.ts judgeReadAtAnchor, `read > at` -> 'moved-on': a
 * record past the anchor proves nothing of the log; a new log with a gap at the anchor's offset
 * (control records, aborted transactions, compaction) reads the same.
 *
 * Control: the same test with an ordinary record n5 at offset 5 passes (another record at the
 * anchor is a new log), checked while writing it.
 *
 * Class: a new log taken for the old one (attack 15/16's family), by a proof that is not one.
 *
 * Fix I'd make: 'moved-on' is no proof. Judge a record past the anchor as unproven: read the
 * partition's earliest offset (retention moved it past the anchor: the same log; 0 or below the
 * anchor: look further) and keep a second, older anchor (the first record this progress took,
 * firstTaken) to seek to and check by identity; only when both are gone read on, otherwise
 * take it for a new log and read it from 0 (commits start over).
 */
let maxMessageBytes = 2_000;

describe('unordered: a main topic created again (no rebalance) while the first record a run took is held, the new log with no record at its offset', () => {
  it.failing('reads the new log from its start, not on past the held record\'s offset', async () => {
    maxMessageBytes = 2_000;
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const events: RetryEvent[] = [];
    const succeeded: string[] = [];
    const start = async () => {
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
      return retrying;
    };
    const produce = (value: string) => broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from(value), partition: 0 });
    for (let i = 0; i < 5; i++) produce(`o${i}`);
    let retrying = await start();
    await broker.run({ until: clock.now() + 10_000, maxSteps: 5_000 }).catch(() => undefined);
    await retrying.stop();
    expect(broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(5);

    produce(`big${'x'.repeat(1_897)}`); // offset 5: fits the main topic, no copy fits
    retrying = await start(); // a deploy: its first record taken is held, nothing of it committed
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    expect(events.filter((e) => e.type === 'publish-held').length).toBe(1);

    broker.recreateTopic(consumer.mainTopic, { rebalance: false });
    for (let i = 0; i < 5; i++) produce(`n${i}`);
    produce(CONTROL_RECORD); // the new log's offset 5: never handed out
    produce('n6');
    produce('n7');
    maxMessageBytes = 4_000; // the operator raises the DLQ's max.message.bytes
    await broker.run({ until: clock.now() + 120_000, maxSteps: 10_000 }).catch(() => undefined);
    await retrying.stop();
    expect(events.filter((e) => e.type === 'routed').length).toBe(1); // big's copy went out
    // Seen: ['n6', 'n7'] after the old log's records, and the group's commit 8.
    expect(succeeded.filter((v) => v.startsWith('n'))).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n6', 'n7']);
  }, 30_000);
});
