import { BrokerRefusedError } from '../../src/simulate/memory-broker';
import { tier1m, world } from './park-by-key-world';
import { newTierRecordsAcrossRestart, parkNewerRecordOfKey, refuseReleaseTierCommit, replayWaitingBehindHeldKey } from './waiting-replay-world';

/**
 * Attack 25, finding: LOST (caused by 9c99f0b: owed tier commits are paid with no check that the
 * tier's log is still the one they were computed on).
 *
 * Scenario: k:a fails on the main topic and in the 1m tier (k held, its copy in the 10m tier); a
 * DLQ replay of k, k:w, waits its turn at 1m offset 1; k:b parks behind. k:a's 10m copy succeeds,
 * the release runs k:w and stores the state; the 1m commit past k:w (offset 2, with its metadata)
 * is refused because the 1m tier was just deleted (a Terraform replacement); it is created again
 * at once, with no rebalance (kafkajs reads the new log from 0, as attack 14 models it). The owed
 * commit is kept. k:b's turn comes (the reload reads it again) and its state commit first pays
 * what is owed: 1m offset 2, onto the new, empty log. Two main records of other keys (n:1, m:2)
 * fail: their copies are the new log's offsets 0 and 1, due in a minute. The member restarts (a
 * deploy) before they are due.
 *
 * Seen: the group's 1m commit is 2 on a log of two records; the restart reads from 2 and n:1 and
 * m:2 never run (LOST). At HEAD~1 the refused commit was never sent again, the recreated topic has
 * no commit, the restart reads it from the earliest and both run (this test passes there).
 *
 * Code at fault: src/runtime/key-parking.ts payOwedTierCommits(): it sends `owed.sent` as it was
 * computed on the old log. tier-turns.ts drops what is owed for a tier partition only when a
 * record read shows its log moved back (read() -> newLog -> paid), which a new log nobody read
 * yet never does; the drain's own commits are guarded against this (tierMayHaveStartedOver,
 * attack 15) but the owed payment is not. acceptedTierCommits() then also sets doneUpTo from the
 * old log's handledBelow.
 *
 * Class: an old log's offset committed onto a new one (attack 9, 10, 12, 14, 15's family).
 *
 * Fix: before paying, drop each owed commit whose tier partition may have started over: the same
 * check as drain's tierMayHaveStartedOver, but against what the owed commit's log had (record the
 * group's commit, or the tier's log generation from tier-turns, when owing; pay only while the
 * group's commit of the tier is still at or above the offset it had then and the tier turns'
 * log count for it is unchanged). A new log is then read from its start: the replay may run
 * again, never is a new record skipped.
 *
 * Fixed: a debt is paid only onto the log it was owed on: the group's commit of its tier partition
 * read first, and a debt whose commit is gone (-1, the tier created again) or past it forgiven
 * (key-parking.ts payOwedTierCommits).
 */
jest.setTimeout(60_000);

describe('park-by-key, a tier commit refused as its tier topic is deleted, then the topic created again', () => {
  it("never commits the old log's offset, owed, onto the new log: every record of the new log runs", async () => {
    const w = world();
    const retrying = await replayWaitingBehindHeldKey(w, 'kafkajs');
    await parkNewerRecordOfKey(w);
    // The release's 1m commit finds the 1m tier deleted: it is created again at once, with no rebalance.
    const refused = refuseReleaseTierCommit(w, () => {
      w.broker.recreateTopic(tier1m!.topic, { rebalance: false });
      w.broker.readFromEarliest(tier1m!.topic, 0);
      throw new BrokerRefusedError(`This server does not host this topic-partition: ${tier1m!.topic}-0`);
    });
    await w.broker.run({ stopWhen: () => w.handled.includes('k:b') });
    expect(refused()).toBe(true);
    // Seen: 2, the old log's offset the owed commit carried, on a log of two records not yet run.
    const committed = await newTierRecordsAcrossRestart(w, retrying);
    expect(w.handled).toContain('n:1'); // seen: never run
    expect(w.handled).toContain('m:2'); // seen: never run
    expect(committed ?? -1).toBeLessThanOrEqual(0);
  });
});
