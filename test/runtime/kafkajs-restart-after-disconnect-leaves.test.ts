import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import type { KafkaJsLike } from '../../src/runtime/adapters/kafkajs';

/**
 * Attack (s26, attack6) on the kafkajs adapter's own restart (adapters/kafkajs.ts:81-95
 * restartLater) and 8cbdcee's GROUP_JOIN-after-disconnect guard (:98-100). The guard covers a
 * restart kafkajs itself had begun; the adapter's own restart checks `disconnected` only when its
 * timer fires, not once connect() answers.
 */
function fakeKafkaJs() {
  const calls: string[] = [];
  const listeners = new Map<string, ((e: { payload: { error: Error; groupId: string; restart: boolean } }) => void)[]>();
  let connects = 0;
  let answerConnect: (() => void) | undefined;
  const kafka = {
    consumer: () => ({
      // The second connect (the adapter's restart) waits for the broker, answered by the test.
      connect: () => {
        calls.push('connect');
        return ++connects === 1 ? Promise.resolve() : new Promise<void>((resolve) => (answerConnect = resolve));
      },
      disconnect: async () => void calls.push('disconnect'),
      subscribe: async () => {},
      run: async () => void calls.push('run'),
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
  const crash = () => {
    for (const l of listeners.get('consumer.crash') ?? []) l({ payload: { error: Object.assign(new Error('Not authorized to access group'), { type: 'GROUP_AUTHORIZATION_FAILED' }), groupId: 'g', restart: false } });
  };
  return { kafka, calls, crash, answerConnect: () => answerConnect?.() };
}

describe('the kafkajs adapter, stopped while its own restart waits for the broker (attack6)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  // Found by attack (s26, attack6), fixed; was (adapters/kafkajs.ts:88-90): `consumer.connect().then(() => consumer.run(running!))`
  // does not look at `disconnected` once connect() answers. A restart whose connect waited for the
  // broker through stop() connects the consumer again and runs it after disconnect(): it joins the
  // group after the member left (a second rebalance for every other member), and if it never joins
  // (the group's coordinator still away) no GROUP_JOIN comes to leave again: the consumer stays
  // connected, its connections keep the process alive after stop().
  // Class: a cancellation flag checked before an await but not after it.
  // Fix: `.then(() => (disconnected ? consumer.disconnect() : consumer.run(running!)))` (and the
  // same check before run in any later step of the restart).
  it('never runs the consumer again once disconnect() was called, even when the restart\'s connect answers after it', async () => {
    const fake = fakeKafkaJs();
    const consumer = kafkajsPort(fake.kafka, { onCrash: () => {} }).consumer('g');
    await consumer.connect();
    await consumer.run({ eachMessage: async () => {} });
    fake.crash();
    await jest.advanceTimersByTimeAsync(60_000); // the restart's timer fires: connect() waits for the broker
    expect(fake.calls).toEqual(['connect', 'run', 'connect']);
    // disconnect() waits for the connect under way (it would end connected after a disconnect made now).
    const left = consumer.disconnect();
    fake.answerConnect();
    await left;
    await jest.advanceTimersByTimeAsync(60_000);
    expect(fake.calls.slice(fake.calls.indexOf('disconnect'))).not.toContain('run');
  });
});
