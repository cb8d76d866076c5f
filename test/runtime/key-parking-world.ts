import { HEADERS } from '../../src/naming/headers';
import type { RetryEvent } from '../../src/runtime/events';
import { createKeyParking } from '../../src/runtime/key-parking';
import { decodeParkState } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import type { ConsumerPort, TopicPartitionOffset } from '../../src/runtime/port';
import type { HandleOutcome } from '../../src/runtime/record-handler';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

export const MAIN = 'orders';
export const TIER = `${MAIN}.retry.1m`;

export const mainRecord = (offset: number, key: string | null, value: string, partition = 0): ConsumedRecord => ({
  topic: MAIN,
  partition,
  message: { key: key === null ? null : Buffer.from(key), value: Buffer.from(value), offset: String(offset), timestamp: '0' },
});

/** A tier record standing for the main record at `original` (no header when undefined). */
export const tierRecord = (offset: number, key: string | null, original: number | undefined, headers: Record<string, string> = {}, partition = 0): ConsumedRecord => ({
  topic: TIER,
  partition,
  message: {
    key: key === null ? null : Buffer.from(key),
    value: Buffer.from(`${key}@${original}`),
    offset: String(offset),
    timestamp: '0',
    headers: { ...(original === undefined ? {} : { 'x-original-offset': String(original) }), ...headers },
  },
});

/** A tier record `krt dlq replay` sent: the hold cannot judge it a stale copy. */
export const replayedRecord = (offset: number, key: string, original: number, partition = 0): ConsumedRecord =>
  tierRecord(offset, key, original, { [HEADERS.replayedFromDlq]: `${MAIN}.dlq/${partition}:${offset}` }, partition);

export const tierCommit = (offset: number, partition = 0): TopicPartitionOffset => ({ topic: TIER, partition, offset: String(offset) });

interface Timer {
  readonly at: number;
  readonly work: () => void;
  done: boolean;
}

/**
 * Key parking over the in-memory broker with a clock and timers the test moves, a handler
 * whose outcome is chosen per `key:value` label, and the seeks, pauses, events and commit
 * requests recorded.
 */
export function parkingWorld(
  options: {
    outcomes?: Record<string, HandleOutcome>;
    budgetBytes?: number;
    holdExpiryMs?: number;
    partitions?: number;
    /** The broker's `offset.metadata.max.bytes`: a commit with more metadata is refused as Kafka refuses it. */
    brokerMaxBytes?: number;
    /** Awaited by the handler of the record labelled `key:value` (a handler in progress). */
    handling?: (label: string) => Promise<void>;
  } = {},
) {
  const broker = new MemoryBroker(new VirtualClock(0));
  broker.createTopic(MAIN, options.partitions ?? 1);
  broker.createTopic(TIER, options.partitions ?? 1);
  const inner = broker.port().consumer('g');
  let now = 0;
  const timers: Timer[] = [];
  const seeks: TopicPartitionOffset[] = [];
  const pauses: string[] = [];
  const handled: string[] = [];
  /** The records the handler was told ran after waiting (parked). */
  const ranParked: string[] = [];
  const events: RetryEvent[] = [];
  const commitRequests: TopicPartitionOffset[][] = [];
  /** The metadata sizes of the commits refused as too large. */
  const refused: number[] = [];
  let refuseNextAsTooLarge = false;
  let loading: Promise<void> | undefined;
  const outcomes: Record<string, HandleOutcome> = { ...options.outcomes };
  const consumer: ConsumerPort = {
    ...inner,
    pause: (t) => void pauses.push(`pause ${t[0]!.partitions.join()}`),
    resume: (t) => void pauses.push(`resume ${t[0]!.partitions.join()}`),
    seek: (s) => void seeks.push(s),
    committed: async (topic, partitions) => {
      await loading;
      return inner.committed(topic, partitions);
    },
    commitOffsets: async (offsets) => {
      commitRequests.push(offsets.map(({ topic, partition, offset }) => ({ topic, partition, offset })));
      const largest = Math.max(0, ...offsets.map((o) => Buffer.byteLength(o.metadata ?? '')));
      if (refuseNextAsTooLarge || largest > (options.brokerMaxBytes ?? Infinity)) {
        refuseNextAsTooLarge = false;
        refused.push(largest);
        throw Object.assign(new Error('The metadata field of the offset request was too large'), { type: 'OFFSET_METADATA_TOO_LARGE', code: 12 });
      }
      await inner.commitOffsets(offsets);
    },
  };
  const parking = createKeyParking({
    mainTopic: MAIN,
    tierTopics: [TIER],
    consumer: () => consumer,
    handle: async (r, parked) => {
      const label = `${r.message.key}:${r.message.value}`;
      handled.push(label);
      if (parked) ranParked.push(label);
      await options.handling?.(label);
      return outcomes[label] ?? 'success';
    },
    emit: (e) => void events.push(e),
    budgetBytes: options.budgetBytes ?? 4000,
    holdExpiryMs: options.holdExpiryMs ?? 3_600_000,
    now: () => now,
    setTimer: (ms, work) => {
      const timer: Timer = { at: now + ms, work, done: false };
      timers.push(timer);
      return () => void (timer.done = true);
    },
    commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
    retryLater: () => {},
  });
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  /** Moves the clock to `at`, runs the timers due by then and lets their work finish. */
  const advanceTo = async (at: number) => {
    now = at;
    for (const timer of timers.filter((t) => !t.done && t.at <= at)) {
      timer.done = true;
      timer.work();
    }
    await settle();
  };
  /** A tier record run by the handler (outcome by its label `tier key@original`), committing its tier offset + 1. */
  const runTier = (record: ConsumedRecord) =>
    parking.onTierRecord(record, async () => {
      const label = `tier ${record.message.value}`;
      handled.push(label);
      const outcome = outcomes[label] ?? 'success';
      return { outcome, commit: { topic: record.topic, partition: record.partition, offset: String(Number(record.message.offset) + 1) } };
    });
  /** The `x-park-state` each tier record run by `runTierAs` was told to give its next copy, in order. */
  const copies: string[] = [];
  /**
   * A tier record run with the `outcome` given (labelled `tier <key>@<original>@<offset>` in
   * `handled`), committing its tier offset + 1, its copy's `x-park-state` kept in `copies`.
   * A refusal of the run is left to the caller: `runTierAs(...).catch(...)` where one is expected.
   */
  const runTierAs = (record: ConsumedRecord, outcome: HandleOutcome) =>
    parking.onTierRecord(record, async (parkState) => {
      handled.push(`tier ${record.message.value}@${record.message.offset}`);
      copies.push(parkState ?? '');
      return { outcome, commit: { topic: record.topic, partition: record.partition, offset: String(Number(record.message.offset) + 1) } };
    });
  const committed = (topic = MAIN, partition = 0) => broker.committedOffset('g', topic, partition);
  const state = (partition = 0): ParkState =>
    decodeParkState(BigInt(broker.committedOffset('g', MAIN, partition) ?? 0), broker.committedMetadata('g', MAIN, partition));
  const pendingTimers = () => timers.filter((t) => !t.done).map((t) => t.at);
  const ofType = <T extends RetryEvent['type']>(type: T) => events.filter((e): e is Extract<RetryEvent, { type: T }> => e.type === type);
  return {
    broker,
    parking,
    seeks,
    pauses,
    handled,
    ranParked,
    events,
    outcomes,
    commitRequests,
    refused,
    /** Holds the answers of `committed` (a state loading) until the returned release is called. */
    holdLoads: () => {
      let release!: () => void;
      loading = new Promise((resolve) => (release = resolve));
      return release;
    },
    /** The next commit is refused as too large, whatever it carries. */
    refuseNextAsTooLarge: () => void (refuseNextAsTooLarge = true),
    advanceTo,
    settle,
    runTier,
    runTierAs,
    copies,
    committed,
    state,
    pendingTimers,
    ofType,
    setNow: (at: number) => void (now = at),
  };
}
