import { emptyParkState, keyHash, markRanUnjudged, parkStateMetadata, retryIdOfReplay, takeHold } from '../../src/runtime/park-state';
import { runIdOf } from '../../src/runtime/ran-unjudged';
import type { ParkState } from '../../src/runtime/park-state';
import { MAIN, mainRecord, parkingWorld, replayedRecord, TIER, tierRecord } from './key-parking-world';

const hash = (key: string) => keyHash(Buffer.from(key));
const bytes = (state: ParkState) => Buffer.byteLength(parkStateMetadata(state));
const holding = (position: bigint, holds: Record<string, bigint>): ParkState => ({ position, held: new Map(Object.entries(holds).map(([k, o]) => [hash(k), o])), parked: new Map() });
/** `state` with `key` held by the retry of the record replayed at tier offset `replayedAt` (its hold carries the replay's retry id). */
const withReplayHold = (state: ParkState, key: string, original: bigint, replayedAt: number): ParkState => {
  const held: ParkState = { ...state, held: new Map(state.held), retryIds: new Map(state.retryIds) };
  takeHold(held, hash(key), original, retryIdOfReplay(TIER, 0, String(replayedAt), '0'));
  return held;
};

/**
 * A tier record the hold cannot judge (here: replayed from the DLQ) may go on to a later
 * tier and hold its key: it runs only if the partition's state has room for that hold.
 */
describe('key parking: room in the state for the hold a tier record may take', () => {
  const POSITION = 100n;
  function world(budgetBytes: number, state: ParkState = emptyParkState(POSITION), options: Parameters<typeof parkingWorld>[0] = {}) {
    const w = parkingWorld({ budgetBytes, holdExpiryMs: 1_000, ...options });
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: String(state.position), metadata: parkStateMetadata(state) }]);
    return w;
  }

  it('runs a tier record whose hold fills the budget to the byte', async () => {
    const w = world(bytes(withReplayHold(emptyParkState(POSITION), 'j', 60n, 0)), emptyParkState(POSITION), { outcomes: { 'tier j@60': 'tier' } });
    await w.runTier(replayedRecord(0, 'j', 60));
    expect(w.handled).toEqual(['tier j@60']);
    expect([...w.state().held]).toEqual([[hash('j'), 60n]]);
  });

  // With another key held (an empty state never waits: a hold that cannot fit even alone is skipped, see park-by-key-budget-floor.test.ts).
  it('a tier record whose hold would pass the budget by a byte waits, uncommitted', async () => {
    const w = world(bytes(withReplayHold(holding(POSITION, { k: 50n }), 'j', 60n, 0)) - 1, holding(POSITION, { k: 50n }));
    await w.runTier(replayedRecord(0, 'j', 60));
    expect(w.handled).toEqual([]);
    expect(w.ofType('parked')).toHaveLength(1);
  });

  it('runs tier records of main records past the position when the empty state fills the budget: an empty state waits for no release', async () => {
    const w = world(bytes(emptyParkState(POSITION)));
    await w.runTier(replayedRecord(0, 'j', Number(POSITION)));
    await w.runTier(replayedRecord(1, 'm', Number(POSITION) + 5));
    expect(w.handled).toEqual([`tier j@${POSITION}`, `tier m@${POSITION + 5n}`]);
  });

  describe('a hold that expires makes room: the waiting records of free keys run, oldest first, as far as the room goes', () => {
    // k holds; j and m wait for room (each hold alone fits, two do not).
    const setup = (outcomes: Record<string, 'tier' | 'success'>) => {
      const w = world(bytes(withReplayHold(emptyParkState(POSITION), 'j', 60n, 0)) + 2, holding(POSITION, { k: 50n }), { outcomes });
      return w;
    };

    it('one that goes on to a later tier holds its key, and the next waits on for room', async () => {
      const w = setup({ 'tier j@60': 'tier' });
      await w.runTier(replayedRecord(0, 'j', 60));
      await w.runTier(replayedRecord(1, 'm', 70));
      expect(w.handled).toEqual([]);
      await w.advanceTo(1_000);
      expect(w.handled).toEqual(['tier j@60']);
      expect([...w.state().held]).toEqual([[hash('j'), 60n]]);
      expect([...w.state().retryIds!]).toEqual([[hash('j'), retryIdOfReplay(TIER, 0, '0', '0')]]);
    });

    it('one that succeeds takes no hold, and the next runs too', async () => {
      const w = setup({});
      await w.runTier(replayedRecord(0, 'j', 60));
      await w.runTier(replayedRecord(1, 'm', 70));
      await w.advanceTo(1_000);
      expect(w.handled).toEqual(['tier j@60', 'tier m@70']);
      expect(w.state().held.size).toBe(0);
    });
  });

  it('a waiting record of a main record past the position holds its key at the position when it goes on to a later tier', async () => {
    const w = world(4000, holding(POSITION, { j: 50n }), { outcomes: { [`tier j@${POSITION}`]: 'tier' } });
    await w.runTier(replayedRecord(0, 'j', Number(POSITION))); // j is held: it waits its turn
    expect(w.handled).toEqual([]);
    await w.runTier(tierRecord(1, 'j', 50)); // j's retry succeeds: the waiting record runs
    expect(w.handled).toEqual(['tier j@50', `tier j@${POSITION}`]);
    // j is held by the replay's retry: its next main record waits for it.
    await w.parking.onMainRecord(mainRecord(Number(POSITION), 'j', 'next'));
    expect(w.handled).toEqual(['tier j@50', `tier j@${POSITION}`]);
    expect([...w.state().held]).toEqual([[hash('j'), POSITION]]);
    expect([...w.state().retryIds!]).toEqual([[hash('j'), retryIdOfReplay(TIER, 0, '0', '0')]]);
  });

  it('a record of a main record past the position waits for room for the hold it may take, as one below it does', async () => {
    const w = world(bytes(withReplayHold(holding(POSITION, { k: 50n }), 'j', POSITION, 0)) - 1, holding(POSITION, { k: 50n }));
    await w.runTier(replayedRecord(0, 'j', Number(POSITION) + 5));
    expect(w.handled).toEqual([]);
    expect(w.ofType('parked')).toHaveLength(1);
  });

  it('a tier record whose hold made its commit too large for the broker waits for room when delivered again, instead of being refused again', async () => {
    // k is held, so the state is not empty and waiting for room can end (k's release).
    const withHold = bytes(withReplayHold(holding(POSITION, { k: 50n }), 'j', 60n, 0));
    const w = world(4000, holding(POSITION, { k: 50n }), { outcomes: { 'tier j@60': 'tier' }, brokerMaxBytes: withHold - 1 });
    await expect(w.runTier(replayedRecord(0, 'j', 60))).rejects.toThrow('too large');
    await w.runTier(replayedRecord(0, 'j', 60));
    // The state refused carried the replay's run too (ran-unjudged.ts), and went again at once without it.
    const sent = withReplayHold(holding(POSITION, { k: 50n }), 'j', 60n, 0);
    markRanUnjudged(sent, runIdOf(replayedRecord(0, 'j', 60)), { tier: 0, offset: 0n });
    expect(w.refused).toEqual([bytes(sent), withHold]);
    expect(w.handled).toEqual(['tier j@60']);
    expect(w.ofType('parked')).toHaveLength(1);
  });

  it('a commit refused as too large that carries no state (a stale tier copy) leaves the budget as it was', async () => {
    const w = world(4000);
    w.refuseNextAsTooLarge();
    await expect(w.runTier(tierRecord(0, 'j', 60))).rejects.toThrow('too large'); // stale: committed unrun
    await w.parking.onMainRecord(mainRecord(Number(POSITION), 'k', 'a'));
    expect(w.handled).toEqual(['k:a']);
    expect(w.seeks).toEqual([]);
  });

  it('a partition at its budget, read again after a reload, seeks back to its oldest parked record not yet read, whatever the order of their keys', async () => {
    // The state lists parked records by key: make the first key's parked record the younger one.
    const [first, second] = ['a', 'b'].sort((x, y) => (hash(x) < hash(y) ? -1 : 1));
    const state: ParkState = {
      position: 10n,
      held: new Map([[hash(first!), 0n], [hash(second!), 1n]]),
      parked: new Map([[5n, hash(first!)], [3n, hash(second!)]]),
    };
    const w = parkingWorld({ budgetBytes: 60 });
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '3', metadata: parkStateMetadata(state) }]);
    await w.parking.onMainRecord(mainRecord(10, 'c', 'x')); // fetched before the load's seek back to 3
    await w.parking.onMainRecord(mainRecord(10, 'c', 'x')); // 3 and 5 did not come back: it does not fit
    expect(w.seeks.map((s) => s.offset)).toEqual(['3', '3']);
    expect(w.handled).toEqual([]);
  });
});
