import { HEADERS } from '../../src/naming/headers';
import { emptyParkState, parkStateMetadata } from '../../src/runtime/park-state';
import { encodeTierCommit } from '../../src/runtime/tier-commit-metadata';
import { coveredBy, fitRanUnjudged, forgetBelowGroupCommits, forgetCommittedPast, markRan, ranBefore } from '../../src/runtime/ran-unjudged';
import type { Covered } from '../../src/runtime/ran-unjudged';
import type { ConsumedRecord } from '../../src/runtime/router';

const TIERS = ['orders.retry.1m', 'orders.retry.10m'];

function tierRecord(topic: string, offset: number, { key = 'k', replayed = true, timestamp = '1000', value = 'v' } = {}): ConsumedRecord {
  return {
    topic,
    partition: 0,
    message: { key: key === '' ? null : Buffer.from(key), value: Buffer.from(value), offset: String(offset), timestamp, headers: replayed ? { [HEADERS.replayedFromDlq]: 'orders.dlq/0-3' } : {} },
  } as ConsumedRecord;
}

describe('the tier records a park-by-key state records as run unjudged', () => {
  it('records a keyed record of one of the tiers, and knows it again only at its own place, as written then', () => {
    const state = emptyParkState(5n);
    markRan(state, tierRecord(TIERS[0]!, 3), TIERS);
    expect(ranBefore(state, tierRecord(TIERS[0]!, 3), TIERS)).toBe(true);
    // Another log's record at that offset (the tier created again): another time of writing.
    expect(ranBefore(state, tierRecord(TIERS[0]!, 3, { timestamp: '2000' }), TIERS)).toBe(false);
    // ... or one written in the same millisecond: another key or value is another record.
    expect(ranBefore(state, tierRecord(TIERS[0]!, 3, { value: 'w' }), TIERS)).toBe(false);
    expect(ranBefore(state, tierRecord(TIERS[0]!, 3, { key: 'j' }), TIERS)).toBe(false);
    expect(ranBefore(state, tierRecord(TIERS[0]!, 4), TIERS)).toBe(false);
    expect(ranBefore(state, tierRecord(TIERS[1]!, 3), TIERS)).toBe(false);
  });

  it('records a copy as a replay, and nothing keyless or of another topic: those have no key order, or are no tier record', () => {
    const state = emptyParkState(5n);
    markRan(state, tierRecord(TIERS[0]!, 3, { replayed: false }), TIERS);
    expect(ranBefore(state, tierRecord(TIERS[0]!, 3, { replayed: false }), TIERS)).toBe(true);
    markRan(state, tierRecord(TIERS[0]!, 4, { key: '' }), TIERS);
    markRan(state, tierRecord('orders', 5), TIERS);
    expect(state.ranUnjudged?.size).toBe(1);
  });

  it('forgets a run once an accepted commit of its tier passes it, and not before', () => {
    const state = emptyParkState(5n);
    markRan(state, tierRecord(TIERS[0]!, 3), TIERS);
    markRan(state, tierRecord(TIERS[1]!, 3), TIERS);
    forgetCommittedPast(state, TIERS, [{ topic: TIERS[0]!, partition: 0, offset: '3' }]);
    expect(state.ranUnjudged?.size).toBe(2);
    forgetCommittedPast(state, TIERS, [{ topic: TIERS[0]!, partition: 0, offset: '4' }]);
    expect(ranBefore(state, tierRecord(TIERS[0]!, 3), TIERS)).toBe(false);
    expect(ranBefore(state, tierRecord(TIERS[1]!, 3), TIERS)).toBe(true);
    forgetCommittedPast(state, TIERS, [{ topic: TIERS[1]!, partition: 0, offset: '9' }]);
    expect(state.ranUnjudged).toBeUndefined();
  });

  it('takes the runs within the position a commit keeps past a waiting record as covered for now, not the waiting one nor any past the position', () => {
    // Held back at 3 (a record waiting its turn there); 4 to 7 handled but 6, which waits too.
    const kept = (firstDone: boolean) => {
      const metadata = encodeTierCommit(3n, { handledBelow: 8n, waiting: [6n], firstTimestamp: 1n, firstDone });
      return coveredBy(new Map([[TIERS[0]!, { topic: TIERS[0]!, partition: 0, offset: '3', ...(metadata === undefined ? {} : { metadata }) }]]), TIERS);
    };
    const coveredAt = (covered: Covered) => [2, 3, 4, 6, 7, 8].filter((offset) => covered({ tier: 0, offset: BigInt(offset) }));
    expect(coveredAt(kept(false))).toEqual([2, 4, 7]);
    expect(coveredAt(kept(true))).toEqual([2, 3, 4, 7]);
    expect(kept(false)({ tier: 1, offset: 4n })).toBe(false); // another tier's
  });

  it('drops the covered runs first when the state has no room for every name, and the others only if it still has none', () => {
    const state = emptyParkState(5n);
    markRan(state, tierRecord(TIERS[0]!, 3), TIERS);
    markRan(state, tierRecord(TIERS[0]!, 4), TIERS);
    const covered: Covered = (at) => at.offset === 4n;
    const coveredFirst = [...state.ranUnjudged!.entries()].find(([, at]) => at.offset === 4n)![0];
    const bytesWithOne = Buffer.byteLength(parkStateMetadata({ ...state, ranUnjudged: new Map([...state.ranUnjudged!].filter(([id]) => id !== coveredFirst)) }));
    fitRanUnjudged(state, bytesWithOne, covered);
    expect([3, 4].filter((offset) => ranBefore(state, tierRecord(TIERS[0]!, offset), TIERS))).toEqual([3]);
    fitRanUnjudged(state, bytesWithOne - 1, covered);
    expect(state.ranUnjudged).toBeUndefined();
  });

  it('at a load, keeps only the runs at or past their tier\'s group commit: one below is never read again, one of a tier with no commit is of a log gone', () => {
    const state = emptyParkState(5n);
    markRan(state, tierRecord(TIERS[0]!, 3), TIERS);
    markRan(state, tierRecord(TIERS[0]!, 6), TIERS);
    markRan(state, tierRecord(TIERS[1]!, 3), TIERS);
    forgetBelowGroupCommits(state, TIERS, [{ topic: TIERS[0]!, offset: '4' }]);
    expect(ranBefore(state, tierRecord(TIERS[0]!, 3), TIERS)).toBe(false);
    expect(ranBefore(state, tierRecord(TIERS[0]!, 6), TIERS)).toBe(true);
    expect(ranBefore(state, tierRecord(TIERS[1]!, 3), TIERS)).toBe(false);
  });

  it('drops them from a state they would take over the budget, and keeps them where they fit', () => {
    const state = emptyParkState(5n);
    markRan(state, tierRecord(TIERS[0]!, 3), TIERS);
    const bytes = Buffer.byteLength(parkStateMetadata(state));
    fitRanUnjudged(state, bytes);
    expect(state.ranUnjudged?.size).toBe(1);
    fitRanUnjudged(state, bytes - 1);
    expect(state.ranUnjudged).toBeUndefined();
  });
});
