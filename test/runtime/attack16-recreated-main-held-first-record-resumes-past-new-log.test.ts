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
 * Found by attack 16 (its recreated-main-held property, seed -226240714, shrunk): LOST records.
 *
 * Scenario: as attack15-recreated-main-topic-held-record-resumes-past-new-log, but the held
 * record is the partition's first (offset 0): big fails, no copy of it fits its tier or the DLQ,
 * it is held and the partition paused; nothing is ever committed (the commit cannot pass the held
 * record). The main topic is deleted and created again with no rebalance, four records land in the
 * new log (0 to 3), and the operator raises the DLQ's limit.
 *
 * Seen: n0 never runs, not even after a restart. startedOverWhilePaused (bde92e9) returns false at
 * once with no acknowledged commit (`acknowledged === undefined || acknowledged === 0n`), so the
 * partition is sought to 1, the old log's next offset, which the new log has; isNewLog (a read
 * from 0 below an acknowledged commit) cannot see it either. The group's commit is -1 before and
 * after the recreation: by commits alone nothing tells the logs apart here.
 *
 * Code at fault: src/runtime/main-pipeline.ts holdPaused/startedOverWhilePaused: the fix for
 * attack 15 judges by the group's commit only, which says nothing while the held record is the
 * first not committed since the log began (a new topic's or a new log's first records).
 *
 * Class: a new-log detector with a blind spot (false negative): an old-log offset sought on the
 * new log (attack 9/15's family).
 *
 * Fix I'd make: what attack 15 proposed and the tiers now do (tier-pipeline.ts readFromNewLog):
 * remember the held record (offset, timestamp, key, value digest), seek to it rather than past
 * it, and check the record read there before taking the next; another record at its offset is a
 * new log, read from 0. The commit comparison can stay as a second proof.
 *
 * Fixed as proposed (main-pipeline.ts readAtAnchor, resume-anchor.ts): the partition is read again
 * from its last record taken and checks it by identity.
 */
let maxMessageBytes = 2_000;
function refusingLargeCopies(broker: MemoryBroker): KafkaPort {
  return checkedSends(broker, (records) => {
    if (records.some((r) => r.messages.some((m) => messageBytes(m) > maxMessageBytes))) throw tooLargeError();
  });
}

describe('unordered: a main topic created again (no rebalance) while its first record is held', () => {
  it('reads the new log from its first record, so each of its records runs', async () => {
    maxMessageBytes = 2_000;
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const events: RetryEvent[] = [];
    const succeeded: string[] = [];
    const start = async () => {
      const retrying = createRetryingConsumer(consumer, {
        kafka: refusingLargeCopies(broker),
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
    const produce = (key: string, value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
    produce('k', `big${'x'.repeat(1_897)}`); // offset 0: fits the main topic, no copy fits
    let retrying = await start();
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    expect({ held: events.filter((e) => e.type === 'publish-held').length, ran: succeeded, committed: broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0) }).toEqual({ held: 1, ran: [], committed: undefined });

    broker.recreateTopic(consumer.mainTopic, { rebalance: false });
    for (let i = 0; i < 4; i++) produce(`n${i}`, `n${i}`); // the new log's offsets 0 to 3
    maxMessageBytes = 4_000; // the operator raises the DLQ's max.message.bytes
    await broker.run({ until: clock.now() + 300_000, maxSteps: 5_000 }).catch(() => undefined);
    await retrying.stop();
    retrying = await start(); // a restart reads the new log from its commit
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    await retrying.stop();
    // Seen: ['n1', 'n2', 'n3']: the new log was read from 1.
    expect(succeeded).toEqual(expect.arrayContaining(['n0', 'n1', 'n2', 'n3']));
  }, 30_000);
});
