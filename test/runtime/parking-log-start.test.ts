import type { RetryEvent } from '../../src/runtime/events';
import { emptyParkState } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import { createParkingLogStart, LOG_START_CHECK_MS } from '../../src/runtime/parking-log-start';
import type { PartitionParking } from '../../src/runtime/partition-parking';
import type { ConsumerPort } from '../../src/runtime/port';
import type { ConsumedRecord } from '../../src/runtime/router';
import { createTierTurns } from '../../src/runtime/tier-turns';

const MAIN = 'orders';

/** A state at position 20 with records parked at `parked` (offset -> key hash). */
function parkingWith(parked: [bigint, string][], inMemory: bigint[] = []): PartitionParking {
  const state = emptyParkState(20n);
  for (const [offset, key] of parked) state.parked.set(offset, key);
  const records = new Map(inMemory.map((offset) => [offset, { topic: MAIN, partition: 0, message: { offset: String(offset) } } as unknown as ConsumedRecord]));
  return { state, records, heldSince: new Map(), turns: createTierTurns(), tierHandled: new Map(), tierCommitted: new Map(), tierRead: new Map(), soughtSinceTaken: false };
}

/**
 * parking-log-start.ts on its own: the log start the port answers (`start`: undefined is a
 * refused read, 'none' a port that cannot tell), timers run by the test, the current state
 * per partition, and the seeks, give-ups and events it makes.
 */
function logStartWorld(options: { start?: bigint | 'none' } = {}) {
  let start = options.start;
  let generation = 1;
  const current = new Map<number, PartitionParking>();
  const timers: { ms: number; work: () => void; done: boolean }[] = [];
  const seeks: string[] = [];
  const freed: string[][] = [];
  const events: RetryEvent[] = [];
  const reads: number[] = [];
  const consumer = {
    ...(start === 'none'
      ? {}
      : {
          logStartOffsets: async (_topic: string, partitions: number[]) => {
            reads.push(partitions[0]!);
            if (start === undefined || start === 'none') throw new Error('The admin client is not connected');
            return partitions.map((partition) => ({ partition, offset: String(start) }));
          },
        }),
  } as unknown as ConsumerPort;
  const logStart = createParkingLogStart({
    mainTopic: MAIN,
    consumer: () => consumer,
    setTimer: (ms, work) => {
      const timer = { ms, work, done: false };
      timers.push(timer);
      return () => void (timer.done = true);
    },
    emit: (e) => void events.push(e),
    isCurrent: (partition, parking) => current.get(partition) === parking,
    generation: () => generation,
    // key-parking.ts onTimer runs the work on the partition's current state, in the same generation.
    onTimer: (partition, setIn, work) => {
      const parking = current.get(partition);
      if (setIn === generation && parking !== undefined) void work(parking);
    },
    runFreed: async (_partition, _parking, keys) => void freed.push([...keys].sort()),
    seekMain: (partition, offset) => void seeks.push(`${partition}@${offset}`),
  });
  const settle = async () => {
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  /** Runs the timers set so far (each is LOG_START_CHECK_MS long) and lets their work finish. */
  const fireTimers = async () => {
    for (const timer of timers.splice(0).filter((t) => !t.done)) {
      expect(timer.ms).toBe(LOG_START_CHECK_MS);
      timer.done = true;
      timer.work();
    }
    await settle();
  };
  /** Runs the oldest timer not run yet, alone. */
  const fireOldestTimer = async () => {
    const timer = timers.find((t) => !t.done)!;
    timer.done = true;
    timer.work();
    await settle();
  };
  return {
    logStart,
    seeks,
    freed,
    events,
    reads,
    fireTimers,
    fireOldestTimer,
    settle,
    pendingTimers: () => timers.filter((t) => !t.done).length,
    setStart: (at: bigint | undefined) => void (start = at),
    load: (partition: number, parking: PartitionParking) => void current.set(partition, parking),
    drop: (partition: number) => void current.delete(partition),
    rebalance: () => void generation++,
  };
}

describe('a parked record not read again since the load', () => {
  it('is sought to again after a while, and checked again later, while it is still in the log', async () => {
    const w = logStartWorld({ start: 0n });
    const parking = parkingWith([[12n, 'k'], [15n, 'j']], [15n]);
    w.load(0, parking);
    w.logStart.checkLogStartLater(0, parking);
    expect(w.seeks).toEqual([]);
    await w.fireTimers();
    expect(w.seeks).toEqual(['0@12']);
    expect(w.freed).toEqual([]);
    expect(w.pendingTimers()).toBe(1);
    await w.fireTimers();
    expect(w.seeks).toEqual(['0@12', '0@12']);
  });

  it('is sought to the oldest missing one, not one read again already', async () => {
    const w = logStartWorld({ start: 0n });
    const parking = parkingWith([[17n, 'a'], [12n, 'k'], [14n, 'j']], [12n]);
    w.load(0, parking);
    w.logStart.checkLogStartLater(0, parking);
    await w.fireTimers();
    expect(w.seeks).toEqual(['0@14']);
  });

  it('is sought to no more once every parked record was read again', async () => {
    const w = logStartWorld({ start: 0n });
    const parking = parkingWith([[12n, 'k']]);
    w.load(0, parking);
    w.logStart.checkLogStartLater(0, parking);
    await w.fireTimers();
    expect(w.seeks).toEqual(['0@12']);
    parking.records.set(12n, { topic: MAIN, partition: 0, message: { offset: '12' } } as unknown as ConsumedRecord);
    await w.fireTimers();
    expect(w.seeks).toEqual(['0@12']);
    expect(w.pendingTimers()).toBe(0);
  });

  it('is given up once retention took it, its key freed, and the next one still in the log sought to', async () => {
    const w = logStartWorld({ start: 14n });
    const parking = parkingWith([[12n, 'k'], [13n, 'j'], [16n, 'a']]);
    w.load(0, parking);
    w.logStart.checkLogStartLater(0, parking);
    await w.fireTimers();
    expect(w.freed).toEqual([['j', 'k']]);
    expect([...parking.state.parked.keys()]).toEqual([16n]);
    expect(parking.state.givenUpBefore).toBe(14n);
    expect(w.events).toEqual([{ type: 'parked-records-deleted', topic: MAIN, partition: 0, offsets: ['12', '13'], from: '12', to: '14' }]);
    expect(w.seeks).toEqual(['0@16']);
  });

  it('is read again with the log start, once per partition at a time, and only for the current state', async () => {
    const w = logStartWorld({ start: 0n });
    const parking = parkingWith([[12n, 'k']]);
    w.logStart.checkLogStartLater(0, parking); // not p's state (not loaded): nothing
    expect(w.pendingTimers()).toBe(0);
    w.load(0, parking);
    w.logStart.checkLogStartLater(0, parking);
    w.logStart.checkLogStartLater(0, parking);
    expect(w.pendingTimers()).toBe(1);
    const other = parkingWith([[3n, 'x']]);
    w.load(1, other);
    w.logStart.checkLogStartLater(1, other);
    expect(w.pendingTimers()).toBe(2);
    await w.fireTimers();
    expect(w.seeks.sort()).toEqual(['0@12', '1@3']);
  });

  it('is neither given up nor sought to when its state was dropped while the log start was read', async () => {
    const w = logStartWorld({ start: 13n });
    const parking = parkingWith([[12n, 'k']]);
    w.load(0, parking);
    w.logStart.checkLogStartLater(0, parking);
    const [timer] = [w.fireTimers()];
    w.drop(0); // the read of the log start is under way: the operation fails meanwhile
    await timer;
    expect(w.reads).toEqual([0]);
    expect(w.freed).toEqual([]);
    expect(w.events).toEqual([]);
    expect(w.seeks).toEqual([]);
    expect(w.pendingTimers()).toBe(0);
  });

  it('is sought to when the port cannot tell the log start, and nothing given up', async () => {
    const w = logStartWorld({ start: 'none' });
    const parking = parkingWith([[12n, 'k']]);
    w.load(0, parking);
    w.logStart.checkLogStartLater(0, parking);
    await w.fireTimers();
    expect(w.freed).toEqual([]);
    expect(w.seeks).toEqual(['0@12']);
  });

  it('is checked again after a refused read of the log start, and given up once the read answers', async () => {
    const w = logStartWorld({ start: undefined });
    const parking = parkingWith([[12n, 'k']]);
    w.load(0, parking);
    w.logStart.checkLogStartLater(0, parking);
    await w.fireTimers();
    expect(w.freed).toEqual([]);
    expect(w.pendingTimers()).toBe(1);
    w.setStart(13n);
    await w.fireTimers();
    expect(w.freed).toEqual([['k']]);
    expect(w.seeks).toEqual(['0@12']); // after the refused read, still in the log as far as it knows
  });

  it('is not checked again after forget(), a rebalance: the timer set before does nothing', async () => {
    const w = logStartWorld({ start: 0n });
    const parking = parkingWith([[12n, 'k']]);
    w.load(0, parking);
    w.logStart.checkLogStartLater(0, parking);
    w.rebalance();
    w.logStart.forget();
    // The state loaded again in the new generation sets a check of its own before the old timer fires.
    w.logStart.checkLogStartLater(0, parking);
    expect(w.pendingTimers()).toBe(2);
    await w.fireTimers();
    expect(w.seeks).toEqual(['0@12']); // the new one's, once
  });
});

describe('the checks of a state loaded again after a rebalance', () => {
  it('are not doubled by the timer the earlier generation set: it leaves the current check in place', async () => {
    const w = logStartWorld({ start: 0n });
    const parking = parkingWith([[12n, 'k']]);
    w.load(0, parking);
    w.logStart.checkLogStartLater(0, parking);
    w.rebalance();
    w.logStart.forget();
    w.logStart.checkLogStartLater(0, parking);
    await w.fireOldestTimer(); // the earlier generation's: does nothing
    // Asked again while the current check is pending: still one check, not a second beside it.
    w.logStart.checkLogStartLater(0, parking);
    expect(w.pendingTimers()).toBe(1);
    await w.fireTimers();
    await w.fireTimers();
    expect(w.seeks).toEqual(['0@12', '0@12']); // one loop of checks: one seek each round
  });
});

describe('the parked records of a loaded state below the log start, given up when a gap is read', () => {
  it('are given up and their keys freed, those read again or past the log start kept', async () => {
    const w = logStartWorld({ start: 14n });
    const parking = parkingWith([[13n, 'j'], [11n, 'k'], [12n, 'm'], [16n, 'a']], [12n]);
    w.load(0, parking);
    await w.logStart.giveUpBelowLogStart(0, parking);
    expect(w.freed).toEqual([['j', 'k']]);
    expect([...parking.state.parked.keys()].sort()).toEqual([12n, 16n]);
    expect(w.events).toEqual([{ type: 'parked-records-deleted', topic: MAIN, partition: 0, offsets: ['11', '13'], from: '11', to: '14' }]);
    expect(w.pendingTimers()).toBe(0);
  });

  it('are none when the read of the log start is refused, which is asked again later', async () => {
    const w = logStartWorld({ start: undefined });
    const parking = parkingWith([[12n, 'k']]);
    w.load(0, parking);
    await w.logStart.giveUpBelowLogStart(0, parking);
    expect(w.freed).toEqual([]);
    expect(w.pendingTimers()).toBe(1);
  });

  it('are none, and nothing asked again, when the port cannot tell the log start', async () => {
    const w = logStartWorld({ start: 'none' });
    const parking = parkingWith([[12n, 'k']]);
    w.load(0, parking);
    await w.logStart.giveUpBelowLogStart(0, parking);
    expect(w.reads).toEqual([]);
    expect(w.freed).toEqual([]);
    expect(w.pendingTimers()).toBe(0);
  });
});

describe('a partition\'s log start read for a commit of -2', () => {
  it('is the log start the port answers, or 0 when it cannot tell or the read is refused', async () => {
    expect(await logStartWorld({ start: 7n }).logStart.logStartOf(0)).toBe(7n);
    expect(await logStartWorld({ start: undefined }).logStart.logStartOf(0)).toBe(0n);
    expect(await logStartWorld({ start: 'none' }).logStart.logStartOf(0)).toBe(0n);
  });
});

describe('the parked records of a state being loaded that lie below the log start', () => {
  const stored = (): ParkState => {
    const state = emptyParkState(20n);
    state.parked.set(15n, 'a');
    state.parked.set(13n, 'c');
    state.parked.set(11n, 'b');
    return state;
  };

  it('are dropped from the state and said, oldest first, the shed mark past the last of them', async () => {
    const w = logStartWorld({ start: 15n });
    const state = stored();
    await w.logStart.giveUpStoredBelowLogStart(0, state);
    expect([...state.parked.keys()]).toEqual([15n]);
    expect(state.givenUpBefore).toBe(14n);
    expect(w.events).toEqual([{ type: 'parked-records-deleted', topic: MAIN, partition: 0, offsets: ['11', '13'], from: '11', to: '15' }]);
    expect(w.freed).toEqual([]); // nothing run: the load commits
  });

  it('move a shed mark below them past them', async () => {
    const w = logStartWorld({ start: 15n });
    const state = stored();
    state.givenUpBefore = 5n;
    await w.logStart.giveUpStoredBelowLogStart(0, state);
    expect(state.givenUpBefore).toBe(14n);
  });

  it('leave a shed mark further on where it is', async () => {
    const w = logStartWorld({ start: 12n });
    const state = stored();
    state.givenUpBefore = 18n;
    await w.logStart.giveUpStoredBelowLogStart(0, state);
    expect([...state.parked.keys()].sort()).toEqual([13n, 15n]);
    expect(state.givenUpBefore).toBe(18n);
  });

  it('are none when the log start is at the oldest, or the read is refused, or the port cannot tell', async () => {
    for (const start of [11n, undefined, 'none'] as const) {
      const w = logStartWorld({ start });
      const state = stored();
      await w.logStart.giveUpStoredBelowLogStart(0, state);
      expect(state.parked.size).toBe(3);
      expect(state.givenUpBefore).toBeUndefined();
      expect(w.events).toEqual([]);
    }
  });
});
