import { HEADERS } from '../../src/naming/headers';
import { consumer, T0, tier1m, world } from './park-by-key-world';

/**
 * Found by attack (attack9). A tier record that waits its turn (a replay from the DLQ whose key
 * is busy, or since 8264302 any copy of a lost state whose key is busy) holds its tier
 * partition's commit back for as long as it waits (up to the key's whole ladder), while the
 * records behind it run. One rebalance then runs every one of them again that the hold check
 * does not skip (replays and other unjudged records, and copies whose key is still held):
 * here 600 records run twice after one rebalance, over the documented duplicate bound
 * ("at most maxRecords per consumer", 500, plus the record in hand per partition), which
 * docs/runtime.md (Park-by-key: "the tier records after it that ran are then copies, which
 * the hold check skips or runs again within the duplicate bound") says holds here.
 *
 * Scenario: k:a fails for good (k held for the ladder: 1m, 10m, 1h). An operator runs `krt dlq
 * replay` of 601 DLQ records into the 1m tier; the first is k's (its key busy: it waits its
 * turn), the other 600 are of free keys and run. A rebalance follows (a deploy, a member
 * joining) while k is still held.
 *
 * Seen: every one of the 600 replayed records runs twice (1,200 runs), no crash, one
 * rebalance; the 1m tier's commit stayed at k's replayed record throughout.
 *
 * Code (then): src/runtime/key-parking.ts onTierRecord (`turns.wait(...)`; each record behind it
 * was committed through `turns.commit`, which never passes the waiting one), and nothing kept
 * which records behind it were done, so `unjudged()` ran every replay again on the re-read.
 *
 * Class: a commit held back with nothing durable saying what was done behind it.
 *
 * Fixed (src/runtime/tier-commit-metadata.ts): a tier commit keeps, in its metadata, how far
 * its partition was handled and which records there still wait their turn; read again, the
 * records in between that were done are committed without running.
 */
jest.setTimeout(60_000);

describe('park-by-key, a replayed tier record waiting its turn, then a rebalance', () => {
  it('runs again no more than the duplicate bound of the records behind it', async () => {
    const w = world();
    w.alwaysFail.add('k:a');
    w.produce('k', 'a'); // main offset 0
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('k:a FAIL') });
    const template = w.broker.records(tier1m!.topic, 0)[0]!;
    const replay = (key: string, original: number) =>
      w.broker.append(tier1m!.topic, {
        key: Buffer.from(key),
        value: Buffer.from(key === 'k' ? 'a' : String(original)),
        partition: 0,
        headers: { ...template.headers, [HEADERS.originalOffset]: String(original), [HEADERS.replayedFromDlq]: 'true', [HEADERS.dueAt]: String(T0) },
      });
    replay('k', 999); // an older record of k, replayed; k is held by k:a's retry: this one waits its turn
    for (let i = 1; i <= 600; i++) replay(`r${i}`, 1_000 + i);
    const runsOfReplays = () => w.handled.filter((h) => h.startsWith('r')).length;
    await w.broker.run({ stopWhen: () => runsOfReplays() === 600 });
    expect(w.broker.committedOffset(consumer.groups.main, tier1m!.topic, 0)).toBeLessThanOrEqual(2); // held back at k's replay

    w.broker.rebalance(consumer.groups.main);
    await w.broker.run({ until: w.clock.now() + 30_000, stopWhen: () => runsOfReplays() >= 1_200 });
    await retrying.stop();

    // Before the fix: 1,200 runs of the 600 replayed records: every one ran twice after one rebalance.
    // The bound allows the window (500) and the records in hand; the records done behind the waiting one are now skipped outright.
    expect(runsOfReplays() - 600).toBeLessThanOrEqual(500 + 10);
    expect(runsOfReplays() - 600).toBe(0);
    expect(w.handled.filter((h) => h === 'k:a FAIL').length).toBeGreaterThanOrEqual(1);
  });
});
