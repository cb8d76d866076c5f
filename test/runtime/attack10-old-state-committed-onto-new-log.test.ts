import { consumer, T0, world } from './park-by-key-world';

/**
 * Found by attack (attack10); fixed (s28, the commit that made this an ordinary test). Was: The `next` rule of a4f66b3 (a main record before the one the state
 * expects reloads the state from the group's commit) trusts that commit; but the old log's state
 * can have been committed onto the NEW log after the main topic was recreated and before the
 * client reads the new log from 0. The reload then reads the old state back, and the new log's
 * records below its position are skipped as handled: lost (never handled, not in the DLQ).
 *
 * Scenario: kafkajs, one member, no rebalance (as attack9-recreated-topic-without-rebalance):
 * the old log has old:0..4. While old:4 is being handled, the main topic is deleted and created
 * again (the group's commits of it go) and n:0..2 are written to the new log; old:4's commit
 * (position 5, the old state's id) lands after that, on the new log (kafkajs retries a commit
 * refused with UNKNOWN_TOPIC_OR_PARTITION until the topic is back; a slow handler does the same).
 * Then kafkajs's fetch at 5 is out of range and it reads the new log from 0.
 * The same happens when anything else commits the in-memory state between the recreation and
 * the first new-log record: a tier record's release of a hold (stateCommit; checked: k:a held in
 * the 1m tier at the recreation, its retry succeeding before the reset, n:0..2 skipped alike), a hold's expiry
 * (releaseExpired), a record of the old log's tier running.
 *
 * Seen: handled is only old:0..4; n:0 < next (5) drops the state and reloads it from the group's
 * commit, which is now the old state at 5 (id of the old log), so n:0..2 are below the position
 * and skipped, and the old id stays on the new log.
 *
 * Code: src/runtime/key-parking.ts onMainRecord, the `parking.next` branch: partitions.delete +
 * seekMain + load() from options.consumer().committed(); load() reads whatever is committed,
 * including this parking's own last commit of the old state. The unordered path catches the same
 * case (main-pipeline.ts progressOf: isNewLog(first, acknowledged): offset 0 below a commit the
 * broker acknowledged).
 *
 * Class: a detection that re-derives state from a store the stale in-memory state itself wrote
 * (the reload is only as fresh as the last commit, and that commit can be the stale state).
 *
 * Fix I'd make: when the `next` rule fires and the group's commit of p is this parking's own
 * last commit (same offset and metadata: nothing else moved it), do not trust it: the log moved
 * back under this member (a recreation, or an unclean truncation); begin p from nothing at the
 * record's offset with a new id (stamped into the tiers), as isNewLog does for the unordered
 * path. Also check `next` before any commit of a loaded state is allowed after a fetch error.
 */
describe('park-by-key, the main topic recreated under a running member while a commit is in flight, no rebalance', () => {
  it("runs the new log's records instead of skipping them under the old state committed onto it", async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    for (let i = 0; i < 5; i++) w.produce('old', String(i));
    // The topic is replaced while old:4 is handled: its commit (position 5) lands on the new log.
    const commit = w.broker.commit.bind(w.broker);
    let recreated = false;
    w.broker.commit = (groupId, offsets) => {
      if (!recreated && offsets.some((o) => o.topic === consumer.mainTopic && o.partition === 0 && o.offset === '5')) {
        recreated = true;
        w.broker.recreateTopic(consumer.mainTopic, { rebalance: false });
        for (let i = 0; i < 3; i++) w.produce('n', String(i));
      }
      commit(groupId, offsets);
    };
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.length === 5 });
    // The fetch at 5 is out of range in the new log: kafkajs reads it from 0.
    w.broker.readFromEarliest(consumer.mainTopic, 0);
    await w.broker.run({ until: T0 + 60_000 });
    await retrying.stop();
    // Seen: only old:0..4 handled; the group's commit of p is the old state (position 5).
    expect(w.handled.filter((h) => h.startsWith('n:'))).toEqual(['n:0', 'n:1', 'n:2']);
  });
});
