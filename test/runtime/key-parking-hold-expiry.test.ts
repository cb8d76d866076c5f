import { keyHash, parkStateMetadata } from '../../src/runtime/park-state';
import { MAIN, mainRecord, parkingWorld, tierRecord } from './key-parking-world';

/** A hold's tier record can stop coming (tier retention passed, the tier recreated): the hold expires. */
describe('key parking: a hold that expires', () => {
  const EXPIRY = 1_000;

  it('releases a key whose tier record never comes once its hold expires: its parked record runs and the commit moves past it', async () => {
    const w = parkingWorld({ outcomes: { 'k:a': 'tier' }, holdExpiryMs: EXPIRY });
    await w.parking.onMainRecord(mainRecord(0, 'k', 'a')); // k held from 0 ms
    await w.parking.onMainRecord(mainRecord(1, 'k', 'b')); // parked behind it
    await w.parking.onMainRecord(mainRecord(2, 'j', 'c'));
    expect(w.committed()).toBe(1);
    await w.advanceTo(EXPIRY - 1);
    expect(w.handled).toEqual(['k:a', 'j:c']);
    await w.advanceTo(EXPIRY);
    expect(w.handled).toEqual(['k:a', 'j:c', 'k:b']);
    expect(w.ofType('hold-expired')).toEqual([{ type: 'hold-expired', topic: MAIN, partition: 0, offset: '0', heldMs: EXPIRY }]);
    expect(w.committed()).toBe(3);
    expect(w.state()).toEqual({ position: 3n, held: new Map(), parked: new Map(), id: expect.stringMatching(/^[A-Za-z0-9_-]{8}$/) }); // begun from nothing
  });

  it('times each hold from when it was taken: a later hold expires on its own time, not with the first', async () => {
    const w = parkingWorld({ outcomes: { 'k:a': 'tier', 'j:x': 'tier' }, holdExpiryMs: EXPIRY });
    await w.parking.onMainRecord(mainRecord(0, 'k', 'a'));
    w.setNow(400);
    await w.parking.onMainRecord(mainRecord(1, 'j', 'x'));
    await w.advanceTo(EXPIRY);
    expect(w.ofType('hold-expired').map((e) => [e.offset, e.heldMs])).toEqual([['0', EXPIRY]]);
    expect([...w.state().held.values()]).toEqual([1n]);
    await w.advanceTo(400 + EXPIRY - 1);
    expect(w.ofType('hold-expired')).toHaveLength(1);
    await w.advanceTo(400 + EXPIRY);
    expect(w.ofType('hold-expired').map((e) => [e.offset, e.heldMs])).toEqual([
      ['0', EXPIRY],
      ['1', EXPIRY],
    ]);
    expect(w.state().held.size).toBe(0);
  });

  it('counts a hold read from the commit from when it was read: a restart never shortens it', async () => {
    const w = parkingWorld({ holdExpiryMs: EXPIRY });
    const held = { position: 1n, held: new Map([[keyHash(Buffer.from('k')), 0n]]), parked: new Map<bigint, string>() };
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '1', metadata: parkStateMetadata(held) }]);
    w.setNow(5_000);
    await w.parking.onMainRecord(mainRecord(1, 'j', 'x'));
    await w.advanceTo(5_000 + EXPIRY - 1);
    expect(w.ofType('hold-expired')).toEqual([]);
    await w.advanceTo(5_000 + EXPIRY);
    expect(w.ofType('hold-expired')).toEqual([{ type: 'hold-expired', topic: MAIN, partition: 0, offset: '0', heldMs: EXPIRY }]);
  });

  it('after a key is released by its retry, times the next oldest hold, and keeps no timer once no key is held', async () => {
    const w = parkingWorld({ outcomes: { 'k:a': 'tier', 'j:b': 'tier' }, holdExpiryMs: EXPIRY });
    await w.parking.onMainRecord(mainRecord(0, 'k', 'a'));
    w.setNow(500);
    await w.parking.onMainRecord(mainRecord(1, 'j', 'b'));
    w.setNow(700);
    await w.runTier(tierRecord(0, 'k', 0));
    expect(w.pendingTimers()).toEqual([500 + EXPIRY]);
    await w.runTier(tierRecord(1, 'j', 1));
    expect(w.pendingTimers()).toEqual([]);
    await w.advanceTo(10 * EXPIRY);
    expect(w.ofType('hold-expired')).toEqual([]);
  });

  it('a hold that expires while a rebalance forgets its state is not released by this member: the next generation judges it', async () => {
    let finish!: () => void;
    const inHandler = new Promise<void>((resolve) => (finish = resolve));
    const w = parkingWorld({ outcomes: { 'k:a': 'tier' }, holdExpiryMs: EXPIRY, handling: (label) => (label === 'j:x' ? inHandler : Promise.resolve()) });
    await w.parking.onMainRecord(mainRecord(0, 'k', 'a'));
    const j = w.parking.onMainRecord(mainRecord(1, 'j', 'x')); // in its handler when the hold expires
    await w.advanceTo(EXPIRY); // the expiry waits for the partition's operation in progress
    w.parking.forget();
    finish();
    await j;
    await w.settle();
    expect(w.ofType('hold-expired')).toEqual([]);
  });

  it('a rebalance stops the expiry of the holds it forgot: the next generation times its own', async () => {
    const w = parkingWorld({ outcomes: { 'k:a': 'tier' }, holdExpiryMs: EXPIRY });
    await w.parking.onMainRecord(mainRecord(0, 'k', 'a'));
    w.parking.forget();
    await w.advanceTo(EXPIRY);
    expect(w.ofType('hold-expired')).toEqual([]);
    expect(w.state().held.size).toBe(1);
  });
});
