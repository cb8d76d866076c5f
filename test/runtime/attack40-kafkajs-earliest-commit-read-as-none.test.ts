import { consumer, world } from './park-by-key-world';
import { readingAsKafkajsAdapter } from './reading-as-kafkajs-adapter';

/**
 * Attack 40, finding 1 (class: state taken for new; duplicates / lost judgement). Fixed: the
 * reader maps only null and the Confluent client's -1001 to '-1' (a regression of 1b3ab51,
 * fixed the same session).
 *
 * Scenario: park-by-key on kafkajs. A parked record is deleted by retention before it is read
 * again; kafkajs's fetch falls out of range and commits -2 (the earliest, no metadata) for the
 * partition (offsetManager.setDefaultOffset). key-parking.ts load() reads that '-2' as
 * KAFKAJS_EARLIEST: "a state lost at the log start" (event park-state-lost, lostBefore = log
 * start, the tiers' id taken back). The existing test of this
 * (park-by-key-retention-deletes-parked-records.test.ts) passes only because the memory
 * broker's port answers '-2' itself; the kafkajs adapter reads commits through
 * groupOffsetsReader, and since 1b3ab51 that maps every negative offset to '-1'.
 *
 * Seen: through groupOffsetsReader (an admin answering as kafkajs's admin.fetchOffsets does:
 * the stored offset as a string, '-2' here), the load takes the partition for one never
 * committed: no park-state-lost event, a fresh state at position 0 with a new id (the lost
 * state's id is not taken back from the tiers' commits; stampTiers overwrites it). The
 * KAFKAJS_EARLIEST branch in key-parking.ts is dead code on the real kafkajs adapter.
 *
 * Consequence (second test): the lost state's id is what judges the old state's tier copies. Read
 * as lost (the intended path), a copy of a record at or past the log start, which the main
 * topic's re-read runs again anyway, is judged stale and skipped; read as never committed, the
 * copy is written under "another state" and runs as well: x:d, which failed once into the 1m
 * tier before the restart, runs twice after it (once re-read from the main topic, once from its
 * tier copy). Class: duplicates (bounded by what the lost state had in the tiers).
 *
 * The first consequence, no park-state-lost event, is tested in
 * park-by-key-retention-deletes-parked-records.test.ts, through the memory broker's own answer
 * and through the kafkajs adapter's reader.
 *
 * Code at fault: src/runtime/adapters/group-offsets.ts committed(): `p.offset.startsWith('-') ? '-1'`.
 *
 * Suggested fix: map only the Confluent client's -1001 (or: null / -1 / -1001) to '-1', and
 * keep -2 (kafkajs's stored reset) as it is; or let key-parking see the reader's raw answer.
 */

describe('attack 40: kafkajs commits -2 when retention passed the group commit', () => {
  it('a tier copy of a record the main topic runs again is judged stale, not run a second time', async () => {
    const w = world();
    readingAsKafkajsAdapter(w.broker);
    w.broker.outOfRangeCommitsEarliest = true;
    w.failOnce.add('k:a');
    w.failOnce.add('x:d');
    w.produce('k', 'a'); // fails: k held
    w.produce('k', 'b'); // parked: the group's commit stays at 1
    w.produce('y', 'c');
    w.produce('x', 'd'); // fails: its copy waits in the 1m tier
    let retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked') && w.handled.includes('x:d FAIL') });
    await retrying.stop();

    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 3); // retention passes the commit: kafkajs commits -2
    retrying = await w.start();
    await w.broker.run({ until: w.clock.now() + 10 * 60_000 });
    await retrying.stop();

    expect(w.handled.filter((h) => h === 'x:d')).toHaveLength(1);
  });
});
