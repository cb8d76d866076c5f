import { keyHash } from '../../src/runtime/park-state';
import { attackWorld, consumer } from './attack21-world';

/**
 * The give-up's mark goes past the NEWEST given-up record, whatever order the state lists its
 * parked records in (by key hash, then offset: here p's record, the newer one, comes first).
 * A mark short of a given-up record would judge that record's copy by the holds, and skip the
 * only thing left of it as stale.
 */
describe('park-by-key: parked records of several keys given up at a load', () => {
  it('moves the give-up mark past the newest of them', async () => {
    // The state lists keys by hash: p's entry before y's, so p's parked record is read first.
    expect(keyHash(Buffer.from('p')) < keyHash(Buffer.from('y'))).toBe(true);
    const w = attackWorld({ reaction: 'confluent' });
    w.fails.set('y:a', 3); // y held at 0 for long
    w.fails.set('p:b', 3); // p held at 1 for long
    w.produce('y', 'a'); // 0
    w.produce('p', 'b'); // 1
    w.produce('y', 'c'); // 2, parked behind y's hold
    w.produce('p', 'd'); // 3, parked behind p's hold
    w.produce('x', 'e'); // 4
    await w.start();
    await w.runFor(5 * 60_000, () => w.parkState().parked.size === 2 && w.parkState().position === 5n);
    expect([...w.parkState().parked.keys()].sort()).toEqual([2n, 3n]);
    w.faulty.crash();

    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 4);
    await w.start();
    await w.runFor(60_000, () => w.ofType('parked-records-deleted').length > 0);
    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['2', '3']]);
    w.produce('x', 'f'); // 5: its commit carries the state the load changed
    await w.runFor(10_000, () => w.parkState().position === 6n);
    expect(w.parkState().parked.size).toBe(0);
    expect(w.parkState().givenUpBefore).toBe(4n);
  });
});
