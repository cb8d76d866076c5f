import { createSeekUntilRead, SEEK_UNTIL_READ_MS } from '../../src/runtime/seek-until-read';

/** A seek-until-read on a clock of its own (not at 0, as Date.now() never is), its seeks and timers recorded. */
function untilReadWorld(start = 1_000_000) {
  let now = start;
  let generation = 1;
  const timers: { at: number; work: () => void; done: boolean }[] = [];
  const seeks: string[] = [];
  let refuse = 0;
  const untilRead = createSeekUntilRead({
    seek: (partition, offset) => {
      if (refuse > 0) {
        refuse--;
        throw new Error('Local: Erroneous state');
      }
      seeks.push(`${partition}@${offset}@${now - start}`);
      return undefined;
    },
    setTimer: (ms, work) => {
      const timer = { at: now + ms, work, done: false };
      timers.push(timer);
      return () => void (timer.done = true);
    },
    now: () => now,
    generation: () => generation,
  });
  /** Moves the clock to `at` (since the start), one due timer at a time, in the order they are due. */
  const advanceTo = (at: number) => {
    for (let fired = 0; ; fired++) {
      if (fired > 10_000) throw new Error('timers set again with no wait');
      const due = timers.filter((t) => !t.done && t.at <= start + at).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      now = due.at;
      due.done = true;
      due.work();
    }
    now = start + at;
  };
  /** Runs the timers due by `at` with the clock at `at`: timers that fire late. */
  const fireLateAt = (at: number) => {
    now = start + at;
    for (const timer of timers.filter((t) => !t.done && t.at <= now)) {
      timer.done = true;
      timer.work();
    }
  };
  return {
    untilRead,
    seeks,
    advanceTo,
    fireLateAt,
    rebalance: () => void generation++,
    refuseNextSeeks: (n: number) => void (refuse = n),
    pending: () => timers.filter((t) => !t.done).length,
  };
}

const always = () => true;

describe('a seek made again until the partition is read', () => {
  it('is made at once, again after half a second, then twice as long each time up to five seconds', () => {
    const w = untilReadWorld();
    w.untilRead.seekUntilRead(0, 10n, always);
    w.advanceTo(30_000);
    expect(w.seeks).toEqual(['0@10@0', '0@10@500', '0@10@1500', '0@10@3500', '0@10@7500', '0@10@12500', '0@10@17500', '0@10@22500', '0@10@27500']);
  });

  it('is made for a minute, then no more', () => {
    const w = untilReadWorld();
    w.untilRead.seekUntilRead(0, 10n, always);
    w.advanceTo(10 * SEEK_UNTIL_READ_MS);
    expect(w.seeks.at(-1)).toBe('0@10@57500');
    expect(w.pending()).toBe(0);
  });

  it('is not made again by a timer that fires a minute after the first seek', () => {
    const w = untilReadWorld();
    w.untilRead.seekUntilRead(0, 10n, always);
    w.fireLateAt(SEEK_UNTIL_READ_MS);
    expect(w.seeks).toEqual(['0@10@0']);
  });

  it('stops once a record of the partition is delivered', () => {
    const w = untilReadWorld();
    w.untilRead.seekUntilRead(0, 10n, always);
    w.advanceTo(600);
    w.untilRead.delivered(0);
    w.advanceTo(30_000);
    expect(w.seeks).toEqual(['0@10@0', '0@10@500']);
  });

  it('is made again after a later seek though a record was delivered after an earlier one', () => {
    const w = untilReadWorld();
    w.untilRead.seekUntilRead(0, 10n, always);
    w.untilRead.delivered(0);
    w.advanceTo(1_000);
    w.untilRead.seekUntilRead(0, 12n, always);
    w.advanceTo(1_600);
    expect(w.seeks).toEqual(['0@10@0', '0@12@1000', '0@12@1500']);
  });

  it('goes on for a record of another partition delivered', () => {
    const w = untilReadWorld();
    w.untilRead.seekUntilRead(0, 10n, always);
    w.untilRead.delivered(1);
    w.advanceTo(600);
    expect(w.seeks).toEqual(['0@10@0', '0@10@500']);
  });

  it('stops at a rebalance', () => {
    const w = untilReadWorld();
    w.untilRead.seekUntilRead(0, 10n, always);
    w.rebalance();
    w.advanceTo(30_000);
    expect(w.seeks).toEqual(['0@10@0']);
  });

  it('stops once the state that asked is not current any more', () => {
    const w = untilReadWorld();
    let current = true;
    w.untilRead.seekUntilRead(0, 10n, () => current);
    w.advanceTo(600);
    current = false;
    w.advanceTo(30_000);
    expect(w.seeks).toEqual(['0@10@0', '0@10@500']);
  });

  it('goes on after a seek the client refuses', () => {
    const w = untilReadWorld();
    w.untilRead.seekUntilRead(0, 10n, always);
    w.refuseNextSeeks(1);
    w.advanceTo(1_600);
    expect(w.seeks).toEqual(['0@10@0', '0@10@1500']);
  });

  it('to another offset replaces the tries of the one before', () => {
    const w = untilReadWorld();
    w.untilRead.seekUntilRead(0, 10n, always);
    w.advanceTo(100);
    w.untilRead.seekUntilRead(0, 20n, always);
    w.advanceTo(2_000);
    expect(w.seeks).toEqual(['0@10@0', '0@20@100', '0@20@600', '0@20@1600']);
  });

  it('stops at forget()', () => {
    const w = untilReadWorld();
    w.untilRead.seekUntilRead(0, 10n, always);
    w.untilRead.seekUntilRead(1, 10n, always);
    w.untilRead.forget();
    w.advanceTo(30_000);
    expect(w.seeks).toEqual(['0@10@0', '1@10@0']);
  });
});

describe('a seek until read asked for only if none is under way', () => {
  it('is made when no tries are under way', () => {
    const w = untilReadWorld();
    w.untilRead.ensureSeekUntilRead(0, 10n, always);
    w.advanceTo(600);
    expect(w.seeks).toEqual(['0@10@0', '0@10@500']);
  });

  it('is not made while tries of the current state are under way', () => {
    const w = untilReadWorld();
    w.untilRead.seekUntilRead(0, 10n, always);
    w.advanceTo(100);
    w.untilRead.ensureSeekUntilRead(0, 20n, always);
    w.advanceTo(600);
    expect(w.seeks).toEqual(['0@10@0', '0@10@500']);
  });

  it('is made when the tries under way are of a state not current any more', () => {
    const w = untilReadWorld();
    let current = true;
    w.untilRead.seekUntilRead(0, 10n, () => current);
    w.advanceTo(100);
    current = false;
    w.untilRead.ensureSeekUntilRead(0, 20n, always);
    w.advanceTo(600);
    expect(w.seeks).toEqual(['0@10@0', '0@20@100', '0@20@600']);
  });
});
