import { createTierTurns, runsBeforeParked } from '../../src/runtime/tier-turns';
import type { WaitingTierRecord } from '../../src/runtime/tier-turns';
import type { ConsumedRecord } from '../../src/runtime/router';

const TIER = 'orders.retry.1m';
const at = (offset: number) => ({ topic: TIER, partition: 0, offset: String(offset) });
const recordAt = (offset: number): ConsumedRecord => ({ topic: TIER, partition: 0, message: { key: Buffer.from('k'), value: null, offset: String(offset), timestamp: '0' } });
const waitingAt = (offset: number): WaitingTierRecord => ({ record: recordAt(offset), hash: 'k', behind: 0n, handle: async () => ({ outcome: 'success', commit: at(offset + 1) }) });

describe('the tier turns of a park-by-key generation', () => {
  it('commits a tier partition no further than its oldest waiting record', () => {
    const turns = createTierTurns();
    turns.wait(0, waitingAt(3));
    expect(turns.commit(at(8))).toEqual({ ...at(3), handledBelow: 8n });
  });

  it('records how far a partition is handled only once the broker accepts the commit', () => {
    const turns = createTierTurns();
    const asked = turns.commit(at(6));
    expect(turns.handledBelow(TIER, 0)).toBeUndefined();
    turns.accepted(asked, asked.offset);
    expect(turns.handledBelow(TIER, 0)).toBe(6n);
  });

  it('remembers the offset the broker stored, which a kept position anchors one record back, not the one asked for', () => {
    const turns = createTierTurns();
    turns.accepted(turns.commit(at(6)), '5');
    expect(turns.lastAccepted(TIER, 0)).toBe(5n);
  });

  it('never lets a later commit pass a record whose own commit was refused (it is read again, its hold not stored)', () => {
    const turns = createTierTurns();
    const c5 = turns.commit(at(5));
    turns.accepted(c5, c5.offset);
    turns.commit(at(6)); // record 5 handled; its commit refused
    // Another operation (a waiting record of offset 3 run by a release) commits next.
    expect(turns.commit(at(4)).offset).toBe('5');
  });

  it('never lowers how far it was handled when an earlier commit is accepted after a later one', () => {
    const turns = createTierTurns();
    const c9 = turns.commit(at(9));
    turns.accepted(c9, c9.offset);
    turns.accepted({ ...at(4), handledBelow: 4n }, '4');
    expect(turns.handledBelow(TIER, 0)).toBe(9n);
  });

  it('forgets how far it was handled when a record comes below the last one read (the log moved back)', () => {
    const turns = createTierTurns();
    turns.read(recordAt(8));
    const c9 = turns.commit(at(9));
    turns.accepted(c9, c9.offset);
    turns.read(recordAt(0));
    expect(turns.handledBelow(TIER, 0)).toBeUndefined();
    expect(turns.commit(at(1)).offset).toBe('1');
  });

  it('forgets how far the old log was handled, and lets commits pass its waiting records, once told the topic was created again, whatever offset is read next', () => {
    const turns = createTierTurns();
    turns.read(recordAt(2));
    turns.wait(0, waitingAt(2));
    const c9 = turns.commit(at(9));
    turns.accepted(c9, c9.offset);
    turns.logRecreated(TIER, 0);
    // The new log's first records are control records: the first one handed out is past the old log's last read.
    turns.read(recordAt(4));
    expect(turns.handledBelow(TIER, 0)).toBeUndefined();
    expect(turns.commit(at(5)).offset).toBe('5');
  });

  it('takes a record it read before at the same offset, read again below the last one, for the same log (a seek back), not a new one', () => {
    const turns = createTierTurns();
    turns.wait(0, waitingAt(1));
    for (const offset of [1, 2, 3]) turns.read(recordAt(offset));
    turns.read(recordAt(2)); // read again after a seek back to 2
    expect(turns.waitingAt(TIER, 0).map((r) => r.message.offset)).toEqual(['1']);
    expect(turns.commit(at(4)).offset).toBe('1');
  });

  it('takes another record at an offset it read for a new log, and one it no longer remembers (past 10,000 reads) too', () => {
    const another = createTierTurns();
    for (const offset of [1, 2, 3]) another.read(recordAt(offset));
    another.wait(0, waitingAt(3));
    another.read({ ...recordAt(2), message: { ...recordAt(2).message, timestamp: '7' } });
    expect(another.waitingAt(TIER, 0)).toEqual([]);
    const forgotten = createTierTurns();
    for (let offset = 0; offset <= 10_000; offset++) forgotten.read(recordAt(offset));
    forgotten.wait(0, waitingAt(10_000));
    forgotten.read(recordAt(0));
    expect(forgotten.waitingAt(TIER, 0)).toEqual([]);
  });

  it('believes an anchor it read or committed, the last one only, until the log moves back', () => {
    const turns = createTierTurns();
    turns.anchored(TIER, 0, 5n, 1_000n);
    expect(turns.isAnchored(TIER, 0, 5n, 1_000n)).toBe(true);
    expect(turns.isAnchored(TIER, 0, 5n, 1_001n)).toBe(false); // another record at that offset
    turns.anchored(TIER, 0, 9n, 1_200n);
    expect(turns.isAnchored(TIER, 0, 5n, 1_000n)).toBe(false);
    turns.read(recordAt(12));
    turns.read(recordAt(0));
    expect(turns.isAnchored(TIER, 0, 9n, 1_200n)).toBe(false);
  });

  it('keeps a record that waited on a log since moved back apart from the log now: no match, no hold on its commit', () => {
    const turns = createTierTurns();
    const old = waitingAt(2);
    turns.read(recordAt(2));
    turns.wait(0, old);
    turns.read(recordAt(3));
    turns.read(recordAt(0)); // the tier deleted and created again: its offsets start over
    expect(turns.ofAnotherLog(old)).toBe(true);
    expect(turns.commit(at(4)).offset).toBe('4'); // the old record at 2 holds nothing of the new log back
    expect(turns.waitingAt(TIER, 0)).toEqual([]);
    expect(turns.wait(0, waitingAt(2))).toBe(true); // the new log's record at offset 2 is not the old one delivered again
  });
});

describe('whether a waiting tier record runs before its key\'s oldest parked record', () => {
  const turn = (behind: bigint, dueAt?: number, written = '500'): WaitingTierRecord => ({ ...waitingAt(1), record: { ...recordAt(1), message: { ...recordAt(1).message, timestamp: written } }, behind, ...(dueAt === undefined ? {} : { dueAt }) });
  const parkedWrittenAt = (timestamp: string): ConsumedRecord => ({ topic: 'orders', partition: 0, message: { key: Buffer.from('k'), value: null, offset: '4', timestamp } });
  /** The generation first loaded the state at 6, at time 2,000: the record parked at 4 was parked before it. */
  const EARLIER = { position: 6n, at: 2_000 };

  it('runs first when nothing of its key is parked', () => {
    expect(runsBeforeParked(turn(5n), undefined, undefined, EARLIER)).toBe(true);
  });

  it('runs first before a record parked at or past the position it came due at', () => {
    expect(runsBeforeParked(turn(4n), 4n, undefined, EARLIER)).toBe(true);
    expect(runsBeforeParked(turn(5n), 4n, undefined, EARLIER)).toBe(false);
  });

  it('runs first before a record parked in an earlier generation but written after it came due', () => {
    expect(runsBeforeParked(turn(9n, 1_000), 4n, parkedWrittenAt('1001'), EARLIER)).toBe(true);
  });

  it('leaves a record written when it came due, or before, ahead of it', () => {
    expect(runsBeforeParked(turn(9n, 1_000), 4n, parkedWrittenAt('1000'), EARLIER)).toBe(false);
    expect(runsBeforeParked(turn(9n, 1_000), 4n, parkedWrittenAt('999'), EARLIER)).toBe(false);
  });

  it('judges a record parked in this generation by position alone, whatever the clocks say', () => {
    expect(runsBeforeParked(turn(9n, 1_000), 4n, parkedWrittenAt('5000'), { position: 4n, at: 2_000 })).toBe(false);
    expect(runsBeforeParked(turn(9n, 1_000), 4n, parkedWrittenAt('5000'), undefined)).toBe(false);
  });

  it('judges a waiting record that came due in this generation by position alone: its place is known', () => {
    expect(runsBeforeParked(turn(9n, 2_000), 4n, parkedWrittenAt('5000'), EARLIER)).toBe(false);
    expect(runsBeforeParked(turn(9n, 1_999), 4n, parkedWrittenAt('5000'), EARLIER)).toBe(true);
  });

  it('never takes the due time before the waiting record was written (an x-due-at of 0, or an older record\'s)', () => {
    const later = { position: 6n, at: 5_000 };
    expect(runsBeforeParked(turn(9n, 0, '3000'), 4n, parkedWrittenAt('2000'), later)).toBe(false);
    expect(runsBeforeParked(turn(9n, 0, '3000'), 4n, parkedWrittenAt('3001'), later)).toBe(true);
    expect(runsBeforeParked(turn(9n, 0, '3000'), 4n, parkedWrittenAt('3001'), EARLIER)).toBe(false); // written after this generation began
  });

  it('judges by position alone without a due time, a parked record not read again, or a timestamp that is no number', () => {
    expect(runsBeforeParked(turn(9n), 4n, parkedWrittenAt('5000'), EARLIER)).toBe(false);
    expect(runsBeforeParked(turn(9n, 1_000), 4n, undefined, EARLIER)).toBe(false);
    expect(runsBeforeParked(turn(9n, 1_000), 4n, parkedWrittenAt('soon'), EARLIER)).toBe(false);
  });
});

describe('where a generation began', () => {
  it('keeps the position of the first load of each main partition in the generation', () => {
    const turns = createTierTurns();
    expect(turns.generationBegan(0)).toBeUndefined();
    turns.loaded(0, 6n, 100);
    turns.loaded(0, 9n, 200); // loaded again after a failed operation: the generation began earlier
    turns.loaded(1, 2n, 300);
    expect([turns.generationBegan(0), turns.generationBegan(1)]).toEqual([{ position: 6n, at: 100 }, { position: 2n, at: 300 }]);
  });
});
