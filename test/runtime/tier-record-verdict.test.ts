import { HEADERS } from '../../src/naming/headers';
import { emptyParkState, keyHash } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import { ParkingBudget } from '../../src/runtime/parking-budget';
import type { PartitionParking } from '../../src/runtime/partition-parking';
import type { ConsumedRecord } from '../../src/runtime/router';
import { judgeTierRecord } from '../../src/runtime/tier-record-verdict';
import { createTierTurns } from '../../src/runtime/tier-turns';

const TIERS = ['orders.retry.1m', 'orders.retry.10m'];

/** A record of tier 1m, partition 0: a copy of main record `original` of key `key` (null: keyless), or a DLQ replay. */
function tierRecord({ key = 'k' as string | null, original = undefined as number | undefined, replayed = false, offset = 7 } = {}): ConsumedRecord {
  const headers: Record<string, string> = { [HEADERS.originalTopic]: 'orders', [HEADERS.originalPartition]: '0' };
  if (original !== undefined) headers[HEADERS.originalOffset] = String(original);
  if (replayed) headers[HEADERS.replayedFromDlq] = 'orders.dlq/0-3';
  return { topic: TIERS[0]!, partition: 0, message: { key: key === null ? null : Buffer.from(key), value: Buffer.from('v'), offset: String(offset), timestamp: '1000', headers } } as unknown as ConsumedRecord;
}

function parkingOf(state: ParkState): PartitionParking {
  return { state, records: new Map(), heldSince: new Map(), turns: createTierTurns(), tierHandled: new Map(), tierCommitted: new Map(), tierRead: new Map(), soughtSinceTaken: false };
}

const judge = (state: ParkState, record: ConsumedRecord, held = false) =>
  judgeTierRecord({ parking: parkingOf(state), record, held, tierTopics: TIERS, budget: new ParkingBudget(64 * 1024, 'orders', () => undefined) });

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
});
