import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import type { KafkaJsLike } from '../../src/runtime/adapters/kafkajs';

/** A stand-in for kafkajs that records connects and runs and lets a test emit its CRASH event. */
function fakeKafkaJs() {
  const calls: string[] = [];
  const listeners = new Map<string, ((e: { payload: { error: Error; groupId: string; restart: boolean } }) => void)[]>();
  let runsLeftToRefuse = 0;
  const kafka = {
    consumer: () => ({
      connect: async () => void calls.push('connect'),
      disconnect: async () => void calls.push('disconnect'),
      subscribe: async () => {},
      run: async () => {
        calls.push('run');
        if (runsLeftToRefuse-- > 0) throw new Error('The group coordinator is not available');
      },
      pause: () => {},
      resume: () => {},
      seek: () => {},
      commitOffsets: async () => {},
      on: (event: string, listener: (e: { payload: { error: Error; groupId: string; restart: boolean } }) => void) => void listeners.set(event, [...(listeners.get(event) ?? []), listener]),
      events: { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash' },
    }),
    producer: () => ({}),
    admin: () => ({ connect: async () => {}, disconnect: async () => {}, fetchOffsets: async () => [] }),
  } as unknown as KafkaJsLike;
  const crash = (restart: boolean) => {
    for (const l of listeners.get('consumer.crash') ?? []) l({ payload: { error: Object.assign(new Error('Not authorized to access group'), { type: 'GROUP_AUTHORIZATION_FAILED' }), groupId: 'g', restart } });
  };
  return { kafka, calls, crash, refuseRuns: (n: number) => (runsLeftToRefuse = n) };
}

describe('the kafkajs adapter', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs a consumer again, with backoff, when kafkajs stopped it after a non-retriable error, and says so', async () => {
    const fake = fakeKafkaJs();
    const crashes: { error: unknown; restartInMs: number }[] = [];
    const consumer = kafkajsPort(fake.kafka, { onCrash: (error, restartInMs) => crashes.push({ error, restartInMs }) }).consumer('g');
    await consumer.connect();
    await consumer.run({ eachMessage: async () => {} });
    fake.refuseRuns(1);
    fake.crash(false);
    expect(crashes).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(crashes[0]!.restartInMs);
    // The first run again is refused (the coordinator moved): tried again later.
    await jest.advanceTimersByTimeAsync(60_000);
    expect(fake.calls).toEqual(['connect', 'run', 'connect', 'run', 'connect', 'run']);
  });

  it('leaves a crash kafkajs restarts itself to kafkajs, and never runs a consumer again after disconnect()', async () => {
    const fake = fakeKafkaJs();
    const consumer = kafkajsPort(fake.kafka).consumer('g');
    await consumer.connect();
    await consumer.run({ eachMessage: async () => {} });
    fake.crash(true);
    await jest.advanceTimersByTimeAsync(60_000);
    fake.crash(false);
    await consumer.disconnect();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(fake.calls).toEqual(['connect', 'run', 'disconnect']);
  });
});

describe("the kafkajs adapter's commits", () => {
  /** A kafkajs consumer whose commitOffsets() answers as kafkajs's runner does once stopped mid-retry: resolved, nothing sent, no COMMIT_OFFSETS. */
  function silentlyStoppedKafkaJs() {
    const listeners = new Map<string, ((e: unknown) => void)[]>();
    return {
      consumer: () => ({
        connect: async () => {},
        commitOffsets: async () => {},
        on: (event: string, listener: (e: unknown) => void) => void listeners.set(event, [...(listeners.get(event) ?? []), listener]),
        events: { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash', COMMIT_OFFSETS: 'consumer.commit_offsets' },
      }),
      producer: () => ({}),
      admin: () => ({}),
    } as unknown as KafkaJsLike;
  }

  it('refuses a commit kafkajs answered without reporting it stored (#28 finding 2: it was taken as acknowledged)', async () => {
    const consumer = kafkajsPort(silentlyStoppedKafkaJs()).consumer('g');
    await expect(consumer.commitOffsets([{ topic: 'orders', partition: 0, offset: '535' }])).rejects.toThrow(/kafkajs did not commit orders-0 at offset 535/);
  });
});
