import { HEADERS, PARK_STATE_HEADER } from '../../src/naming/headers';
import { emptyParkState, keyHash, retryIdOfReplay } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import { ParkingBudget } from '../../src/runtime/parking-budget';
import type { PartitionParking } from '../../src/runtime/partition-parking';
import type { ConsumedRecord } from '../../src/runtime/router';
import { judgeTierRecord } from '../../src/runtime/tier-record-verdict';
import { createTierTurns } from '../../src/runtime/tier-turns';

const TIERS = ['orders.retry.1m', 'orders.retry.10m'];

/** A record of tier 1m, partition 0: a copy of main record `original` of key `key` (null: keyless), or a DLQ replay. */
function tierRecord({ key = 'k' as string | null, original = undefined as number | undefined, replayed = false, offset = 7, stateId = undefined as string | undefined } = {}): ConsumedRecord {
  const headers: Record<string, string> = { [HEADERS.originalTopic]: 'orders', [HEADERS.originalPartition]: '0' };
  if (original !== undefined) headers[HEADERS.originalOffset] = String(original);
  if (stateId !== undefined) headers[PARK_STATE_HEADER] = stateId;
  if (replayed) headers[HEADERS.replayedFromDlq] = 'orders.dlq/0-3';
  return { topic: TIERS[0]!, partition: 0, message: { key: key === null ? null : Buffer.from(key), value: Buffer.from('v'), offset: String(offset), timestamp: '1000', headers } } as unknown as ConsumedRecord;
}

function parkingOf(state: ParkState): PartitionParking {
  return { state, records: new Map(), heldSince: new Map(), turns: createTierTurns(), tierHandled: new Map(), tierCommitted: new Map(), tierRead: new Map(), soughtSinceTaken: false };
}

const judge = (state: ParkState, record: ConsumedRecord, held = false, budgetBytes = 64 * 1024) =>
  judgeTierRecord({ parking: parkingOf(state), record, held, tierTopics: TIERS, budget: new ParkingBudget(budgetBytes, 'orders', () => undefined) });

/** A budget of commit metadata no hold fits in, nor the state's id with one. */
const NO_ROOM = 10;
const K = keyHash(Buffer.from('k'));

describe('what park-by-key does with a tier record', () => {
  it('runs a keyless record at once: it has no order to keep', () => {
    expect(judge(emptyParkState(10n), tierRecord({ key: null, original: 3 }))).toMatchObject({ kind: 'runs', keyless: true, current: false, fits: true });
  });

  it('runs a DLQ replay of a free key, not as any retry of the key, and lets it hold the key where it was replayed', () => {
    const verdict = judge(emptyParkState(10n), tierRecord({ replayed: true, original: 3 }));
    expect(verdict).toMatchObject({ kind: 'runs', keyless: false, current: false, hash: keyHash(Buffer.from('k')) });
  });

  it('has a DLQ replay of a busy key wait its turn behind the records read so far', () => {
    const state = emptyParkState(10n);
    state.held.set(keyHash(Buffer.from('k')), 4n);
    expect(judge(state, tierRecord({ replayed: true, original: 3 }))).toEqual({ kind: 'waits-its-turn', hash: keyHash(Buffer.from('k')), behind: 10n });
  });

  it('has a copy of a record the state parked wait right behind that record', () => {
    const state = emptyParkState(10n);
    state.parked.set(5n, keyHash(Buffer.from('k')));
    expect(judge(state, tierRecord({ original: 5 }))).toEqual({ kind: 'waits-behind-its-record', hash: keyHash(Buffer.from('k')), original: 5n });
  });

  it('skips a copy whose key no retry holds any more: its retry ended, and running it would apply an older update', () => {
    expect(judge(emptyParkState(10n), tierRecord({ original: 3 }))).toEqual({ kind: 'stale' });
  });

  it('runs a record whose turn came (held back by the pipeline) without judging it a copy again', () => {
    const state = emptyParkState(10n);
    state.parked.set(5n, keyHash(Buffer.from('k')));
    expect(judge(state, tierRecord({ original: 5 }), true)).toMatchObject({ kind: 'runs', current: false });
  });

  it('skips a DLQ replay whose own retry holds its key: it is that retry\'s record read again, and running it would apply its update again after newer ones', () => {
    // The hold its own retry took where it was replayed, with the retry id it takes (at tier offset 7, tierRecord's offset and timestamp).
    const state: ParkState = { ...emptyParkState(10n), retryIds: new Map([[K, retryIdOfReplay(TIERS[0]!, 0, '7', '1000')]]) };
    state.held.set(K, 3n);
    expect(judge(state, tierRecord({ replayed: true, original: 3 }))).toEqual({ kind: 'stale' });
  });

  it('has a copy from below a give-up\'s mark wait for a busy key in its record\'s place, right behind its original offset, not behind the records read since', () => {
    const state = emptyParkState(10n);
    state.givenUpBefore = 6n;
    state.held.set(K, 4n);
    expect(judge(state, tierRecord({ original: 3 }))).toEqual({ kind: 'waits-its-turn', hash: K, behind: 4n });
  });

  it('runs a keyless record and its key\'s current retry as fitting whatever the budget: neither takes a new hold', () => {
    expect(judge(emptyParkState(10n), tierRecord({ key: null, original: 3 }), false, NO_ROOM)).toMatchObject({ kind: 'runs', keyless: true, fits: true });
    const state = emptyParkState(10n);
    state.held.set(K, 3n);
    expect(judge(state, tierRecord({ original: 3 }), false, NO_ROOM)).toMatchObject({ kind: 'runs', current: true, fits: true });
  });

  it('runs a DLQ replay of a free key without a hold that fits when the budget has no room for it (its copies then carry no state id)', () => {
    expect(judge(emptyParkState(10n), tierRecord({ replayed: true, original: 3 }), false, NO_ROOM)).toMatchObject({ kind: 'runs', current: false, holdAt: 3n, fits: false });
  });

  it('runs a record whose turn came without a hold that fits while the state has no room for its hold, though the state holds other keys', () => {
    const state = emptyParkState(10n);
    state.held.set(keyHash(Buffer.from('other')), 2n);
    expect(judge(state, tierRecord({ replayed: true, original: 3 }), true, NO_ROOM)).toMatchObject({ kind: 'runs', current: false, holdAt: 3n, fits: false });
  });

  it('leaves the state\'s id alone when it judges a keyless record, though the budget came down below it: a copy written under another state read next is still told apart by it', () => {
    const state = emptyParkState(10n);
    state.id = 'A1b2C3d4';
    state.held.set(K, 3n);
    expect(judge(state, tierRecord({ key: null, original: 3 }), false, NO_ROOM)).toMatchObject({ kind: 'runs', keyless: true });
    expect(state.id).toBe('A1b2C3d4');
    // Another state's copy at the hold's offset is not the key's current retry: it must not release the hold.
    expect(judge(state, tierRecord({ original: 3, stateId: 'Z9y8X7w6' }), true, NO_ROOM)).toMatchObject({ kind: 'runs', current: false });
  });
});
