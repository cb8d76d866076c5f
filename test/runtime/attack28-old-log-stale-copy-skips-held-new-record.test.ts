import { emptyParkState, keyHash, parkStateMetadata, takeHold } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import { PublishHeld } from '../../src/runtime/record-handler';
import type { RoutedFailure } from '../../src/runtime/record-handler';
import { MAIN, mainRecord, parkingWorld, replayedRecord, TIER, tierRecord } from './key-parking-world';

/**
 * Attack 28 (on 6d3fd7f): a LOST record: a record of a tier's new log skipped as "known done"
 * because an old log's record at its offset, with its timestamp, was judged stale.
 *
 * Scenario: main partition 0's stored state holds k at 0 and has k@1 parked. The copy of k@1
 * (a run whose state was never stored) is read at 1m-tier offset 0: it waits right behind its
 * record (copyOf 1). The 1m tier is deleted and created again with no rebalance; the new log's
 * record at offset 0 is f's replay (another key, another value; same timestamp). Reading it, the
 * turns see the log moved back (tier-turns.ts read: another record at the last read's offset) and
 * forget what they knew. f's replay runs, its publish is held (PublishHeld: the DLQ refused its
 * copy), so the tier partition waits at it and reads it again, `held`. Meanwhile k's hold
 * expires: the drain runs k@1 and judges the old log's waiting copy stale, and marks it known
 * done, by offset and timestamp, in the map of the partition's log now.
 *
 * Seen: f's replay read again (held) is taken for that old record (`isKnownDone`: offset 0,
 * timestamp 0), skipped as a stale tier record and committed past (1m tier at 1): it never goes
 * to the DLQ nor runs. LOST. Before 6d3fd7f (78e5795) it is published.
 *
 * Code at fault: key-parking.ts drain: `turns.knownDone(turn.record)` for a stale copyOf turn
 * is not guarded by `!turns.ofAnotherLog(turn)` (the run path's ranUnjudged is), so an old
 * log's identity lands in the new log's known set; and tier-turns.ts `identity` is offset +
 * timestamp only, weaker than isSameRecord (key and a value digest too), the identity every
 * other check of a record read again uses since attack 15. Also: the known check comes before
 * `held` is considered, so a held record (whose handle never finished) can be skipped unrun.
 *
 * Class: identity by offset outliving the log it names (attacks 12, 14, 15), here via a weaker
 * identity. Needs equal timestamps (the same millisecond of failure; the test harness stamps 0),
 * so rare in production, but nothing excludes it.
 *
 * Fix: mark known done only records of the log now (`!ofAnotherLog` in drain), and key the
 * known set by recordIdentity (offset, timestamp, key, value digest); never skip a `held` read
 * as known done unless that very record (isSameRecord) was judged.
 *
 * Fixed: a record is known done on its own log only (the drain's stale copy of a log since gone
 * is not), and known by its identity (offset, time, key, value digest: record-identity.ts), as the
 * state's names of runs are (ran-unjudged.ts runIdOf).
 */
describe('attack 28: an old tier log\'s stale copy known done, a new log\'s held record at its offset', () => {
  const hash = (key: string) => keyHash(Buffer.from(key));

  it('still publishes the new log\'s held record', async () => {
    const stored: ParkState = { ...emptyParkState(2n), parked: new Map([[1n, hash('k')]]) };
    takeHold(stored, hash('k'), 0n, undefined);
    const w = parkingWorld({ holdExpiryMs: 1_000 });
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '1', metadata: parkStateMetadata(stored) }]);

    // Old log, offset 0: the copy of k@1 (parked): it waits right behind its record.
    await w.runTier(tierRecord(0, 'k', 1));
    expect(w.events.some((e) => e.type === 'parked' && e.record.topic === TIER)).toBe(true);
    await w.parking.onMainRecord(mainRecord(1, 'k', 'b')); // the re-read of k@1: parked, k still held

    // The tier is created again: its new log's record at 0 is f's replay; its DLQ publish is held.
    const fresh = replayedRecord(0, 'f', 7);
    const attempts: string[] = [];
    await w.parking.onTierRecord(fresh, async () => {
      attempts.push('first');
      throw new PublishHeld({} as RoutedFailure, 1_000);
    });
    expect(attempts).toEqual(['first']);

    // k's hold expires: k@1 runs, the old log's copy of it is judged stale.
    await w.advanceTo(2_000);
    expect(w.handled).toContain('k:b');

    // f's replay read again, held: it must go to the DLQ now.
    await w.parking.onTierRecord(
      fresh,
      async () => {
        attempts.push('held');
        return { outcome: 'dlq', commit: { topic: TIER, partition: 0, offset: '1' } };
      },
      true,
    );
    expect(attempts).toEqual(['first', 'held']);
  });
});
