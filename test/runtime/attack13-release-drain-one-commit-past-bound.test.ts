import { duplicateBound } from './fault-scenarios';
import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * Found by attack 13 (duplicates past the bound; no record lost), by
 * attack13-widened-commit-faults-property.test.ts at KRT_PROPERTY_SEED=5, KRT_PROPERTY_RUNS=8000
 * (failed after 6,009 cases; shrunk to this case). Not caused by today's changes: the same
 * case runs 11 again at d4de591.
 *
 * Scenario (main partition 1, key A, commit.maxRecords 4 as the fault world sets it): A's first
 * record fails once; A's next four main records park behind its hold, and six DLQ replays of A
 * wait their turn behind it. A's retry succeeds: the release drains A's queue, four parked
 * records and six replays (four of which fail on into the 10m tier), in one operation, with one
 * commit at its end. The process crashes before that commit.
 *
 * Seen: the new process reads partition 1 and the 1m tier again from the commits before the
 * release: the release and every record it drained run again, 11 duplicates for one crash,
 * where the bound is 1 x (4 + 2 partitions x 4 topics) = 10. With maxRecords 500 it takes a
 * queue past 500 (replays waiting their turn are not bounded by the parking budget: attack 12
 * ran 1,600 behind one key).
 *
 * Code at fault: src/runtime/key-parking.ts drain(): every parked record and waiting turn of
 * the key runs before the one commit the caller makes (onTierRecord's release,
 * releaseExpired, the re-read path of onMainRecord); the commit window (maxRecords, the
 * duplicate bound in docs/runtime.md) never counts them.
 *
 * Class: a batch of work outside the commit window's backpressure.
 *
 * Fixed: a drain commits each record it runs before the next (key-parking.ts commitDrained).
 */
jest.setTimeout(60_000);

describe('park-by-key, a release that drains a long queue of its key', () => {
  it('runs again no more than the duplicate bound after a crash before its commit', async () => {
    const options: FaultWorldOptions = {
      ordering: 'park-by-key',
      reaction: 'kafkajs',
      records: [
        { key: 'A', partition: 1, failures: 1 },
        { key: 'A', partition: 1, failures: 0 },
        { key: 'A', partition: 1, failures: 0 },
        { key: 'B', partition: 0, failures: 0 },
        { key: 'A', partition: 1, failures: 0 },
        { key: 'A', partition: 1, failures: 0 },
        { key: 'B', partition: 0, failures: 2 },
        { key: 'B', partition: 0, failures: 0 },
      ],
      replays: [
        { key: 'A', partition: 1, failures: 1 },
        { key: 'B', partition: 0, failures: 2 },
        { key: 'A', partition: 1, failures: 0 },
        { key: 'A', partition: 1, failures: 1 },
        { key: 'A', partition: 1, failures: 0 },
        { key: 'C', partition: 1, failures: 1 },
        { key: 'A', partition: 1, failures: 1 },
        { key: 'A', partition: 1, failures: 1 },
      ],
      faults: [],
      events: [{ kind: 'crash', at: 64 }],
      parkingBudgetBytes: 160,
      partitions: 2,
    };
    const result = await faultWorld(options).run();
    expect(result.crashes).toBe(1);
    expect(result.lost).toEqual([]);
    expect(result.duplicates).toBeLessThanOrEqual(duplicateBound(options, 1)); // seen: 11, bound 10
  });
});
