import { emptyParkState } from '../../src/runtime/park-state';
import type { PartitionParking } from '../../src/runtime/partition-parking';
import type { ConsumedRecord } from '../../src/runtime/router';
import { encodeTierCommit } from '../../src/runtime/tier-commit-metadata';
import { ParkingBudget } from '../../src/runtime/parking-budget';
import { decodeTierCommit } from '../../src/runtime/tier-commit-metadata';
import { doneBeforeLoad, tierHandledOf, withTierMetadata } from '../../src/runtime/tier-position';
import { createTierTurns } from '../../src/runtime/tier-turns';

const TIER = 'orders.retry.1m';

const tierRecord = (offset: bigint, timestamp: bigint): ConsumedRecord => ({
  topic: TIER,
  partition: 0,
  message: { offset: offset.toString(), timestamp: timestamp.toString(), key: Buffer.from('k'), value: Buffer.from(`v${offset}`) },
  heartbeat: async () => undefined,
});

/** A parking loaded from a tier commit at 10 that kept records 10 to 19 handled (15 waiting), anchored on the record at 10 (timestamp 500). */
function loaded(firstDone = false, anchoredBefore = false): PartitionParking {
  const turns = createTierTurns();
  if (anchoredBefore) turns.anchored(TIER, 0, 10n, 500n);
  const metadata = encodeTierCommit(10n, { handledBelow: 20n, waiting: [15n], firstTimestamp: 500n, ...(firstDone ? { firstDone } : {}) });
  const tierHandled = tierHandledOf(0, [{ topic: TIER, offset: '10', metadata }], turns);
  return { state: emptyParkState(0n), records: new Map(), heldSince: new Map(), turns, tierHandled, tierCommitted: new Map([[TIER, 10n]]), tierRead: new Map(), soughtSinceTaken: false };
}

describe('a tier partition\'s kept position, read again after a load', () => {
  it('says the record at the commit\'s offset is done too when the commit was anchored on the last record done', () => {
    expect(loaded(true).tierHandled.get(TIER)?.fromDone).toBe(true);
    expect(loaded(false).tierHandled.get(TIER)?.fromDone).toBe(false);
  });

  it('skips the records past the anchor that were done, once the anchor read there is this log\'s, but not one that waited its turn', () => {
    const parking = loaded();
    expect(doneBeforeLoad(parking, tierRecord(10n, 500n))).toBe(false); // the anchor itself runs (not marked done)
    expect(parking.turns.isAnchored(TIER, 0, 10n, 500n)).toBe(true);
    expect(doneBeforeLoad(parking, tierRecord(11n, 501n))).toBe(true);
    expect(doneBeforeLoad(parking, tierRecord(15n, 505n))).toBe(false);
    expect(doneBeforeLoad(parking, tierRecord(20n, 510n))).toBe(false);
  });

  it('skips nothing when the record at the anchor\'s offset is another log\'s (its timestamp differs), and forgets the position', () => {
    const parking = loaded();
    expect(doneBeforeLoad(parking, tierRecord(10n, 999n))).toBe(false);
    expect(parking.turns.isAnchored(TIER, 0, 10n, 500n)).toBe(false);
    expect(doneBeforeLoad(parking, tierRecord(11n, 501n))).toBe(false);
    expect(parking.tierHandled.has(TIER)).toBe(false);
  });

  it('skips nothing before the anchor was read, and nothing once a record comes below the anchor or below one read before it', () => {
    const unread = loaded();
    expect(doneBeforeLoad(unread, tierRecord(11n, 501n))).toBe(false);
    const below = loaded();
    doneBeforeLoad(below, tierRecord(10n, 500n));
    expect(doneBeforeLoad(below, tierRecord(9n, 499n))).toBe(false);
    expect(doneBeforeLoad(below, tierRecord(11n, 501n))).toBe(false);
    const back = loaded();
    doneBeforeLoad(back, tierRecord(10n, 500n));
    doneBeforeLoad(back, tierRecord(12n, 502n));
    expect(doneBeforeLoad(back, tierRecord(11n, 501n))).toBe(false);
  });

  it('believes a position at once when this generation read its anchor already (a reload), and still forgets it at a record below the anchor', () => {
    const reloaded = loaded(false, true);
    expect(reloaded.tierHandled.get(TIER)?.verified).toBe(true);
    expect(doneBeforeLoad(reloaded, tierRecord(9n, 499n))).toBe(false);
    expect(doneBeforeLoad(reloaded, tierRecord(11n, 501n))).toBe(false);
    expect(reloaded.tierHandled.has(TIER)).toBe(false);
  });

  it('is written again with the next tier commit: the loaded position and its records still waiting kept, anchored where the load was', () => {
    const parking = loaded();
    doneBeforeLoad(parking, tierRecord(10n, 500n));
    // This generation ran the anchor (10) only: its own position is 11, below the loaded one.
    const commit = withTierMetadata(parking, { topic: TIER, partition: 0, offset: '10', handledBelow: 11n }, new ParkingBudget(4_096, 'orders', () => undefined));
    expect(commit.offset).toBe('10');
    const kept = decodeTierCommit(10n, commit.metadata);
    expect({ handledBelow: kept.handledBelow, waiting: kept.waiting, firstTimestamp: kept.firstTimestamp }).toEqual({ handledBelow: 20n, waiting: [15n], firstTimestamp: 500n });
  });

  it('keeps a loaded record waiting only while this generation has not handled it: at its own position still waiting, below it run', () => {
    const commitAt = (handledBelow: bigint) => {
      const parking = loaded();
      doneBeforeLoad(parking, tierRecord(10n, 500n));
      const commit = withTierMetadata(parking, { topic: TIER, partition: 0, offset: '10', handledBelow }, new ParkingBudget(4_096, 'orders', () => undefined));
      return decodeTierCommit(10n, commit.metadata).waiting;
    };
    expect(commitAt(15n)).toEqual([15n]);
    expect(commitAt(16n)).toEqual([]);
  });
});
