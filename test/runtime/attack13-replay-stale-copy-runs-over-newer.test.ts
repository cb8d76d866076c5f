import { HEADERS } from '../../src/naming/headers';
import { faultWorld } from './attack13-fault-world';
import { consumer, refuseOnce, T0, tier1m, world } from './park-by-key-world';

/**
 * Found by attack 13 (a key run out of order; no record lost), a regression of 9e5b7b8 ("a replay
 * through a tier keeps x-replayed-from-dlq on every later copy"): the test passes at d4de591.
 *
 * Scenario: key k's main record k:a ran (main offset 0). A DLQ record of k is replayed into
 * the 1m tier (original offset 0). k is free, so it runs, fails once, and its copy goes to the
 * 10m tier; it holds k (at 0) and the main state with the hold is stored, but the 1m tier
 * commit after it is refused once (the coordinator moving). The replay is read again: it is
 * now k's current retry (the hold names its original offset), runs again and succeeds, which
 * releases k. A newer record of k, k:new, produced meanwhile, parks behind the hold and runs
 * at the release. Ten minutes later the 10m copy of the first run comes due.
 *
 * Seen: the 10m copy runs (`k:rep` after `k:new`): an older update applied over a newer one of
 * its key. It is a genuine stale copy (its retry ended with the re-run's success, and the key
 * is free), which park-by-key skips for a main record's lineage (`stale-tier-record`).
 *
 * Code at fault: src/runtime/destination-record.ts carries x-replayed-from-dlq onto the copy,
 * and key-parking.ts unjudged() then takes every copy of a replay as not judgeable by the
 * holds: a copy that is not the key's current retry is run instead of skipped.
 *
 * Class: a mark meant to say "this record is no copy" now also rides on the copies; the stale
 * copy check is switched off for a whole lineage to cover one state without an id.
 *
 * Fixed (9e5b7b8 reverted): copies carry no replay mark; the copy of a record no hold may judge
 * carries NO_STATE_ID instead (park-state.ts), and a copy that took a hold carries the state's id,
 * judged by the hold as before. A replay itself is never its key's current retry, so the replay
 * read again after the refused commit waits its turn and runs once more after k:new (a duplicate
 * of a record whose commit was refused, as at-least-once allows), and the 10m copy ends its retry.
 */
jest.setTimeout(60_000);

/** A DLQ record of k (original offset 0) replayed into the 1m tier of partition 0, due at once. */
function replay(w: ReturnType<typeof world>): void {
  w.broker.append(tier1m!.topic, {
    key: Buffer.from('k'),
    value: Buffer.from('rep'),
    partition: 0,
    headers: {
      [HEADERS.attempt]: '1',
      [HEADERS.dueAt]: String(w.clock.now()),
      [HEADERS.originalTopic]: consumer.mainTopic,
      [HEADERS.originalPartition]: '0',
      [HEADERS.originalOffset]: '0',
      [HEADERS.replayedFromDlq]: 'billing.dlq/0:0',
    },
  });
}

/** k's runs, each with the topic it ran from. */
const kRuns = (w: ReturnType<typeof world>) =>
  w.runs.filter((r) => r.label.startsWith('k:')).map((r) => `${r.label}@${r.topic === consumer.mainTopic ? 'main' : r.topic.split('.').pop()}`);

describe('park-by-key, a stale copy of a replay that failed on once', () => {
  it('never runs after a newer record of its key: the replay\'s retry ends with it, before the newer record', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    w.produce('k', 'a');
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a') });
    w.failOnce.add('k:rep');
    replay(w);
    // The 1m tier's commit past the replay is refused once, after the state with k's hold is stored.
    let newerProduced = false;
    refuseOnce(w.broker, (o) => {
      const matches = o.topic === tier1m!.topic && Number(o.offset) >= 1;
      if (matches && !newerProduced) {
        newerProduced = true;
        w.produce('k', 'new');
      }
      return matches;
    });
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await retrying.stop();
    // The replay's retry ends (its 10m copy) before k:new. The replay read again after the refused
    // commit, while its own retry holds k, is that retry's record: committed unrun (since session 37;
    // before, it ran once more in its turn, after k:new: an older update over a newer one, which
    // attack 13's order property found). Seen first: the 10m copy ran after k:new.
    expect(kRuns(w)).toEqual(['k:a@main', 'k:rep@1m', 'k:rep@10m', 'k:new@main']);
    expect(w.events.filter((e) => e.type === 'stale-tier-record').map((e) => ('record' in e ? e.record.topic : ''))).toContain(tier1m!.topic);
  });

  /**
   * The same stale copy with no fault at all: the DLQ record is replayed twice (the replay run
   * again by an operator, or its producer retried). The first replay fails on (its 10m copy
   * holds k at 0); the second, due at once, is taken for k's current retry (the hold names its
   * original offset), succeeds and releases k; k:new runs; the first replay's 10m copy then
   * runs over it. At d4de591 that copy was skipped as stale (the test passes there).
   */
  it('never runs after a newer record of its key when the DLQ record was replayed twice: the second replay runs in its turn', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    w.produce('k', 'a');
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a') });
    w.failOnce.add('k:rep');
    replay(w);
    await w.broker.run({ stopWhen: () => w.handled.includes('k:rep FAIL') });
    w.produce('k', 'new'); // parks behind the first replay's hold
    replay(w);
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await retrying.stop();
    // The second replay came due after k:new was read: it runs in its turn, after k:new, as a
    // replay does; the first replay's retry ends with its 10m copy, before k:new.
    expect(kRuns(w)).toEqual(['k:a@main', 'k:rep@1m', 'k:rep@10m', 'k:new@main', 'k:rep@1m']);
  });

  /**
   * The same with no fault but rebalances, in the fault world of attack 13 (replays that name a
   * main record), as its order property found it (KRT_ATTACK13_ORDER=1, seed 1): key C's first
   * replay fails in the 1m tier and holds C; a rebalance comes before its tier commit, so it
   * is read and run again as C's current retry: two 10m copies. C's second replay waits behind
   * the hold. The first 10m copy succeeds and releases C, the second replay runs, and the
   * second 10m copy, stale, runs over it. At d4de591 the copy was skipped (the test passes there).
   */
  it('never runs over a newer record when a rebalance ran the replay twice', async () => {
    const result = await faultWorld({
      ordering: 'park-by-key',
      reaction: 'kafkajs',
      records: [
        { key: 'A', partition: 1, failures: 0 },
        { key: 'B', partition: 0, failures: 0 },
      ],
      replays: [
        { key: 'C', partition: 1, failures: 1 },
        { key: 'C', partition: 1, failures: 0 },
        { key: 'A', partition: 1, failures: 1 },
      ],
      faults: [],
      events: [
        { kind: 'rebalance', at: 23 },
        { kind: 'rebalance', at: 13 },
      ],
      parkingBudgetBytes: 60,
      partitions: 2,
    }).run();
    expect(result.lost).toEqual([]);
    expect(result.outOfOrder).toEqual([]); // seen: ["C: replay 2's copy orders.confirmed.retry.10m/1@1 ran over 3"]
  });
});
