import type { KafkaPort } from '../../src/runtime/port';
import type { ConsumedRecord } from '../../src/runtime/router';
import { httpError, valueOf } from './harness';
import { BIG, HeldMainWorld } from './held-main-world';
import { CONTROL_RECORD, hidingControlRecords } from './control-record-port';

/**
 * Found by attack 17: a STALL (a seek loop) of a recreated main partition.
 *
 * Scenario: a deploy reads the main topic on from the group's commit, 5, and its first record,
 * big at 5, is held (no copy fits), so this process has no commit acknowledged. The main topic
 * is deleted and created again (no rebalance); its new log's offset 0 is never handed out (the
 * transaction the deletion broke was aborted), and it has fewer records than the anchor's offset
 * (n1, n2: a quiet topic). The operator raises the DLQ's limit.
 *
 * Seen: n1 and n2 never run, for as long as the new log stays below offset 5. The partition is
 * sought to its anchor, 5, past the new log's end; kafkajs's answer (fetch out of range, read from
 * the earliest: modelled here by readFromEarliest, as the in-memory broker does not give it) hands
 * out n1 at 1; judgeReadAtAnchor answers 'seek-again' (below the anchor, not 0) and the partition
 * is sought to 5 again, and so on: a fetch and a seek per round, nothing taken. Only a record at 5
 * ends it (another record there: a new log). Logged while writing this (not kept): 19 rounds
 * judged 'seek-again' (anchor 5, read 1); with a plain record at offset 0 the test passes (n0 to
 * n2 run once each).
 *
 * Code at fault: src/runtime/resume-anchor.ts judgeReadAtAnchor, `read === 0n ? 'new-log' :
 * 'seek-again'`: a read below the anchor is the log's start only at offset 0; with offset 0 hidden,
 * the start of a new log is taken for a client that did not read from the seek.
 *
 * Class: liveness, the offset-0 rule of attack17-new-log-hidden-start-read-past (there it loses
 * records, here it loops).
 *
 * Fix I'd make: a second 'seek-again' for the same anchor proves the client cannot read there
 * (the anchor is past the log's end, or gone): take it as unproven, and read the log's earliest
 * and latest offsets (past the end: a new log, read from its start; starts over) rather than seek
 * again; or count the first batch after a read from the earliest as the log's start whatever its
 * first offset.
 *
 * Fixed: a second read below the anchor from the same offset is a new log (main-pipeline.ts
 * readAtAnchor), read from its start; a stale batch is not judged.
 */

describe('unordered: a main topic created again (no rebalance) shorter than the held anchor, its offset 0 hidden', () => {
  it('reads the new log from its start instead of seeking back to the anchor round after round', async () => {
    /** Where the client reads the main partition next, as far as its seeks and the handler tell. */
    let position = 0;
    const trackingSeeks = (sends: KafkaPort): KafkaPort => {
      const port = hidingControlRecords(sends);
      return {
        producer: port.producer,
        consumer: (groupId, options) => {
          const inner = port.consumer(groupId, options);
          return { ...inner, run: (r) => inner.run(r), connect: () => inner.connect(), disconnect: () => inner.disconnect(), subscribe: (x) => inner.subscribe(x), pause: (x) => inner.pause(x), resume: (x) => inner.resume(x), commitOffsets: (x) => inner.commitOffsets(x), committed: (t, ps) => inner.committed(t, ps), onRebalance: (l) => inner.onRebalance(l), seek: (x) => ((position = Number(x.offset)), inner.seek(x)) };
        },
      };
    };
    const world: HeldMainWorld = new HeldMainWorld({
      port: trackingSeeks,
      handler: async (record: ConsumedRecord) => {
        if (record.topic === world.consumer.mainTopic) position = Number(record.message.offset) + 1;
        if (record.topic === world.consumer.mainTopic && valueOf(record).startsWith('big')) throw httpError(503);
        world.succeeded.push(valueOf(record));
      },
    });
    const { broker, consumer } = world;
    for (let i = 0; i < 5; i++) world.produce(`o${i}`);
    await world.start();
    await world.runFor(10_000);
    await world.stop();
    world.produce(BIG); // offset 5: fits the main topic, no copy fits
    await world.start(); // a deploy: its first record taken is held, nothing of it committed
    await world.runFor(60_000);
    expect(world.count('publish-held')).toBe(1);

    world.recreateMainTopic();
    world.produce(CONTROL_RECORD); // the new log's offset 0: an aborted record, never handed out
    world.produce('n1');
    world.produce('n2');
    world.maxMessageBytes = 4_000; // the operator raises the DLQ's max.message.bytes
    for (let round = 0; round < 20; round++) {
      await world.runFor(30_000);
      // kafkajs: a fetch past the log's end is out of range, and the partition is read from its earliest record.
      if (broker.pausedPartitions(consumer.groups.main).length === 0 && position > broker.records(consumer.mainTopic, 0).length) broker.readFromEarliest(consumer.mainTopic, 0);
    }
    await world.stop();
    expect(world.count('routed')).toBe(1); // big's copy went out
    // Seen: [] after twenty rounds (ten minutes).
    expect(world.succeeded.filter((v) => v.startsWith('n'))).toEqual(['n1', 'n2']);
  }, 30_000);
});
