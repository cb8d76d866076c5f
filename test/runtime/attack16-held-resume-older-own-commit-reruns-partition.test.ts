import { Registry } from 'prom-client';
import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';

/**
 * Fixed: the held partition reads on from an older commit only when it is not its own (isOwnCommit),
 * and then from that commit, not from 0 (main-pipeline.ts resumeOffsetAfterHold).
 *
 * Found by attack 16: duplicates far past the bound (the whole partition runs again from 0).
 *
 * Scenario (unordered, kafkajs-like in-memory broker, commit window of 4 records, a commit per
 * record): a0..a7 run and are committed one by one (each commit stamped as this member's own);
 * big fails and no copy of it fits its tier or the DLQ: it is held, its partition paused. While
 * it waits (a held record may wait for hours) the broker is killed and started again and shows
 * an older commit of this member's, offset 3 with this member's stamp, its later ones lost (the
 * outage judgeLog's doc cites: kafkajs, 366 shown, 767 acknowledged). The operator raises the
 * DLQ's limit; the held copy is acknowledged.
 *
 * Seen: a0..a7 all run a second time (eight duplicates against a bound of four, and on a real
 * partition every record it ever held: the resume seeks to 0). The resume reads the group's
 * commit (3), finds it below what the broker acknowledged (8), takes the log for a new one and
 * seeks to 0; the first batch, from 0, is isNewLog and the partition starts over.
 *
 * Code at fault: src/runtime/main-pipeline.ts startedOverWhilePaused: `read.offset < acknowledged`
 * alone decides, without options.commits.isOwnCommit(...). The rebalance path (groupViewOf ->
 * judgeLog) asks exactly that and reads past an older commit that carries this member's stamp,
 * for this very outage; the held path's copy of the test forgot it.
 *
 * Class: a false positive of a new-log detector (an older commit of the same log, not a new log),
 * whose cost is unbounded duplicates.
 *
 * Fix I'd make: judge as groupViewOf does: below acknowledged and not isOwnCommit(topic,
 * partition, read.offset, read.metadata) -> new log; own -> resume at nextOffset (and commit
 * again, the broker lost it). Better still, share one function with groupViewOf.
 */
let maxMessageBytes = 2_000;
function refusingLargeCopies(broker: MemoryBroker): KafkaPort {
  return checkedSends(broker, (records) => {
    if (records.some((r) => r.messages.some((m) => messageBytes(m) > maxMessageBytes))) throw tooLargeError();
  });
}

describe('unordered: a held record\'s partition, the broker showing an older commit of this member\'s meanwhile', () => {
  it('resumes after the held record, running none of the records before it again', async () => {
    maxMessageBytes = 2_000;
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const events: RetryEvent[] = [];
    const runs: string[] = [];
    const retrying = createRetryingConsumer(consumer, {
      kafka: refusingLargeCopies(broker),
      clock,
      registry: new Registry(),
      random: () => 0.5,
      commit: { intervalMs: 0, maxRecords: 4 },
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        if (record.topic !== consumer.mainTopic) return;
        runs.push(valueOf(record).slice(0, 3));
        if (valueOf(record).startsWith('big')) throw httpError(503);
      },
    });
    const produce = (key: string, value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
    for (let i = 0; i < 8; i++) produce(`a${i}`, `a${i}`);
    produce('k', `big${'x'.repeat(1_897)}`); // fits the main topic, no copy fits
    await retrying.start();
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    const main = consumer.groups.main;
    const stamp = broker.committedMetadata(main, consumer.mainTopic, 0);
    expect({ held: events.filter((e) => e.type === 'publish-held').length, committed: broker.committedOffset(main, consumer.mainTopic, 0), stamped: stamp?.startsWith('krt-own:') }).toEqual({ held: 1, committed: 8, stamped: true });

    // The broker killed and started again shows an older commit of this member's (its stamp), the later ones lost.
    broker.commit(main, [{ topic: consumer.mainTopic, partition: 0, offset: '3', metadata: stamp ?? undefined }]);
    produce('b', 'b0');
    maxMessageBytes = 4_000; // the operator raises the DLQ's max.message.bytes
    await broker.run({ until: clock.now() + 300_000, maxSteps: 5_000 }).catch(() => undefined);
    await retrying.stop();
    const twice = [...new Set(runs.filter((r, i) => r !== 'big' && runs.indexOf(r) !== i))];
    // Seen: ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']: the partition was read again from 0.
    expect({ twice, ranB: runs.includes('b0') }).toEqual({ twice: [], ranB: true });
  }, 30_000);
});
