import { emptyParkState, parkStateMetadata } from '../../src/runtime/park-state';
import { MAIN, mainRecord, parkingWorld, replayedRecord } from './key-parking-world';

const POSITION = 10;

/**
 * A main record fetched before a seek is not taken: "the seek reads it again". A tier record
 * that loads p's state seeks p to its committed offset, and seek-until-read.ts seeks again
 * until a main record of p is read. Its tries stop once the state that asked is not p's any
 * more: a failed operation drops the state, and "the next load seeks for itself". But the next
 * load, brought by the very main record the seek made stale, does not seek (byMainRecord), and
 * that record is then not taken either. With the tier record's seek dropped (the Confluent
 * client only logs a seek librdkafka refuses) and nothing after the record, nothing reads it
 * again: it never runs. Found by the dropped-seeks property at KRT_PROPERTY_SEED=5103 with
 * KRT_PROPERTY_RUNS=2000 (review51-dropped-seek-crash-rebalance-side-by-side.test.ts).
 */
describe('review 51: a main record not taken because a tier record\'s load sought its partition', () => {
  it('is read again when that seek was dropped and the tier record\'s operation failed', async () => {
    const w = parkingWorld();
    w.broker.commit('g', [{ topic: MAIN, partition: 0, offset: String(POSITION), metadata: parkStateMetadata(emptyParkState(BigInt(POSITION))) }]);
    const release = w.holdLoads();
    // A tier record of p loads the state (a replay, run at once); its handler fails.
    const tier = w.parking.onTierRecord(replayedRecord(0, 'j', 3), async () => {
      throw new Error('The downstream service is unavailable');
    });
    await w.settle(); // the tier record's load is asking for the commit
    // Side by side: the main record at the position is delivered meanwhile, fetched before the load's seek.
    const main = w.parking.onMainRecord(mainRecord(POSITION, 'k', 'a'));
    release();
    await expect(tier).rejects.toThrow('downstream');
    await main;
    expect(w.handled).toEqual([]); // k:a not taken: the load's seek is to read it again
    // The load's seek, then its own: the state that made the first is gone with the failed operation.
    expect(w.seeks).toEqual([{ topic: MAIN, partition: 0, offset: String(POSITION) }, { topic: MAIN, partition: 0, offset: String(POSITION) }]);
    // That seek was dropped: the client reads on from where it was, past k:a, at the log's end.
    // The client delivers nothing more of p; only a seek of the runtime's own can bring k:a back.
    for (let at = 500; at <= 30_000; at += 500) await w.advanceTo(at);
    expect(w.seeks.length).toBeGreaterThan(2);
    expect(w.seeks.at(-1)).toEqual({ topic: MAIN, partition: 0, offset: String(POSITION) });
  });
});
