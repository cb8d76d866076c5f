import { KafkaJSProtocolError } from 'kafkajs';
import { markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { expectEveryRecordsFate, PARTITIONS, placed } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';
import { consumer, T0, tier1m, world } from './park-by-key-world';
import { parkNewerRecordOfKey, refuseReleaseTierCommit, replayWaitingBehindHeldKey } from './waiting-replay-world';

/*
 * Class: per-key order broken (a replay's run made to run again after its key's newer one) by
 * the split commit the wait makes likelier. Found by the attack-13 widened commit-faults
 * property at KRT_PROPERTY_RUNS=2000 KRT_PROPERTY_SEED=4301 (failed after 1924 runs; shrunk
 * counterexample below, kafkajs reaction, main partition 1, budget 60 bytes, one rebalance).
 *
 * Scenario: key C's replay 7 (tier 1m/1@0) runs and holds C in tier 10m; its copy (10m/1@2)
 * succeeds, releasing C, and the drain runs C's replay 10 (1m/1@3). The commit that follows is
 * [state, 1m/1 -> 3]. An injected commit fault refuses twice in a row (marked worth waiting out,
 * as the adapters mark a coordinator away): the first refusal is waited out on the state commit,
 * which is then stored; the second refusal hits the tier commit sent after it (not waited out,
 * owed), and the operation fails. A rebalance then comes: forget() drops the generation's turns
 * and with them the owed tier commit (instrumented: owed [1m/1 -> 3] at forget()).
 *
 * Seen: "C: replay 7's copy orders.confirmed.retry.10m/1@4 ran over 10": tier 1m/1 is read again
 * from its group commit (0), the stored state no longer holds C nor names replay 7's run (the
 * 60-byte budget), so replay 7 runs again, now after replay 10: C's older update applied over the
 * newer. On d25af66^ and on d25af66 (where the injected fault was not waited out) the first
 * refusal failed the operation before the state was stored, and the case passes.
 *
 * Code at fault: src/runtime/key-parking.ts commit(): the state and its tier commits go in two
 * requests; the window "state stored, tier commit refused" existed before (a fault on the tier
 * request alone), but untilAccepted turns every burst of two or more refusals into exactly that
 * split; tier-turns' owed debts live only in the generation's turns (forget() drops them), and
 * nothing else records that the tier records before the owed offset ran.
 *
 * Suggested fix: after a waited-out state commit, wait out the tier commit that follows too
 * when the group's commit of that tier partition is still the one owed over (the same check
 * payOwedTierCommits makes: safe against a tier created again), or keep the owed commits across
 * a rebalance as the state's (in the state's metadata, or re-derived at load from the ran-unjudged
 * marks), or do not fail the operation on a refused tier commit after its state was stored.
 *
 * Pre-existing window, made likely by the change (a791738: the injected commit faults marked
 * worth waiting out): passes on d25af66^ and d25af66, fails on a791738, f96b55b and e359ce0.
 *
 * Fixed: the tier commits sent after a stored state are waited out as the state was, while the
 * group's commit of each tier partition is still the one they were sent over (key-parking.ts
 * commitTiers, tierCommitsStillOver). This case no longer takes the same path (every change to
 * the wait moves where the placed faults land); the deterministic test below stands for it.
 */
jest.setTimeout(60_000);

const s = {"reaction":"kafkajs","records":[{"key":"A","partition":1,"failures":1},{"key":"A","partition":1,"failures":2},{"key":"A","partition":1,"failures":3},{"key":"A","partition":1,"failures":3},{"key":"C","partition":1,"failures":1},{"key":"A","partition":1,"failures":3},{"key":"A","partition":1,"failures":0}],"replays":[{"key":"C","partition":1,"failures":1},{"key":"A","partition":1,"failures":3},{"key":"A","partition":1,"failures":1},{"key":"C","partition":1,"failures":0},{"key":"B","partition":0,"failures":3}],"faults":[{"operation":"commit","at":0.444445,"times":2,"nonRetriable":false},{"operation":"commit","at":0.4,"times":1,"nonRetriable":false}],"events":[{"kind":"rebalance","at":0.469946}],"parkingBudgetBytes":60} as const;

describe('park-by-key, a state commit waited out and its tier commit refused, then a rebalance (attack-13 property, seed 4301)', () => {
  it('keeps every record\u2019s fate', async () => {
    const base: FaultWorldOptions = { ordering: 'park-by-key', reaction: s.reaction, records: s.records.map((r) => ({ ...r })), replays: s.replays.map((r) => ({ ...r })), parkingBudgetBytes: s.parkingBudgetBytes, partitions: PARTITIONS };
    const options: FaultWorldOptions = { ...base, ...(await placed(base, s.faults.map((f) => ({ ...f })), s.events.map((e) => ({ ...e })))) };
    const result = await faultWorld(options).run();
    expectEveryRecordsFate(options, result);
  });
});

/**
 * The same split made deterministic (the property's case depends on how many port calls a run
 * makes, which every change to the wait moves): the release's tier commit past a waiting replay
 * (1m offset 2), sent right after its state was stored, refused once for a coordinator loading
 * its offsets (marked, as the adapters mark it). Waited out as the state was, it is stored within
 * the operation: no debt, no failed operation, the replay not read again. Not waited out (the
 * code of a791738 to e359ce0), the operation failed, its error went to the client and the replay
 * was read again, with a debt in memory only between the two (the window a rebalance lost it in).
 */
describe('park-by-key, a tier commit refused once right after its state was stored', () => {
  const loading = () => markWorthWaitingOut(new KafkaJSProtocolError({ message: 'The coordinator is loading offsets', type: 'GROUP_LOAD_IN_PROGRESS', code: 14, retriable: true } as unknown as string));

  it('is waited out within the operation: nothing thrown to the client, the replay not read again', async () => {
    const w = world();
    const retrying = await replayWaitingBehindHeldKey(w, 'kafkajs');
    await parkNewerRecordOfKey(w);
    const refused = refuseReleaseTierCommit(w, () => {
      throw loading();
    });
    const from = w.events.length;
    await w.broker.run({ until: T0 + 3_600_000 });
    await retrying.stop();
    expect(refused()).toBe(true);
    expect(w.handled.filter((h) => h.startsWith('k:'))).toEqual(['k:x0', 'k:a FAIL', 'k:a FAIL', 'k:a', 'k:w', 'k:b']);
    expect(w.broker.consumerErrors).toEqual([]);
    expect(w.events.slice(from).filter((e) => e.type === 'stale-tier-record')).toEqual([]);
    expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBe(2);
  });
});
