import { groupOffsetsReader } from '../../src/runtime/adapters/group-offsets';
import type { OffsetsAdminLike } from '../../src/runtime/adapters/group-offsets';

/**
 * The Confluent adapter's reader (retireAdminOnFailure): librdkafka aborts the process when a
 * group-offsets read timed out while the coordinator was away and the coordinator comes back
 * to that admin (group-offsets.ts, the option's comment; test/kafka/confluent-read-through-outage.test.ts
 * on the broker). Here, with admins that say what was asked of them when.
 */
function admins(answers: (() => Promise<unknown>)[]) {
  const events: string[] = [];
  let made = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  const create = (): OffsetsAdminLike => {
    const id = ++made;
    let connected = false;
    const ask = async <T>(what: string): Promise<T> => {
      if (!connected) throw new Error(`admin ${id} asked ${what} while not connected`);
      events.push(`admin ${id} ${what}`);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        const answer = answers.shift();
        return (await (answer ?? (async () => [{ topic: 'billing.main', partitions: [{ partition: 0, offset: '7', metadata: null }] }]))()) as T;
      } finally {
        inFlight--;
      }
    };
    return {
      connect: async () => {
        connected = true;
        events.push(`admin ${id} connect`);
      },
      disconnect: async () => {
        // The Confluent admin's disconnect waits for the request under way, blocking the event loop.
        if (inFlight > 0) events.push(`admin ${id} disconnected with a request in flight`);
        connected = false;
        events.push(`admin ${id} disconnect`);
      },
      fetchOffsets: () => ask('fetchOffsets'),
      fetchTopicOffsets: () => ask('fetchTopicOffsets'),
    };
  };
  return { create, events, mostInFlight: () => mostInFlight };
}

const timedOut = () => Promise.reject(Object.assign(new Error('Local: Timed out'), { code: -185 }));
const later = <T>(ms: number, value: T) => () => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe("the Confluent adapter's committed-offsets reader (retireAdminOnFailure)", () => {
  it('disconnects an admin whose read failed before the failure is passed on, and reads again through a new one', async () => {
    const made = admins([timedOut]);
    const reader = groupOffsetsReader(made.create, 'billing', { retireAdminOnFailure: true });
    const failed = await reader.committed('billing.main', [0]).then(
      () => 'answered',
      (error: unknown) => `${(error as Error).message}; events so far: ${made.events.join(', ')}`,
    );
    expect(failed).toBe('Local: Timed out; events so far: admin 1 connect, admin 1 fetchOffsets, admin 1 disconnect');
    expect(await reader.committed('billing.main', [0])).toEqual([{ partition: 0, offset: '7', metadata: null }]);
    expect(made.events.slice(3)).toEqual(['admin 2 connect', 'admin 2 fetchOffsets']);
    await reader.close();
    expect(made.events.at(-1)).toBe('admin 2 disconnect');
  });

  it('a failed log-start read retires its admin too', async () => {
    const made = admins([timedOut]);
    const reader = groupOffsetsReader(made.create, 'billing', { retireAdminOnFailure: true });
    await expect(reader.logStarts('billing.main', [0])).rejects.toThrow(/Timed out/);
    expect(made.events).toEqual(['admin 1 connect', 'admin 1 fetchTopicOffsets', 'admin 1 disconnect']);
  });

  it('sends one request at a time, so an admin is never disconnected with a request of its own in flight (reads left behind by a bounded wait included)', async () => {
    const made = admins([async () => later(30, undefined)().then(() => Promise.reject(new Error('Local: Timed out'))), later(5, [])]);
    const reader = groupOffsetsReader(made.create, 'billing', { retireAdminOnFailure: true });
    // Two reads at once, as two partitions' waits read their commits: the first fails.
    const both = await Promise.allSettled([reader.committed('billing.main', [0]), reader.logStarts('billing.main', [0])]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(made.mostInFlight()).toBe(1);
    expect(made.events).toEqual(['admin 1 connect', 'admin 1 fetchOffsets', 'admin 1 disconnect', 'admin 2 connect', 'admin 2 fetchTopicOffsets']);
    await reader.close();
    expect(made.events.filter((e) => e.includes('in flight'))).toEqual([]);
  });

  it('close() waits for the request under way (abandoned by its caller or not) and then disconnects; reads after it are refused', async () => {
    const made = admins([later(30, [{ topic: 'billing.main', partitions: [{ partition: 0, offset: '9', metadata: null }] }])]);
    const reader = groupOffsetsReader(made.create, 'billing', { retireAdminOnFailure: true });
    const read = reader.committed('billing.main', [0]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const closing = reader.close();
    await expect(reader.committed('billing.main', [0])).rejects.toThrow(/left its group/);
    await closing;
    expect(await read).toEqual([{ partition: 0, offset: '9', metadata: null }]);
    expect(made.events).toEqual(['admin 1 connect', 'admin 1 fetchOffsets', 'admin 1 disconnect']);
  });

  it('without the option (the kafkajs adapter) reads go out as they come, on one admin kept through a failure', async () => {
    const made = admins([timedOut]);
    const reader = groupOffsetsReader(made.create, 'billing');
    await expect(reader.committed('billing.main', [0])).rejects.toThrow(/Timed out/);
    await Promise.all([reader.committed('billing.main', [0]), reader.committed('billing.main', [0])]);
    expect(made.events).toEqual(['admin 1 connect', 'admin 1 fetchOffsets', 'admin 1 fetchOffsets', 'admin 1 fetchOffsets']);
    await reader.close();
  });
});
