import type { RetryEvent } from '../../src/runtime/events';
import { decodeParkState } from '../../src/runtime/park-state';
import type { ConsumerPort, KafkaPort, OffsetCommit } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { FaultyPort } from '../../src/simulate/faulty-port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import type { ThrowReaction } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { httpError, valueOf } from './harness';
import { consumer, replayInto } from './park-by-key-world';

export { consumer };
export const T0 = 1_000_000;

/** What the log-start read of the port does (attack 21): the broker's answer, a refusal, or a lie. */
export type LogStart = 'broker' | 'absent' | 'throws' | { readonly lie: (partition: number, truth: number) => number };

/**
 * Attack 21's world: the park-by-key runtime over the in-memory broker, behind a FaultyPort
 * (no faults: only its crash, called by the test at the exact commit it names), with a handler
 * whose failures are counted in hops (main topic = 0, tier i = i: a label with `fails` n fails
 * on hops 0..n-1, every in-place try included, and succeeds from hop n on), and a log-start
 * read the test can refuse or make lie.
 */
export function attackWorld(options: { reaction?: Exclude<ThrowReaction, 'fail'>; logStart?: LogStart; partitions?: number } = {}) {
  const clock = new VirtualClock(T0);
  const broker = new MemoryBroker(clock);
  broker.throwReaction = options.reaction ?? 'confluent';
  broker.pausesSurviveRebalance = options.reaction === 'kafkajs';
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, options.partitions ?? 2);
  /** Hops that fail, per `key:value` label (none: succeeds on the main topic). */
  const fails = new Map<string, number>();
  /** Every handler call: `key:value@hop ok|FAIL`. */
  const runs: string[] = [];
  const events: RetryEvent[] = [];
  /** Called with each event as it is emitted (synchronously, inside the runtime's operation). */
  const hooks: ((e: RetryEvent) => void)[] = [];
  /** The commit that crashes the process when it is sent (nothing of it lands). */
  let crashAt: ((offsets: readonly OffsetCommit[]) => boolean) | undefined;
  let logStart: LogStart = options.logStart ?? 'broker';
  const seeks: string[] = [];
  const inner: KafkaPort = {
    consumer: (groupId, consumerOptions) => {
      const c = broker.port().consumer(groupId, consumerOptions);
      return new Proxy(c, {
        get(target, prop) {
          if (prop === 'commitOffsets') {
            return async (offsets: OffsetCommit[]) => {
              if (crashAt?.(offsets)) {
                crashAt = undefined;
                faulty.crash();
                return new Promise<void>(() => {});
              }
              return target.commitOffsets(offsets);
            };
          }
          if (prop === 'seek') {
            return (s: { topic: string; partition: number; offset: string }) => {
              if (s.topic === consumer.mainTopic) seeks.push(`${s.partition}@${s.offset}`);
              target.seek(s);
            };
          }
          if (prop === 'logStartOffsets') {
            if (logStart === 'absent') return undefined;
            return async (topic: string, partitions: number[]) => {
              if (logStart === 'throws') throw new Error('The admin client is not connected');
              const truth = await target.logStartOffsets!(topic, partitions);
              if (logStart === 'broker' || logStart === 'absent') return truth;
              const lie = logStart.lie;
              return truth.map((s) => ({ partition: s.partition, offset: String(lie(s.partition, Number(s.offset))) }));
            };
          }
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }) as ConsumerPort;
    },
    producer: () => broker.port().producer(),
  };
  const faulty: FaultyPort = new FaultyPort(inner, { faults: [] });
  const hopOf = (topic: string) => (topic === consumer.mainTopic ? 0 : consumer.tiers.findIndex((t) => t.topic === topic) + 1);
  let current: RetryingConsumer | undefined;

  async function start(startOptions: { parkingBudgetBytes?: number } = {}): Promise<RetryingConsumer> {
    const process = faulty.current;
    const retrying = createRetryingConsumer(consumer, {
      kafka: faulty.port(),
      clock,
      random: () => 0.5,
      ...startOptions,
      onEvent: (e) => {
        events.push(e);
        for (const hook of hooks) hook(e);
      },
      handler: async (record: ConsumedRecord) => {
        if (!faulty.alive(process)) return new Promise<void>(() => {});
        const label = `${record.message.key?.toString() ?? 'null'}:${valueOf(record)}`;
        const hop = hopOf(record.topic);
        const ok = hop >= (fails.get(label) ?? 0);
        runs.push(`${label}@${hop} ${ok ? 'ok' : 'FAIL'}`);
        if (!ok) throw httpError(503);
      },
    });
    await retrying.start();
    current = retrying;
    return retrying;
  }

  const produce = (key: string | null, value: string, partition = 0) =>
    broker.append(consumer.mainTopic, { key: key === null ? null : Buffer.from(key), value: Buffer.from(value), partition });
  const replay = (key: string, value: string, original: number, dlqOffset = 7) => replayInto(broker, clock, key, value, original, dlqOffset);
  const parkState = (partition = 0) =>
    decodeParkState(BigInt(broker.committedOffset(consumer.groups.main, consumer.mainTopic, partition) ?? 0), broker.committedMetadata(consumer.groups.main, consumer.mainTopic, partition));
  const committed = (topic = consumer.mainTopic, partition = 0) => broker.committedOffset(consumer.groups.main, topic, partition);
  /** The labels that succeeded at least once. */
  const succeeded = () => new Set(runs.filter((r) => r.endsWith(' ok')).map((r) => r.replace(/@\d+ ok$/, '')));
  const ofType = <T extends RetryEvent['type']>(type: T) => events.filter((e): e is Extract<RetryEvent, { type: T }> => e.type === type);
  /** The main-topic state commits sent, each decoded (what the process asked the broker to keep). */
  const isStateCommit = (o: OffsetCommit, partition = 0) => o.topic === consumer.mainTopic && o.partition === partition && o.metadata !== undefined;

  return {
    clock,
    broker,
    faulty,
    fails,
    runs,
    events,
    seeks,
    start,
    produce,
    replay,
    parkState,
    committed,
    succeeded,
    ofType,
    isStateCommit,
    /** The next commit `matching` crashes the process as it is sent: nothing of it lands, nothing more of the process reaches the broker. */
    onEvent: (hook: (e: RetryEvent) => void) => void hooks.push(hook),
    crashAt: (matching: (offsets: readonly OffsetCommit[]) => boolean) => void (crashAt = matching),
    setLogStart: (to: LogStart) => void (logStart = to),
    get current() {
      return current;
    },
    /** Moves the clock `ms` on with nothing delivered (a process down; a dead one's timers fire into nothing). */
    advanceBy: (ms: number) => {
      const target = clock.now() + ms;
      clock.setTimer(ms, () => {});
      while (clock.now() < target) clock.advanceToNextTimer();
    },
    /** Runs the simulation `ms` of simulated time on (or until `stopWhen`). */
    runFor: (ms: number, stopWhen?: () => boolean) => broker.run({ until: clock.now() + ms, ...(stopWhen ? { stopWhen } : {}) }),
  };
}

/**
 * Attack 21's crash, the start of every copy-of-a-parked-record scenario: k's a (offset 0) fails
 * on the main topic and in the 1m tier (k held at 0; its 10m copy succeeds), b (offset 1) parks
 * behind it; a's 10m copy ends the retry, the drain runs b, which fails, and b's 1m copy is
 * written; the process dies as it commits the state that says so (the broker keeps k held at 0
 * and b parked). `alsoProduce` adds main records after b.
 */
export async function crashAfterCopyOfParked(w: ReturnType<typeof attackWorld>, alsoProduce: () => void = () => {}): Promise<void> {
  w.fails.set('k:a', 2);
  w.fails.set('k:b', 1);
  w.produce('k', 'a');
  w.produce('k', 'b');
  alsoProduce();
  w.crashAt((offsets) => w.runs.includes('k:b@0 FAIL') && offsets.some((o) => w.isStateCommit(o)));
  await w.start();
  await w.runFor(30 * 60_000, () => w.faulty.crashes > 0);
  expect(w.faulty.crashes).toBe(1);
}
