import { BIG, HeldMainWorld } from './held-main-world';

/**
 * Found by attack 17: LOST records, an old log's offset committed onto a new one by a retry.
 *
 * Scenario: the group coordinator refuses commits for about a minute. a at 0 and b at 1 run, big
 * at 2 is held (no copy fits), its partition paused. Meanwhile the main topic is deleted and
 * created again (no rebalance); the operator has not raised the limit yet. The coordinator comes
 * back; later four records land in the new log, then a deploy.
 *
 * Seen: the group's commit of the new, empty log is 2 once the outage ends, and after the deploy
 * n0 and n1 never run. The commit of 2 (a and b done, big holding the rest) was refused before
 * the recreation and kept for the retry (offset-committer.ts: on a refusal `pending.set(...)`,
 * then `schedule()`); the retry sends the stored offset after the recreation. The partition is
 * paused for its hold, and main-pipeline.ts promises nothing of it is committed until its first
 * batch after the resume has been judged (publishInBackground returns before markProgress), but
 * that gate is a caller's skip of markProgress: a commit already queued in the committer goes out.
 * (Without the held record, the same outage and recreation land the same 2 on the new log and lose
 * the same records: tried while writing this, not kept.)
 *
 * Code at fault: src/runtime/offset-committer.ts, the refused commit's retry of a stored offset
 * (`pending`), which no later knowledge of the partition revisits; with
 * src/runtime/main-pipeline.ts's commit gate living outside the committer.
 *
 * Class: an offset of the old log committed onto the new one (attack 9/10/12/14/15/16's family),
 * by a path the pipeline's gate does not see.
 *
 * Fix I'd make: for a pipelined partition, retry by reading progress.committable() again, not a
 * stored offset, and move the gate into the committer: a partition paused for a hold or awaiting
 * its anchor's judgement is held back (`commitsHeld(progress)`, skipped by sendPending, its
 * pending offset dropped). What a paused partition's retry would have committed waits for the
 * judgement; a recreation found there starts over (startsOver) before anything goes out.
 *
 * Fixed: a partition paused for a hold is withheld in the committer (offset-committer withhold):
 * nothing more of it is marked, and a refused commit of it is not tried again, until its log is judged.
 */

describe('unordered: a main topic created again (no rebalance) while a record is held and the coordinator refuses commits', () => {
  it('commits nothing of the old log onto the new one once the coordinator is back, so a deploy runs each new record', async () => {
    const world = new HeldMainWorld();
    world.produce('a');
    world.produce('b');
    world.produce(BIG); // offset 2: fits the main topic, no copy fits
    world.broker.refuseCommits(world.consumer.groups.main, 600); // about a minute of refusals, a retry per 100 ms
    await world.start();
    await world.runFor(20_000);
    expect({ held: world.count('publish-held'), committed: world.committed() }).toEqual({ held: 1, committed: undefined });

    world.recreateMainTopic();
    await world.runFor(120_000); // the coordinator comes back
    // Seen: 2, the old log's position, committed onto the new (empty) log by the refused commit's retry.
    const committedOnNewLog = world.committed();
    for (let i = 0; i < 4; i++) world.produce(`n${i}`); // the new log's offsets 0 to 3
    await world.restart(); // a deploy reads the new log from the group's commit
    expect({ pastNewLogStart: (committedOnNewLog ?? 0) > 0, ran: world.succeeded.filter((v) => v.startsWith('n')) }).toEqual({ pastNewLogStart: false, ran: ['n0', 'n1', 'n2', 'n3'] });
  }, 30_000);
});
