import { KafkaJSProtocolError } from 'kafkajs';
import { markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { consumer, T0, world } from './park-by-key-world';

/*
 * Class: a commit made stale while it waited, sent again as it was (lost). Attack 41 found it for
 * a tier's commit; the fix (a791738) stops waiting out tier commits only, on the ground that "what
 * the state says is read from it". The main state's commit carries the main log's offset just as a
 * tier's carries the tier's, and nothing checks, before a re-send, that the main log is the one it
 * was made for.
 *
 * Scenario: park-by-key (kafkajs, and the Confluent client). k:a, k:b, k:c on main partition 0, all
 * succeed. The state commit of k:c (offset 3) is refused with GROUP_LOAD_IN_PROGRESS (a
 * coordinator loading its offsets, marked worth waiting out) for 6 sends (~3 s). At the 2nd
 * refusal the main topic is deleted and created again with no rebalance (a Terraform replacement;
 * Kafka drops the group's commits of it) and five records y:0..y:4 are written to the new log.
 *
 * Seen: the waited-out state commit lands after the recreate: the group's commit of the new main
 * log is at 3 with the old log's state, the client goes on reading the new log from 3 (in range:
 * the new log has 5 records), and y:0, y:1, y:2 never run (lost). On d25af66^ the refused commit
 * failed the operation, the client read k:c's offset (2) again on the new log, the load found no
 * group commit (a new state from nothing, position 0) and sought back to 0: every y ran.
 *
 * Code at fault: src/runtime/key-parking.ts commit()/commitState(..., parking): the state's commit
 * is re-sent unchanged by untilAccepted for up to 30 s, and patienceOf's stillOurs only checks
 * that the partition's in-memory state is still loaded, not that the group's commit of the main
 * partition is still the one the state was loaded from / last stored (the recreate dropped it).
 *
 * Suggested fix: before each re-send, read the group's commit of the main partition (committed())
 * and re-send only while it is still the one this state last stored (or read at its load), as
 * payOwedTierCommits does for a debt; otherwise fail the operation (the record is read again
 * under a fresh load). Or stop waiting when the adapter's refusal says the partition is unknown.
 *
 * Caused by the change (d25af66): passes on d25af66^.
 *
 * Fixed: before each send again, the group's commit of the main partition is read and must still
 * be the one this member last read or stored, or the one being sent (key-parking.ts
 * mainCommitStillOurs, commit-patience.ts stillValid); a refused read waits again without sending.
 */
jest.setTimeout(60_000);
// Fails on a791738 (both reactions: y:0..y:2 never run); passes on d25af66^ (caused by the change).

const loading = () => markWorthWaitingOut(new KafkaJSProtocolError({ message: 'The coordinator is loading offsets', type: 'GROUP_LOAD_IN_PROGRESS', code: 14, retriable: true } as unknown as string)); // as the kafkajs adapter marks it

describe.each(['kafkajs', 'confluent'] as const)('park-by-key (%s), a state commit waited out while the main topic is created again', (reaction) => {
  it('does not put the old main log\u2019s position on the new log', async () => {
    const w = world();
    w.broker.throwReaction = reaction;
    const commit = w.broker.commit.bind(w.broker);
    let refused = 0;
    let refusing = false;
    w.broker.commit = (groupId, offsets) => {
      if (refused === 0 && offsets.some((o) => o.topic === consumer.mainTopic && o.partition === 0 && o.offset === '3')) refusing = true;
      if (refusing && offsets.some((o) => o.topic === consumer.mainTopic)) {
        refused++;
        if (refused === 2) {
          w.broker.recreateTopic(consumer.mainTopic, { rebalance: false });
          for (let i = 0; i < 5; i++) w.produce('y', String(i));
        }
        if (refused === 6) refusing = false;
        else throw loading();
      }
      commit(groupId, offsets);
    };
    w.produce('k', 'a');
    w.produce('k', 'b');
    w.produce('k', 'c');
    const retrying = await w.start();
    await w.broker.run({ until: T0 + 10 * 60_000 });
    await retrying.stop();
    expect(refused).toBe(6);
    // Seen: ['y:3', 'y:4'] (and the group's commit of the new log at 3 with the old log's state, then 5).
    expect(w.handled.filter((h) => h.startsWith('y:')).sort()).toEqual(['y:0', 'y:1', 'y:2', 'y:3', 'y:4']);
  });
});
