import { BrokerRefusedError } from '../../src/simulate/memory-broker';
import { consumer, tier1m, world } from './park-by-key-world';
import { newTierRecordsAcrossRestart, refuseReleaseTierCommit, replayWaitingBehindHeldKey } from './waiting-replay-world';

/**
 * Attack 26, finding: LOST (left open by 8034db8: a debt is paid whenever the group's commit of
 * its tier partition is numeric and not past it, which a new log's first commit also is).
 *
 * Scenario: the stack's topics are replaced (a Terraform replacement: the main topic and its 1m
 * tier deleted and created again at once, no rebalance; kafkajs reads the new logs from 0). k:a
 * fails on the main topic and in the 1m tier (k held, copy in 10m); a DLQ replay k:w waits its
 * turn at 1m offset 1. k:a's 10m copy succeeds: the release runs k:w and stores the state; the
 * 1m commit past k:w (offset 2) is refused as the topics go: owed. The next operation loads the
 * state again: the main topic's commit is gone (-1), so a state begins from nothing and, as
 * every new state does, stamps its new id into the tiers' commits (stampTiers), the 1m tier's
 * at '0' (it has no commit either). Two records fail on the new main log (n:1, m:2): their
 * copies are the new 1m log's offsets 0 and 1, due in a minute. n:1's state commit pays the
 * debt first: the group's 1m commit reads 0, numeric and not past 2, so it is "due" and sent.
 * The member restarts (a deploy) before the copies are due.
 *
 * Seen: the group's 1m commit is 2 (with the old state's id) on a new log of two records; the
 * restart reads from 2 and n:1, m:2 never run (LOST).
 * At 9c99f0b^ (before the debt): passes (nothing owed; the 1m commit stays at the stamp's 0).
 * At 9c99f0b (debt without the group-commit check): fails the same way.
 *
 * Code at fault: src/runtime/key-parking.ts payOwedTierCommits(): `BigInt(group.offset) <=
 * BigInt(debt.sent.offset)` takes any numeric group commit not past the debt for the debt's own
 * log. The check tells a new log only by a missing commit (-1), but this member's own load
 * writes one there (stampTiers: `committed.get(topic) ?? '0'`) without going through the tier
 * turns (no accepted(), so the debt is not paid or dropped), as does any commit onto the new
 * log that the turns do not see.
 *
 * The payment also writes the old state's id (`!<old id> +2`) into the 1m commit while the 10m
 * and 1h commits carry the new one: tier-commit-state-id.ts agreedStateId() then finds no agreed
 * id, so a later loss of the new state takes a fresh id instead of its own (not run here).
 *
 * Class: an old log's offset committed onto a new one (attack 9, 10, 12, 14, 15, 25's family).
 *
 * Fix: keep with each debt what the group's commit of its tier partition was when it was owed
 * (the offset and metadata the state's load or the last accepted commit saw, or at least
 * `turns.lastAccepted`), and pay only while the group's commit is still exactly that (same
 * offset and metadata: what this member last stored); anything else, forgive. Simplest too:
 * drop every debt of main partition p when a load of p begins a state from nothing or stamps
 * the tiers (a main log gone makes its replays' runs another log's history anyway).
 *
 * Fixed: a debt is paid only over the commit this member stored last for its tier partition
 * (turns.lastAccepted, read back from the group): a load's stamp on a new log, or any commit
 * not this member's last, forgives it (key-parking.ts payOwedTierCommits).
 */
jest.setTimeout(60_000);

describe('park-by-key, a tier commit owed as the main topic and its tiers are deleted and created again', () => {
  it("never pays the old log's owed offset over the new state's birth stamp: every record of the new tier log runs", async () => {
    const w = world();
    const retrying = await replayWaitingBehindHeldKey(w, 'kafkajs');
    // The release's 1m commit meets the replacement: main topic and 1m tier deleted and created again, no rebalance.
    const refused = refuseReleaseTierCommit(w, () => {
      for (const topic of [consumer.mainTopic, tier1m!.topic]) {
        w.broker.recreateTopic(topic, { rebalance: false });
        w.broker.readFromEarliest(topic, 0);
      }
      throw new BrokerRefusedError(`This server does not host this topic-partition: ${tier1m!.topic}-0`);
    });
    await w.broker.run({ until: w.clock.now() + 1_000 });
    expect(refused()).toBe(true);
    // Seen: 2, the old log's offset the debt carried, on a log of two records not yet run.
    const committed = await newTierRecordsAcrossRestart(w, retrying);
    expect(w.handled).toContain('n:1'); // seen: never run
    expect(w.handled).toContain('m:2'); // seen: never run
    expect(committed ?? -1).toBeLessThanOrEqual(0);
  });
});
