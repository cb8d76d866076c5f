import { consumer, refuseOnce, world } from './park-by-key-world';

/**
 * Attack 27, finding: ORDER (caused by 020e919: a debt is paid only over `turns.lastAccepted`,
 * which is undefined until this generation stores a commit of the tier partition).
 *
 * Scenario (kafkajs): k:a fails on the main topic and in the 1m tier (k held, its copy in 10m,
 * due ten minutes on). The partition's state is lost (its commit keeps the offset, no metadata)
 * and read again after a rebalance: the new state stamps its id into the tiers' commits (10m at
 * '0'), and k:a's 10m copy is unproven (runs unjudged, as a replay does). Half a minute before
 * the copy is due, k:c comes, fails once and holds k (its copy in 1m). k:a's copy comes due and
 * waits its turn; k:b parks behind. k:c's 1m copy succeeds: the release runs k:a's copy, stores
 * the state (k free), and the 10m commit past the copy is refused once (the coordinator not
 * available; no rebalance): owed. kafkajs takes k:c's 1m copy again (stale: a 1m commit); k:b's
 * state commit pays the debt first: the group's 10m commit reads 0 (the load's stamp), and this
 * generation has accepted no 10m commit, so `0n === undefined` is false and the debt is
 * forgiven. Nothing else commits the 10m partition. A restart (a deploy) an hour later.
 *
 * Seen: k:a FAIL, k:a FAIL, k:c FAIL, k:c, k:a, k:b, k:a: the restart reads the 10m tier from 0
 * and k:a's unproven copy runs again after k:b, an older update over a newer one. The state names
 * no run of it (marks are for replays: attack27-unproven-copy-refused-tier-commit); a replay whose
 * mark the budget dropped (fitRanUnjudged) meets the same, which is the one case the marks' commit
 * message leaves to the debt ("within one generation the owed tier commit prevents that").
 * At 70e4417 (before this change): passes (group 0 <= the debt's offset: paid before k:b's state).
 *
 * Code at fault: src/runtime/key-parking.ts payOwedTierCommits(): `BigInt(group.offset) ===
 * parking.turns.lastAccepted(topic, tierPartition)`: with no commit of that tier partition accepted
 * in the generation (a first commit refused: common right after a restart, a rebalance or a lost
 * state, and for a quiet tier), every debt is forgiven, whatever the group's commit is.
 *
 * Class: a catch-up dropped on a check that cannot tell "unknown" from "another log" (attack 26's
 * fix narrowed the payment to the commits this generation stored, forgetting those it loaded).
 *
 * Fix: keep with each debt the group's commit of its tier partition as this member last knew it
 * (offset and metadata: from the last accepted commit, else from the load's tierCommitsOf read or
 * its stamp), and pay while the group's commit is still exactly that; forgive when it differs or
 * turns.read() saw the log move back (newLog already pays/drops it). attack26's birth-stamp case
 * stays forgiven: the stamp there was written after the debt, on the new log, so it differs.
 *
 * Fixed: a debt keeps the group commit it was owed over (the last this member stored, else the
 * one read at the load) and is paid while the group's commit is still that one (tier-turns.ts
 * OwedTierCommit.over).
 */
jest.setTimeout(60_000);

const tier10m = consumer.tiers[1];

describe('park-by-key, an unproven copy\'s tier commit refused (no rebalance) in a generation that stored no commit of that tier partition yet', () => {
  it('is paid before the next state: a restart hours later does not run the copy again after the newer record of its key', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    w.failOnce.add('k:a');
    w.produce('k', 'a'); // main offset 0: fails, k held, its copy in 1m
    let retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
    w.failOnce.add('k:a'); // its 1m copy fails too: in 10m, due ten minutes on
    await w.broker.run({ stopWhen: () => w.handled.filter((h) => h === 'k:a FAIL').length === 2 });
    const copyDue = w.clock.now() + 600_000;
    w.loseState('empty'); // the state is lost (an offset reset, a client committing without metadata)
    w.broker.rebalance(consumer.groups.main); // read again: k:a's 10m copy is unproven now
    // Half a minute before the copy is due, k:c comes: k free in the new state, it fails, holds k (its copy in 1m).
    w.clock.setTimer(copyDue - 30_000 - w.clock.now(), () => {
      w.failOnce.add('k:c');
      w.produce('k', 'c');
    });
    // k:a's 10m copy comes due: unproven, k held by k:c: it waits its turn.
    await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked' && e.record.topic === tier10m!.topic) });
    w.produce('k', 'b'); // parked behind k's hold and the waiting copy
    await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked' && e.record.topic === consumer.mainTopic) });
    // k:c's 1m copy succeeds: the release runs k:a's copy; its 10m commit, after the state, is refused once.
    refuseOnce(w.broker, (o) => o.topic === tier10m!.topic && o.offset !== '0');
    await w.broker.run({ stopWhen: () => w.handled.includes('k:b') });
    await w.broker.run({ until: w.clock.now() + 3_600_000 });
    await retrying.stop(); // a restart (a deploy), an hour later
    retrying = await w.start();
    await w.broker.run({ until: w.clock.now() + 3_600_000 });
    await retrying.stop();
    const ofK = w.handled.filter((h) => h.startsWith('k:'));
    // Seen: k:a FAIL, k:a FAIL, k:c FAIL, k:c, k:a, k:b, k:a
    expect(ofK).toContain('k:b');
    expect(ofK.lastIndexOf('k:a')).toBeLessThan(ofK.indexOf('k:b'));
  });
});
