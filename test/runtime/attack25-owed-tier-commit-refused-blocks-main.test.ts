import { BrokerRefusedError } from '../../src/simulate/memory-broker';
import { consumer, tier1m, world } from './park-by-key-world';
import { replayWaitingBehindHeldKey } from './waiting-replay-world';

/**
 * Attack 25, finding: DUPLICATES without bound and STALL (caused by 9c99f0b: every state commit of
 * a main partition waits on its owed tier commits, which nothing but their own acceptance, a
 * rebalance or a read of a new log clears).
 *
 * Scenario (Confluent reaction: the client seeks back to the record that threw, no rejoin): k:a
 * fails on the main topic and in the 1m tier (k held, its copy in the 10m tier); a DLQ replay of
 * k, k:w, waits its turn at 1m offset 1. k:a's 10m copy succeeds, the release runs k:w and stores
 * the state; the 1m commit past k:w is refused, and so is every commit of the 1m tier for a while
 * (the tier deleted and not created again yet, or its READ ACL removed: the broker refuses the
 * commit of that partition, TOPIC_AUTHORIZATION_FAILED / UNKNOWN_TOPIC_OR_PARTITION, while the
 * main topic's commits are fine). A main record of a free key of the same partition, n:1, comes.
 *
 * Seen: n:1 runs 200 times, once per refused 1m commit (the outage's length here; a real outage
 * spins as long as it lasts): its operation handles it, then commit() pays what is owed first,
 * the payment is refused, the operation fails, the client delivers n:1 again. The main partition
 * makes no progress (its commit stays before n:1) for as long as one tier cannot be committed. At
 * HEAD~1 n:1 runs once (its state commit carries no tier offsets): one tier's outage stalled only
 * that tier.
 *
 * Code at fault: src/runtime/key-parking.ts commit(): `await payOwedTierCommits(...)` before every
 * state commit, whatever the state holds, and payOwedTierCommits() keeps a debt refused for any
 * reason but too-large (tier-turns.ts owe), so one tier partition's refusal blocks the main
 * partition's every commit; and onMainRecord() runs the handler before the commit that then fails.
 *
 * Class: a retry with no bound or backoff that repeats side effects (the handler) at each turn.
 *
 * Fix: pay what is owed before the handler runs, not after (in load(), or at the top of each
 * operation), so a refused payment fails the operation before any record runs; and only
 * for the states it matters to: a state commit that holds a key with a record waiting in that
 * tier (or any state at all, but then backed off, and a debt refused as unknown-topic dropped
 * as a new log would drop it). The ordering it protects needs the debt paid before a state that
 * could let a newer record of the replay's key run, not before every main record of the partition.
 *
 * Fixed: paying is best effort: a refused payment stays owed for the next state and fails
 * nothing (key-parking.ts payOwedTierCommits), so one tier's refusals no longer stop its main
 * partition; the order it protects is then as before the debt, for as long as the tier refuses.
 */
jest.setTimeout(60_000);

/** Commits of the 1m tier refused while it is gone: this many. */
const OUTAGE_COMMITS = 200;

describe('park-by-key, a tier commit refused after its state was stored, the tier then refusing commits for a while', () => {
  it("still commits the main partition's records meanwhile: a main record of a free key runs once", async () => {
    const w = world();
    const retrying = await replayWaitingBehindHeldKey(w, 'confluent');
    const commit = w.broker.commit.bind(w.broker);
    let gone = false;
    let refusals = 0;
    w.broker.commit = (g, offsets) => {
      // From the release's 1m commit (past the replay: 2) on, commits of the 1m tier are refused.
      if (!gone && offsets.some((o) => o.topic === tier1m!.topic && o.offset === '2')) gone = true;
      if (gone && refusals < OUTAGE_COMMITS && offsets.some((o) => o.topic === tier1m!.topic)) {
        refusals++;
        throw new BrokerRefusedError(`This server does not host this topic-partition: ${tier1m!.topic}-0`);
      }
      commit(g, offsets);
    };
    await w.broker.run({ stopWhen: () => gone && w.handled.includes('k:w') });
    await w.broker.run({ until: w.clock.now() + 1_000 });
    w.produce('n', '1'); // main offset 2: a record of a free key of the same partition, during the outage
    await w.broker.run({ until: w.clock.now() + 60_000, maxSteps: 1_000_000 });
    await retrying.stop();
    expect(gone).toBe(true);
    expect(w.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(3);
    // Seen: 200 (one run per refused payment of the owed 1m commit).
    expect(w.handled.filter((h) => h === 'n:1')).toHaveLength(1);
  });
});
