import { keyHash, parkStateMetadata } from '../../src/runtime/park-state';
import { MAIN, mainRecord, parkingWorld, tierRecord } from './key-parking-world';

describe('key parking: main records', () => {
  it('tells the handler a record ran after waiting only when it waited', async () => {
    const w = parkingWorld({ outcomes: { 'k:a': 'tier' } });
    await w.parking.onMainRecord(mainRecord(0, 'k', 'a'));
    await w.parking.onMainRecord(mainRecord(1, 'k', 'b')); // parked behind a
    await w.parking.onMainRecord(mainRecord(2, 'j', 'c'));
    await w.runTier(tierRecord(0, 'k', 0));
    expect(w.handled).toEqual(['k:a', 'j:c', 'tier k@0', 'k:b']);
    expect(w.ranParked).toEqual(['k:b']);
  });

  it('a parked record of a free key read again after a restart runs, and the commit moves past it', async () => {
    const w = parkingWorld();
    const state = { position: 2n, held: new Map<string, bigint>(), parked: new Map([[1n, keyHash(Buffer.from('k'))]]) };
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: '1', metadata: parkStateMetadata(state) }]);
    await w.parking.onMainRecord(mainRecord(1, 'k', 'b')); // fetched before the load's seek back to 1
    await w.parking.onMainRecord(mainRecord(1, 'k', 'b'));
    expect(w.handled).toEqual(['k:b']);
    expect(w.committed()).toBe(2);
  });

  it('does not throw to the client when its handler fails after a rebalance: the rebalance reads it again', async () => {
    let fail!: (error: Error) => void;
    const w = parkingWorld({ handling: (label) => (label === 'j:x' ? new Promise((_, reject) => (fail = reject)) : Promise.resolve()) });
    const taken = w.parking.onMainRecord(mainRecord(0, 'j', 'x'));
    await w.settle(); // in the handler
    w.parking.forget();
    fail(new Error('The downstream service is unavailable'));
    await expect(taken).resolves.toBeUndefined();
  });
});
