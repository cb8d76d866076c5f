import { createPartitionRuns } from '../../src/runtime/adapters/platformatic-run';
import type { PortMessage } from '../../src/runtime/port';

/**
 * The @platformatic/kafka adapter's partition runs hand records to handlers that may resolve
 * at once. Chained in microtasks, such hand-outs ran before any I/O: a commit's answer and the
 * next fetch response waited until the whole queue was handled (the commit window then filled
 * behind the commit). A turn of the event loop comes after every few hundred records.
 */
const record = (offset: number): PortMessage => ({ key: null, value: Buffer.alloc(10), headers: {}, offset: String(offset), timestamp: '0' });

function runsWithQueued(count: number, partitions = 1) {
  const runs = createPartitionRuns({ prefetchBytes: Number.MAX_SAFE_INTEGER, onFetchable: () => undefined, onHandlerError: () => undefined, onReposition: () => undefined });
  for (let p = 0; p < partitions; p++) for (let i = 0; i < count; i++) runs.deliver('t', p, record(i), BigInt(i));
  return runs;
}

describe('partition runs over @platformatic/kafka', () => {
  it('let the event loop read I/O between batches of records whose handlers resolve at once', async () => {
    const runs = runsWithQueued(2_000);
    let ioRan = false;
    const ioSeenAtBatch: boolean[] = [];
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    let handled = 0;
    runs.start({
      eachBatch: async ({ messages, resolveOffset }) => {
        ioSeenAtBatch.push(ioRan);
        resolveOffset(messages[messages.length - 1]!.offset);
        handled += messages.length;
        if (handled === 2_000) finished();
      },
    });
    // Scheduled after the first hand-out began: I/O that arrived while the queue is handled.
    setImmediate(() => (ioRan = true));
    await done;
    runs.stop();
    expect(ioSeenAtBatch).toEqual([false, true, true, true]);
  });

  it('let the event loop turn every few hundred records one at a time too, across partitions side by side', async () => {
    const runs = runsWithQueued(600, 2);
    let turns = 0;
    const tick = () => {
      turns++;
      if (!stopped) setImmediate(tick);
    };
    let stopped = false;
    setImmediate(tick);
    let handled = 0;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    runs.start({
      partitionsConsumedConcurrently: 2,
      eachMessage: async () => {
        if (++handled === 1_200) finished();
      },
    });
    await done;
    stopped = true;
    runs.stop();
    // 1,200 records at most 500 a turn, whichever partition they came from: at least two turns between them.
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(turns).toBeLessThan(20);
  });

  it('hands out nothing more once stopped, even with a turn pending', async () => {
    const runs = runsWithQueued(1_500);
    const batches: number[] = [];
    runs.start({
      eachBatch: async ({ messages, resolveOffset }) => {
        batches.push(messages.length);
        resolveOffset(messages[messages.length - 1]!.offset);
        if (batches.length === 1) queueMicrotask(() => runs.stop());
      },
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(batches).toEqual([500]);
  });
});
