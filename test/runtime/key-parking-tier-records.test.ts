import { PARK_STATE_HEADER } from '../../src/naming/headers';
import { emptyParkState, keyHash, parkStateMetadata, retryIdOfReplay } from '../../src/runtime/park-state';
import { MAIN, mainRecord, parkingWorld, replayedRecord, TIER, tierRecord } from './key-parking-world';

const POSITION = 10;

/** Key parking with the state of main partition 0 committed at POSITION, nothing held. */
function world(options: Parameters<typeof parkingWorld>[0] = {}) {
  const w = parkingWorld(options);
  w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: String(POSITION), metadata: parkStateMetadata(emptyParkState(BigInt(POSITION))) }]);
  return w;
}

describe('key parking: a tier record the hold cannot judge', () => {
  it('a replayed record that goes on to a later tier holds its key, durably, and its tier partition is committed past it', async () => {
    const w = world({ outcomes: { 'tier j@3': 'tier' } });
    await w.runTier(replayedRecord(0, 'j', 3));
    expect([...w.state().held]).toEqual([[keyHash(Buffer.from('j')), 3n]]);
    expect(w.committed(TIER)).toBe(1);
  });

  it('a replayed record that succeeds commits its tier partition past it', async () => {
    const w = world();
    await w.runTier(replayedRecord(0, 'j', 3));
    expect(w.handled).toEqual(['tier j@3']);
    expect(w.committed(TIER)).toBe(1);
  });

  describe('a replayed record of a main record not yet read (its original offset at or past the position)', () => {
    const RETRY_ID = retryIdOfReplay(TIER, 0, '0', '0');
    /** The copy its retry writes to the next tier: it carries the retry id (the state has no id). */
    const copy = (offset: number) => tierRecord(offset, 'j', POSITION, { [PARK_STATE_HEADER]: `.${RETRY_ID}` });

    it('holds its key at the position when it goes on to a later tier, with its retry id', async () => {
      const w = world({ outcomes: { [`tier j@${POSITION}`]: 'tier' } });
      await w.runTier(replayedRecord(0, 'j', POSITION));
      expect([...w.state().held]).toEqual([[keyHash(Buffer.from('j')), BigInt(POSITION)]]);
      expect([...w.state().retryIds!]).toEqual([[keyHash(Buffer.from('j')), RETRY_ID]]);
    });

    it("the next main record of its key waits for the retry, which its copy ends and runs it after", async () => {
      const w = world({ outcomes: { [`tier j@${POSITION}`]: 'tier' } });
      await w.runTier(replayedRecord(0, 'j', POSITION));
      await w.parking.onMainRecord(mainRecord(POSITION, 'j', 'next'));
      expect(w.handled).toEqual([`tier j@${POSITION}`]);
      w.outcomes[`tier j@${POSITION}`] = 'success';
      await w.runTier(copy(1));
      expect(w.handled).toEqual([`tier j@${POSITION}`, `tier j@${POSITION}`, 'j:next']);
      expect(w.state().held.size).toBe(0);
    });

    it('a second copy of the same hop, read after the first ended the retry, is stale and committed unrun', async () => {
      const w = world({ outcomes: { [`tier j@${POSITION}`]: 'tier' } });
      await w.runTier(replayedRecord(0, 'j', POSITION));
      w.outcomes[`tier j@${POSITION}`] = 'success';
      await w.runTier(copy(1));
      await w.parking.onMainRecord(mainRecord(POSITION, 'j', 'next'));
      await w.runTier(copy(2)); // published again after a refused commit of the replay: it would run over j:next
      expect(w.handled).toEqual([`tier j@${POSITION}`, `tier j@${POSITION}`, 'j:next']);
      expect(w.ofType('stale-tier-record')).toHaveLength(1);
      expect(w.committed(TIER)).toBe(3);
    });
  });

  it('one without a readable original offset waits behind a record of its key that waits for room, though the key is not held', async () => {
    // k is held, so the state is not empty: a record waits for room (an empty state never waits, see park-by-key-budget-floor.test.ts).
    const kHeld = { ...emptyParkState(BigInt(POSITION)), held: new Map([[keyHash(Buffer.from('k')), 2n]]) };
    const withHold = Buffer.byteLength(parkStateMetadata({ ...kHeld, held: new Map([...kHeld.held, [keyHash(Buffer.from('j')), 3n]]) }));
    const w = parkingWorld({ budgetBytes: withHold - 1 });
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: String(POSITION), metadata: parkStateMetadata(kHeld) }]);
    await w.runTier(replayedRecord(0, 'j', 3)); // no room for the hold it may take: it waits
    await w.runTier(tierRecord(1, 'j', undefined));
    expect(w.handled).toEqual([]);
    expect(w.ofType('parked')).toHaveLength(2);
  });

  it('a keyless tier record that goes on to a later tier holds nothing: the partition’s state stays empty', async () => {
    const w = world({ outcomes: { 'tier null@3': 'tier' } });
    await w.runTier(tierRecord(0, null, 3));
    expect(w.handled).toEqual(['tier null@3']);
    expect(w.state().held.size).toBe(0);
    expect(w.committed(TIER)).toBe(1);
  });
});

describe('key parking: a tier record fetched before a rebalance', () => {
  it('is not run when the rebalance came while the state loaded: the next generation reads it again', async () => {
    const w = world();
    const release = w.holdLoads();
    const stale = w.runTier(replayedRecord(0, 'j', 3));
    await w.settle(); // the load is asking for the commit
    w.parking.forget();
    release();
    await stale;
    expect(w.handled).toEqual([]);
    expect(w.committed(TIER)).toBeUndefined();
  });

  it('does not throw to the client when its handler fails after the rebalance: the client would seek its partition past records the next generation reads again', async () => {
    const w = world();
    let fail!: (error: Error) => void;
    const taken = w.parking.onTierRecord(replayedRecord(0, 'j', 3), () => new Promise((_, reject) => (fail = reject)));
    await w.settle(); // in the handler
    w.parking.forget();
    fail(new Error('The downstream service is unavailable'));
    await expect(taken).resolves.toBeUndefined();
  });

  it('still throws to the client when its handler fails with no rebalance since', async () => {
    const w = world();
    await expect(w.parking.onTierRecord(replayedRecord(0, 'j', 3), async () => Promise.reject(new Error('The downstream service is unavailable')))).rejects.toThrow('unavailable');
  });
});

describe('key parking: pauses across a rebalance', () => {
  it('a rebalance calls the client again only for partitions it may have left paused: one resumed since is not resumed again', async () => {
    const keys = ['k0', 'k1', 'k2', 'k3', 'k4'];
    const w = parkingWorld({ outcomes: Object.fromEntries(keys.map((k) => [`${k}:a`, 'tier' as const])), budgetBytes: 120 });
    let offset = 0;
    for (const key of keys) if (w.pauses.length === 0) await w.parking.onMainRecord(mainRecord(offset++, key, 'a'));
    expect(w.pauses).toEqual(['pause 0']);
    await w.runTier(tierRecord(0, 'k0', 0)); // k0 released: room again
    expect(w.pauses).toEqual(['pause 0', 'resume 0']);
    w.parking.forget();
    expect(w.pauses).toEqual(['pause 0', 'resume 0']);
  });
});
