import { libuvPoolSize, ReadSlots, readSlotsFor } from '../../src/runtime/adapters/native-read-slots';

/** A read that settles when the test says: resolve, or reject. */
function heldRead(log: string[], name: string) {
  let settle!: (ok: boolean) => void;
  const read = () =>
    new Promise<string>((resolve, reject) => {
      log.push(`${name} runs`);
      settle = (ok) => (ok ? resolve(name) : reject(new Error(`${name} timed out`)));
    });
  return { read, settle: (ok: boolean) => settle(ok) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('the native read slots (a share of the libuv pool for the Confluent readers)', () => {
  it('runs at most its size of reads at once, the others in the order they asked', async () => {
    const log: string[] = [];
    const slots = new ReadSlots(2);
    const reads = ['a', 'b', 'c', 'd'].map((name) => heldRead(log, name));
    const results = reads.map((r) => slots.run(r.read).catch((error: Error) => error.message));
    await turn();
    expect(log).toEqual(['a runs', 'b runs']);
    reads[1]!.settle(false);
    await turn();
    expect(log).toEqual(['a runs', 'b runs', 'c runs']);
    reads[0]!.settle(true);
    await turn();
    expect(log).toEqual(['a runs', 'b runs', 'c runs', 'd runs']);
    reads[2]!.settle(true);
    reads[3]!.settle(true);
    expect(await Promise.all(results)).toEqual(['a', 'b timed out', 'c', 'd']);
  });

  it('frees every slot once its reads settled, so later reads run at once', async () => {
    const log: string[] = [];
    const slots = new ReadSlots(1);
    const first = heldRead(log, 'first');
    const running = slots.run(first.read);
    await turn();
    first.settle(false);
    await expect(running).rejects.toThrow('first timed out');
    const [x, y] = [heldRead(log, 'x'), heldRead(log, 'y')];
    void slots.run(x.read);
    void slots.run(y.read);
    await turn();
    expect(log).toEqual(['first runs', 'x runs']);
  });

  it('a read that throws before it returns a promise frees its slot too', async () => {
    const slots = new ReadSlots(1);
    await expect(slots.run(() => { throw new Error('no client'); })).rejects.toThrow('no client');
    await expect(slots.run(async () => 'next')).resolves.toBe('next');
  });

  it('takes half the pool as libuv sizes it, at least one thread: the rest is the application\u2019s', () => {
    expect([1, 2, 3, 4, 5, 8, 128].map(readSlotsFor)).toEqual([1, 1, 1, 2, 2, 4, 64]);
    expect(libuvPoolSize({})).toBe(4);
    expect(libuvPoolSize({ UV_THREADPOOL_SIZE: '16' })).toBe(16);
    // As libuv's atoi(): no number and 0 are one thread, a negative (read unsigned) or one past 1024 is 1024.
    expect(['many', '', '0', '1', '12threads', '-1', '5000'].map((v) => libuvPoolSize({ UV_THREADPOOL_SIZE: v }))).toEqual([1, 1, 1, 1, 12, 1024, 1024]);
  });

  it('a read aborted while it waits never runs and gives up its place; aborted once running, it runs on', async () => {
    const log: string[] = [];
    const slots = new ReadSlots(1);
    const [busy, leaving, next] = [heldRead(log, 'busy'), heldRead(log, 'leaving'), heldRead(log, 'next')];
    const running = new AbortController();
    const first = slots.run(busy.read, running.signal);
    const reader = new AbortController();
    const second = slots.run(leaving.read, reader.signal).catch((error: Error) => error.message);
    const third = slots.run(next.read);
    await turn();
    reader.abort(new Error('its reader left'));
    running.abort(new Error('too late to matter'));
    expect(await second).toBe('its reader left');
    busy.settle(true);
    await turn();
    expect(log).toEqual(['busy runs', 'next runs']);
    next.settle(true);
    expect(await Promise.all([first, third])).toEqual(['busy', 'next']);
  });

  it('a read that waited and got its turn keeps nothing of its wait: its reader leaving then takes no other read\u2019s place', async () => {
    const log: string[] = [];
    const slots = new ReadSlots(1);
    const [busy, waited, behind] = [heldRead(log, 'busy'), heldRead(log, 'waited'), heldRead(log, 'behind')];
    void slots.run(busy.read);
    const reader = new AbortController();
    const second = slots.run(waited.read, reader.signal);
    await turn();
    busy.settle(true);
    await turn();
    expect(log).toEqual(['busy runs', 'waited runs']);
    const third = slots.run(behind.read);
    // Aborted while it runs, after its wait: the read behind it keeps its place in the queue.
    reader.abort(new Error('its reader left'));
    waited.settle(true);
    await turn();
    expect(log).toEqual(['busy runs', 'waited runs', 'behind runs']);
    behind.settle(true);
    expect(await Promise.all([second, third])).toEqual(['waited', 'behind']);
  });

  it('a read whose reader left before it asked fails at once, even with a slot free', async () => {
    const left = new AbortController();
    left.abort(new Error('gone'));
    const slots = new ReadSlots(1);
    const ran: string[] = [];
    await expect(slots.run(async () => void ran.push('with a slot free'), left.signal)).rejects.toThrow('gone');
    const log: string[] = [];
    const busy = heldRead(log, 'busy');
    void slots.run(busy.read);
    await expect(slots.run(async () => void ran.push('behind another'), left.signal)).rejects.toThrow('gone');
    busy.settle(true);
    await turn();
    await expect(slots.run(async () => 'later')).resolves.toBe('later');
    expect(ran).toEqual([]);
  });
});
