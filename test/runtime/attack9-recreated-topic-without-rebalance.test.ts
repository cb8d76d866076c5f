import { consumer, T0, world } from './park-by-key-world';

/**
 * Found by attack (attack9); fixed (s28: a main record before the one the state expects reloads the state). Park-by-key judges a recreated main topic's new log by the OLD
 * log's in-memory state when no rebalance comes between: the new log's first records are
 * below the old state's position, not parked, so they are skipped as handled: lost (never
 * handled, not in the DLQ), and the old state is then committed onto the new log.
 *
 * Scenario: kafkajs, one member, the main topic with the same partition count deleted and
 * created again (a Terraform replacement) while the member runs. Kafka drops the group's
 * commits of the deleted topic but does not rebalance the group; kafkajs rejoins only when
 * the partition ids change (consumerGroup.js checkForStaleAssignment), and answers the fetch at
 * its old position, past the new log's end, with OFFSET_OUT_OF_RANGE by resetting to the
 * earliest offset (recoverFromOffsetOutOfRange -> setDefaultOffset: 0, fromBeginning) without
 * a rejoin. Here: the old log had old:0..4 (p's state at position 5); the new log gets
 * n:0, n:1, n:2 and the member is reset to 0, as kafkajs does.
 *
 * Seen: none of n:0..2 runs (handled: only old:0..4). docs/runtime.md says of the unordered
 * path "so is a partition read from offset 0 below that acknowledged commit without a
 * rebalance" (taken for a new log, its records all run) and of park-by-key that a recreated
 * topic's state begins from nothing; neither holds without a rebalance.
 *
 * Code: src/runtime/key-parking.ts onMainRecord: `if (offset < state.position) { if
 * (state.parked.get(offset) === undefined ...) return; }` with the state load()ed from the old
 * log and kept (partitions) until a rebalance or a failed operation; the retrying consumer
 * routes park-by-key main records straight to it (src/runtime/retrying-consumer.ts,
 * eachMessageOf(... parking!.onMainRecord ...)), past the unordered path's isNewLog check
 * (src/runtime/new-log.ts).
 *
 * Class: in-memory state trusted across an event (log replaced) that only a rebalance was
 * assumed to signal; the new-log detection exists on one path and not the other.
 *
 * Fix I'd make: in onMainRecord, a record below the position that comes without a seek of
 * this parking's own, in order, from offset 0 (isNewLog: first record 0 below the state's
 * position or below the committed offset) drops the in-memory state and reloads it from the
 * group's commit (none after a recreation: a state begun from nothing, with a new id); more
 * generally, any record below the position that this parking did not seek back to means
 * the partition was moved under it: reload instead of skip.
 */
describe('park-by-key, the main topic deleted and created again under a running member, no rebalance', () => {
  it('runs the new log\'s records instead of skipping them as handled by the old log\'s state', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    for (let i = 0; i < 5; i++) w.produce('old', String(i));
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.length === 5 });
    expect(w.parkState().position).toBe(5n);

    w.broker.recreateTopic(consumer.mainTopic, { rebalance: false });
    for (let i = 0; i < 3; i++) w.produce('n', String(i));
    w.broker.readFromEarliest(consumer.mainTopic, 0); // the fetch at 5 is out of range in the new log
    await w.broker.run({ until: T0 + 60_000 });
    await retrying.stop();

    // Seen: [] — n:0..2 skipped as records the old log's state had handled.
    expect(w.handled.filter((h) => h.startsWith('n:'))).toEqual(['n:0', 'n:1', 'n:2']);
  });
});
