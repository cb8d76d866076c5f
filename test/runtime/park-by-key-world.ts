import { HEADERS } from '../../src/naming/headers';
import type { RetryEvent } from '../../src/runtime/events';
import { decodeParkState } from '../../src/runtime/park-state';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import type { ConsumerPort, EachMessagePayload, OffsetCommit, TopicPartitionOffset } from '../../src/runtime/port';
import { BrokerRefusedError, MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

export const consumer = billingDescriptor({ ordering: 'park-by-key', groups: { ...billingDescriptor().groups, retry: 'billing-order-confirmed' } });
export const [tier1m] = consumer.tiers;
export const T0 = 1_000_000;

/**
 * What `krt dlq replay`'s default route writes for the DLQ record at `dlqOffset`: into the first
 * tier, due now (or at `dueAt`, as a forged or copied header says), naming main partition 0's
 * record at `original`.
 */
export function replayInto(broker: MemoryBroker, clock: VirtualClock, key: string, value: string, original: number, dlqOffset: number, dueAt = clock.now()): number {
  return broker.append(tier1m!.topic, {
    key: Buffer.from(key),
    value: Buffer.from(value),
    partition: 0,
    headers: {
      [HEADERS.attempt]: '2',
      [HEADERS.dueAt]: String(dueAt),
      [HEADERS.originalTopic]: consumer.mainTopic,
      [HEADERS.originalPartition]: '0',
      [HEADERS.originalOffset]: String(original),
      [HEADERS.replayedFromDlq]: `${consumer.dlqTopic}/0:${dlqOffset}`,
    },
  });
}

/** A broker that outlives its consumers, so a test can stop one and start the next, as a restart does. */
export function world() {
  const clock = new VirtualClock(T0);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
  const handled: string[] = [];
  /** Each run with the topic it ran from: which hop of a record's retry ran. */
  const runs: { label: string; topic: string }[] = [];
  const events: RetryEvent[] = [];
  /** Values that fail once with a 503 (into the tiers), then succeed. */
  const failOnce = new Set<string>();
  /** Values that fail with a 503 every time: up the ladder into the DLQ. */
  const alwaysFail = new Set<string>();
  const start = async (options: { parkingBudgetBytes?: number; parkedHoldExpiryMs?: number } = {}): Promise<RetryingConsumer> => {
    const retrying = createRetryingConsumer(consumer, {
      kafka: broker.port(),
      clock,
      random: () => 0.5,
      ...options,
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        const label = `${record.message.key?.toString()}:${valueOf(record)}`;
        runs.push({ label, topic: record.topic });
        if (failOnce.delete(label) || alwaysFail.has(label)) {
          handled.push(`${label} FAIL`);
          throw httpError(503);
        }
        handled.push(label);
      },
    });
    await retrying.start();
    return retrying;
  };
  const produce = (key: string, value: string, partition = 0) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition });
  const parkState = (partition = 0) =>
    decodeParkState(BigInt(broker.committedOffset(consumer.groups.main, consumer.mainTopic, partition) ?? 0), broker.committedMetadata(consumer.groups.main, consumer.mainTopic, partition));
  /**
   * The group's commit of main partition p keeps its offset and loses its state, as after
   * `kafka-consumer-groups --reset-offsets` (empty metadata), a client that commits without
   * metadata, or a reader that gets trailing bytes after the state (the NUL bug, 25dbbe8).
   */
  const loseState = (how: 'empty' | 'none' | 'trailing bytes', partition = 0) => {
    const offset = broker.committedOffset(consumer.groups.main, consumer.mainTopic, partition);
    const metadata = broker.committedMetadata(consumer.groups.main, consumer.mainTopic, partition) ?? '';
    const lost = how === 'empty' ? { metadata: '' } : how === 'none' ? {} : { metadata: `${metadata.replace(/\0$/, '')}0` };
    broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition, offset: String(offset), ...lost }]);
  };
  /**
   * What `krt dlq replay`'s default route writes for the DLQ record at `dlqOffset`: into the first
   * tier, due now, naming main partition 0's record at `original`.
   */
  const replay = (key: string, value: string, original: number, dlqOffset: number) => replayInto(broker, clock, key, value, original, dlqOffset);
  return { clock, broker, handled, runs, events, failOnce, alwaysFail, start, produce, replay, parkState, loseState };
}

/** The world `world()` builds. */
export type World = ReturnType<typeof world>;

/** What a test puts between the runtime and the consumers the memory broker hands out. */
export interface ConsumerHooks {
  /** Each commit, before the broker sees it: may wait on the clock, or throw as a refusal. */
  commit?: (offsets: OffsetCommit[]) => Promise<void> | void;
  /** The group-commit read the runtime gets, given the broker's own and the group. */
  committed?: (read: ConsumerPort['committed'], groupId: string) => ConsumerPort['committed'];
  /** Each `eachMessage` callback, given its payload and the runtime's callback. */
  message?: (payload: EachMessagePayload, run: (payload: EachMessagePayload) => Promise<void>) => Promise<void>;
  /** Each seek, given the broker's own. */
  seek?: (at: TopicPartitionOffset, seek: ConsumerPort['seek']) => void;
}

/** Every consumer started from now on goes through `hooks`. */
export function hookConsumers(w: World, hooks: ConsumerHooks): void {
  const port = w.broker.port.bind(w.broker);
  w.broker.port = () => {
    const p = port();
    return {
      ...p,
      consumer: (groupId, options) => {
        const c = p.consumer(groupId, options) as ConsumerPort;
        const { commit, committed, message, seek } = hooks;
        if (commit !== undefined) {
          const send = c.commitOffsets.bind(c);
          c.commitOffsets = async (offsets) => {
            await commit(offsets);
            return send(offsets);
          };
        }
        if (committed !== undefined) c.committed = committed(c.committed.bind(c), groupId);
        if (seek !== undefined) {
          const seekNow = c.seek.bind(c);
          c.seek = (at) => seek(at, seekNow);
        }
        if (message !== undefined) {
          const run = c.run.bind(c);
          c.run = (config) => run('eachMessage' in config ? { ...config, eachMessage: (payload) => message(payload, config.eachMessage) } : config);
        }
        return c;
      },
    };
  };
}

/**
 * Every seek of `topic` takes effect `lateMs` after it was asked for, and the client reads on
 * meanwhile: a client that breaks the port's seek contract (port.ts seek), which no real client
 * is known to (kafkajs and librdkafka drop what was fetched before a seek).
 */
export function seeksLate(w: World, topic: string, lateMs: number): void {
  hookConsumers(w, { seek: (at, seek) => (at.topic === topic ? void w.clock.setTimer(lateMs, () => seek(at)) : seek(at)) });
}

type MessageHook = NonNullable<ConsumerHooks['message']>;

/** A `message` hook (by default none) that tells `took` how long each callback ran on the world's clock. */
export function timedOn(clock: VirtualClock, took: (ms: number) => void, inner: MessageHook = (payload, run) => run(payload)): MessageHook {
  return async (payload, run) => {
    const from = clock.now();
    try {
      await inner(payload, run);
    } finally {
      took(clock.now() - from);
    }
  };
}

/**
 * On kafkajs, k:a runs and its commit is stored; then `outage` begins (told the clock's time),
 * k:b is produced, and the broker runs `forMs` longer. Returns the longest callback from the
 * outage on.
 */
export async function longestCallbackThrough(w: World, outage: (from: number) => void, forMs: number): Promise<number> {
  let longest = 0;
  hookConsumers(w, { message: timedOn(w.clock, (ms) => (longest = Math.max(longest, ms))) });
  w.broker.throwReaction = 'kafkajs';
  w.produce('k', 'a');
  const retrying = await w.start();
  await w.broker.run({ stopWhen: () => w.handled.length > 0 && w.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0) !== undefined });
  longest = 0;
  const from = w.clock.now();
  outage(from);
  w.produce('k', 'b');
  await w.broker.run({ stopWhen: () => w.clock.now() > from + forMs });
  await retrying.stop();
  return longest;
}

/**
 * k:a fails once (k held, its copy in the 1m tier) and k:b parks behind it, on a partition
 * nothing more comes to; the hold's tier record is then deleted (tier retention), so only the
 * hold's expiry, after `expiryMs`, releases k, and the first main commit from then on is
 * refused once. Returns the running consumer.
 */
export async function holdWhoseReleaseIsRefusedOnce(w: ReturnType<typeof world>, expiryMs: number): Promise<RetryingConsumer> {
  w.failOnce.add('k:a');
  w.produce('k', 'a');
  w.produce('k', 'b');
  const retrying = await w.start({ parkedHoldExpiryMs: expiryMs });
  await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked') });
  w.broker.deleteRecordsBefore(tier1m!.topic, 0, w.broker.records(tier1m!.topic, 0).length);
  refuseOnce(w.broker, (o) => o.topic === consumer.mainTopic && w.clock.now() >= T0 + expiryMs);
  return retrying;
}

/** The broker refuses the first commit with an offset that `matches` (the coordinator unavailable, once). */
export function refuseOnce(broker: MemoryBroker, matches: (offset: OffsetCommit) => boolean): void {
  const commit = broker.commit.bind(broker);
  let refused = false;
  broker.commit = (groupId, offsets) => {
    if (!refused && offsets.some(matches)) {
      refused = true;
      throw new BrokerRefusedError('The coordinator is not available');
    }
    commit(groupId, offsets);
  };
}

/** A handler that notes each record as `key:value`, and fails `label` once (with a 503: into the tiers). */
export function failingOnce(label: string, handled: string[]): (record: ConsumedRecord) => Promise<void> {
  let failed = false;
  return async (record) => {
    const seen = `${record.message.key?.toString()}:${valueOf(record)}`;
    if (seen === label && !failed) {
      failed = true;
      handled.push(`${seen} FAIL`);
      throw httpError(503);
    }
    handled.push(seen);
  };
}
