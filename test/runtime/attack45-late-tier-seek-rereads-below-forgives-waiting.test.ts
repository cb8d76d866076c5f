import { consumer, seeksLate, T0, tier1m, world } from './park-by-key-world';

/*
 * Class: LOST (a tier commit passes a record still waiting its turn on the same log; a
 * rebalance then drops the wait): the late-seek class in the tier pipeline, meeting
 * tier-turns' "log moved back" test.
 *
 * Scenario: park-by-key, both throw reactions; every seek of the 1m tier takes effect 1.5 s
 * after it is asked for (the client reads on meanwhile: the `seeksLate` model). Two DLQ
 * replays of key A are in 1m/0 at offsets 0 (A:r1, fails once more: on to 10m) and 1 (A:r2).
 * Then main records A:a and C:c fail once, their copies at 1m/0 offsets 2 and 3. Both
 * replays wait their turn behind A's hold. At T0+60 s the tier pipeline resumes 1m/0 at its
 * head (offset 2, waited for since T0): it seeks to 2 (late) and resumes. A:a runs (releases A;
 * A:r1 runs, fails, holds A in 10m; A:r2 waits behind it), then C:c at offset 3. Then the late
 * seek applies and the client reads offset 2 again. A rebalance follows.
 *
 * Seen: A:r2 never runs. The group's commit of 1m/0 went to 3 while A:r2 (offset 1) still
 * waited; after the rebalance 1m/0 is read from 3. Without the late seek (or with the
 * rebalance before it) A:r2 runs.
 *
 * Code at fault: src/runtime/tier-turns.ts read(): a record read below the last one read is
 * taken for a log created again (newLog: the partition's waiting records become another log's,
 * its accepted commit and done marks forgotten); TierTurns.commit() then skips waiting records
 * of "another log", so the stale-tier-record commit of offset 2 (key-parking.ts onTierRecord,
 * `turns.commit(commitOffsetFor(record))`) stores 3, past A:r2. The re-read is an ordinary
 * consequence of tier-pipeline.ts resumePartition's seek (and of any client re-read: a late seek,
 * the Confluent client's seek back after a throw, a fetch repeated after a time-out).
 *
 * Suggested fix: do not take "read below the last read" alone as a new log: confirm it as
 * attack 15's other checks do (another record at a known offset -- isAnotherRecordAt --, the log
 * start or the group's commit moved back below what this generation committed) before the
 * waiting records stop holding back the commit; at least keep a waiting record's offset as a
 * bound on commits of its partition until its log is proven gone (its record gone from the log).
 *
 * Fixed: tier-turns read() takes a read below the last one for a new log only when this
 * generation did not read that very record at that offset since the last accepted commit.
 *
 * Today's change: not caused by it. Checked: this test shows the same loss on 9023c89's
 * src/runtime (before today's changes); found by a fault-world property run with every tier
 * seek 1.5 s late (kafkajs, a rebalance mid-run), which lost the same way at e508d0a^ and
 * e508d0a. Not e508d0a's startedOver: tier-turns read()'s own newLog, older (attack 15).
 */
jest.setTimeout(60_000);

describe.each(['kafkajs', 'confluent'] as const)('park-by-key (%s), a replay waiting its turn in 1m when a late seek reads the tier partition again below its last record', (reaction) => {
  it('still runs after a rebalance', async () => {
    const w = world();
    w.broker.throwReaction = reaction;
    seeksLate(w, tier1m!.topic, 1_500);
    w.replay('A', 'r1', 100_000, 0); // 1m/0@0
    w.replay('A', 'r2', 100_001, 1); // 1m/0@1
    w.failOnce.add('A:r1');
    w.failOnce.add('A:a');
    w.failOnce.add('C:c');
    w.produce('A', 'a'); // copy at 1m/0@2
    w.produce('C', 'c'); // copy at 1m/0@3
    const retrying = await w.start();
    // After the late seek (T0+61.5 s) read offset 2 again.
    w.clock.setTimer(62_000, () => w.broker.rebalance(consumer.groups.main));
    await w.broker.run({ until: T0 + 30 * 60_000 });
    await retrying.stop();
    expect(w.handled.filter((h) => h.startsWith('A:r'))).toEqual(['A:r1 FAIL', 'A:r1', 'A:r2']);
  });
});
