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

  it('takes half the pool, at least one thread: the rest is the application\u2019s', () => {
    expect([1, 2, 3, 4, 5, 8, 128].map(readSlotsFor)).toEqual([1, 1, 1, 2, 2, 4, 64]);
    expect(libuvPoolSize({})).toBe(4);
    expect(libuvPoolSize({ UV_THREADPOOL_SIZE: '16' })).toBe(16);
    expect(libuvPoolSize({ UV_THREADPOOL_SIZE: 'many' })).toBe(4);
    expect(libuvPoolSize({ UV_THREADPOOL_SIZE: '0' })).toBe(4);
    expect(libuvPoolSize({ UV_THREADPOOL_SIZE: '5000' })).toBe(1024);
  });

  it('gives up a read not answered in time, passes its slot on, and drops its late answer', async () => {
    const log: string[] = [];
    const slots = new ReadSlots(1);
    const lost = heldRead(log, 'lost');
    const next = heldRead(log, 'next');
    const first = slots.run(lost.read, 20, () => new Error('lost read given up'));
    const second = slots.run(next.read, 1_000);
    await expect(first).rejects.toThrow('lost read given up');
    await turn();
    expect(log).toEqual(['lost runs', 'next runs']);
    lost.settle(true);
    next.settle(true);
    await expect(second).resolves.toBe('next');
  });
});
