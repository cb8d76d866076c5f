import { BrokerRefusedError } from '../../src/simulate/memory-broker';
import { consumer, T0, world } from './park-by-key-world';
import { parkNewerRecordOfKey, refuseReleaseTierCommit, replayWaitingBehindHeldKey } from './waiting-replay-world';

/**
 * Attack 25, finding: ORDER (left open by 9c99f0b: owed tier commits live in the generation's
 * tier turns only).
 *
 * Scenario: k:a fails on the main topic and in the 1m tier (k held, its copy in the 10m tier). A
 * DLQ record of k, k:w, is replayed into the 1m tier (offset 1), due at once: k is held, so it
 * waits its turn. A newer record of k, k:b, parks behind the hold. k:a's 10m copy succeeds: the
 * release drains k's queue, k:w's turn comes first and runs; commitDrained stores the state (k
 * free, k:b still parked), then the 1m commit past k:w (offset 2) meets a rebalance
 * (REBALANCE_IN_PROGRESS: the most common reason a commit is refused).
 *
 * Seen: k:x0, k:a FAIL, k:a FAIL, k:a, k:w, k:b, k:w. The owed 1m commit is in the old
 * generation's tier turns, which forget() replaces: nothing pays it. The new generation loads a
 * state in which no hold judges k:w (a replay that took none) and reads the 1m tier from 1: k:w
 * is a fresh replay, its key busy with the parked k:b, so it waits behind the position and runs
 * again after k:b: an older update (the replay, in its turn before k:b) lands over a newer one.
 * The same with a crash at that point. Without the rebalance (the second test) HEAD holds: the
 * owed commit is paid before k:b's state.
 *
 * Code at fault: src/runtime/key-parking.ts commit() (state first, then the tier commits, in two
 * requests) with tier-turns.ts owe(): what is owed is kept in memory, per generation, so the
 * broker still holds a state ahead of the tier commit that records a replay's run whenever the
 * refusal comes with a rebalance or a crash. The commit's claim ("the broker never holds a state
 * ahead of the tier commits of the state before it") holds only until the process or its
 * generation ends.
 *
 * Class: a durable write (the state) ahead of the durable record (the tier commit) of the run it
 * follows; the catch-up kept in memory only (as 8ce76a1's doneUpTo, attack 13).
 *
 * Fix: make the debt durable with the state it belongs to: the state commit carries the tier
 * offsets (and their anchors' timestamps) its operation will commit (say a `tiers` field in the
 * park-state metadata, written by stateCommit from the tier commits of the same commit() call);
 * load() commits those tier offsets first when the group's commit of the tier is below them and
 * the anchor still reads as this log's (else drops them), before any record is taken. Or, for
 * turns that took no hold (a replay run 'done' or to the DLQ: nothing in the state covers them),
 * send their tier commit in the same request as the state, or before it.
 *
 * Fixed: a replay's run goes into the state, committed before its tier's commit and kept until a
 * commit of its tier partition past it is accepted (ParkState.ranUnjudged, ran-unjudged.ts): the
 * new generation loads it and skips the replay read again. The debt stays for the run the state
 * has no room for (a budget near one hold), within the generation.
 */
jest.setTimeout(60_000);

async function releaseWithRefusedTierCommit(rebalance: boolean) {
  const w = world();
  const retrying = await replayWaitingBehindHeldKey(w, 'kafkajs');
  await parkNewerRecordOfKey(w);
  const refused = refuseReleaseTierCommit(w, () => {
    if (rebalance) {
      w.broker.rebalance(consumer.groups.main);
      throw Object.assign(new BrokerRefusedError('The group is rebalancing, so a rejoin is needed'), { type: 'REBALANCE_IN_PROGRESS', retriable: true });
    }
    throw new BrokerRefusedError('The coordinator is not available');
  });
  await w.broker.run({ until: T0 + 3_600_000 });
  await retrying.stop();
  expect(refused()).toBe(true);
  return w.handled.filter((h) => h.startsWith('k:'));
}

describe('park-by-key, the tier commit that records a waiting replay\'s run refused after its state was stored', () => {
  it('with a rebalance at the refusal: the replay does not run again after the newer record of its key parked behind it', async () => {
    const ofK = await releaseWithRefusedTierCommit(true);
    // Seen: k:x0, k:a FAIL, k:a FAIL, k:a, k:w, k:b, k:w
    expect(ofK).toContain('k:b');
    expect(ofK.lastIndexOf('k:w')).toBeLessThan(ofK.indexOf('k:b'));
  });

  it('without a rebalance (held at HEAD: the owed commit is paid before k:b\'s state)', async () => {
    const ofK = await releaseWithRefusedTierCommit(false);
    expect(ofK).toEqual(['k:x0', 'k:a FAIL', 'k:a FAIL', 'k:a', 'k:w', 'k:b']);
  });
});
