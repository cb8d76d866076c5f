import { BrokerRefusedError } from '../../src/simulate/memory-broker';
import { consumer, T0, world } from './park-by-key-world';

/**
 * Attack 27, finding: ORDER (left open by 020e919: the runs the state records are replays' only).
 *
 * Scenario: k:a fails on the main topic and in the 1m tier (k held, its copy in the 10m tier).
 * The partition's state is then lost (its commit keeps the offset, no metadata: an offset reset,
 * a client committing without metadata) and read again after a rebalance: k:a's 10m copy is now
 * unproven (from below the lost mark), and runs unjudged as a replay does. k:c (main offset 1)
 * runs under the new state, fails twice and holds k (its copy in 10m, behind k:a's). k:a's 10m
 * copy comes due: k is held, it waits its turn. k:b (main offset 2) parks behind. k:c's 10m copy
 * succeeds: the release drains k: k:a's copy runs first (its turn), commitDrained stores the
 * state (k free), then the 10m commit past k:a's copy meets a rebalance (REBALANCE_IN_PROGRESS).
 *
 * Seen: k:a FAIL, k:a FAIL, k:c FAIL, k:c FAIL, k:c, k:a, k:b, k:a. The new generation reads the
 * 10m tier from 0: k:a's copy is unproven, no hold judges it and the state names no run of it
 * (markRan marks replays only), so it waits behind k:b and runs again after it: an older update
 * over a newer one of its key. The same follows for every record `unjudged()` runs as a replay:
 * one from before a shed's or a give-up's mark, one whose PARK_STATE_HEADER is damaged past a
 * replay's hold; and, by the code's reading (not run here), with a crash in place of the rebalance.
 * At 70e4417 (before the marks): fails the same way (attack 25's class: the debt is in memory).
 *
 * Code at fault: src/runtime/ran-unjudged.ts markRan (`isReplay(record)`), called from
 * key-parking.ts onTierRecord's not-current path and drain(): a run recorded by no hold is
 * recorded by the state only for replays; an unproven copy's run is recorded by its tier commit
 * alone, which the rebalance loses with the debt (tier-turns.ts owe, per generation).
 *
 * Class: a durable state stored ahead of the one durable record (the tier commit) of a run no
 * hold judges; the fix of attack 25 covered one kind of such run.
 *
 * Fix: mark every tier record run unjudged while not its key's current retry (the condition
 * `unjudged(state, record, original)` or `foreign`, not only `isReplay`), by its place and an
 * id from its topic, partition, offset and timestamp (retryIdOfReplay works for any record);
 * ranBefore then skips any such record read again, not only replays.
 *
 * Fixed: every tier record that runs unjudged by a hold is recorded in the state until its tier
 * commit is stored, not only replays (ran-unjudged.ts).
 */
jest.setTimeout(60_000);

const tier10m = consumer.tiers[1]!;

describe('park-by-key, an unproven copy (from before a lost state) whose tier commit is refused with a rebalance after its state was stored', () => {
  it('does not run again after the newer record of its key parked behind it', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    w.failOnce.add('k:a');
    w.produce('k', 'a'); // main offset 0: fails, k held, its copy in 1m
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
    w.failOnce.add('k:a'); // its 1m copy fails too: in 10m
    await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'k:a FAIL').length === 2 });
    w.loseState('empty'); // the state is lost (an offset reset, a client committing without metadata)
    w.broker.rebalance(consumer.groups.main); // and read again: k:a's retry is unproven now
    w.failOnce.add('k:c');
    w.produce('k', 'c'); // main offset 1: k free in the new state: runs, fails, holds k
    await w.broker.run({ stopWhen: () => w.handled.includes('k:c FAIL') });
    w.failOnce.add('k:c');
    await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'k:c FAIL').length === 2 }); // k:c's copy in 10m, behind k:a's
    // k:a's 10m copy comes due: unproven (from before the lost state), k held by k:c: it waits its turn.
    await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked' && e.record.topic === tier10m.topic) });
    w.produce('k', 'b'); // main offset 2: parked behind k's hold and the waiting copy
    await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked' && e.record.topic === consumer.mainTopic) });
    const commit = w.broker.commit.bind(w.broker);
    let refused = false;
    w.broker.commit = (g, offsets) => {
      // The 10m commit past k:a's copy, sent once its state is stored, is refused with a rebalance.
      if (!refused && offsets.some((o) => o.topic === tier10m.topic && o.offset !== '0')) {
        refused = true;
        w.broker.rebalance(consumer.groups.main);
        throw Object.assign(new BrokerRefusedError('The group is rebalancing, so a rejoin is needed'), { type: 'REBALANCE_IN_PROGRESS', retriable: true });
      }
      commit(g, offsets);
    };
    await w.broker.run({ until: T0 + 3_600_000 });
    await retrying.stop();
    const ofK = w.handled.filter((h) => h.startsWith('k:'));
    expect(refused).toBe(true);
    // Seen: k:a FAIL, k:a FAIL, k:c FAIL, k:c FAIL, k:c, k:a, k:b, k:a
    expect(ofK).toContain('k:b');
    expect(ofK.lastIndexOf('k:a')).toBeLessThan(ofK.indexOf('k:b'));
  });
});
