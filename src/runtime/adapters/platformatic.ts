import { headerMap } from '../headers';
import type { RawHeaders } from '../headers';
import type { ConsumerPort, KafkaPort, OutgoingMessage, PortMessage, ProducerPort } from '../port';
import { UnknownPartitionError } from '../publish-failure';
import { createFetchGate } from './platformatic-fetch-gate';
import type { FetchGate, FetchingConsumer, FetchPositions } from './platformatic-fetch-gate';
import { ClientCannotCarryError, PLATFORMATIC_COMMIT_METADATA_UNSUPPORTED, PLATFORMATIC_PARK_BY_KEY_UNSUPPORTED, platformaticNodeRefusal } from './platformatic-refusals';
import { createPartitionCountWatch } from './platformatic-partition-watch';
import { createPartitionRuns } from './platformatic-run';
import { restartDelayMs } from './restart-backoff';

/** A record as the client's stream delivers it with its default (Buffer) deserializers. */
export interface PlatformaticMessageLike {
  readonly topic: string;
  readonly partition: number;
  readonly key?: Buffer | null;
  readonly value?: Buffer | null;
  readonly headerEntries: readonly (readonly [Buffer, Buffer])[];
  readonly offset: bigint;
  readonly timestamp: bigint;
}

/** The parts of the client's `MessagesStream` the adapter uses. */
export interface PlatformaticStreamLike extends FetchPositions {
  on(event: 'data', listener: (message: PlatformaticMessageLike) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  close(): Promise<void>;
}

/** The parts of the client's `Consumer` the adapter uses. */
export interface PlatformaticConsumerLike extends FetchingConsumer {
  consume(options: ClientOptions): Promise<PlatformaticStreamLike>;
  commit(options: { offsets: { topic: string; partition: number; offset: bigint; leaderEpoch: number }[] }): Promise<void>;
  listCommittedOffsets(options: { topics: { topic: string; partitions: number[] }[] }): Promise<Map<string, bigint[]>>;
  on(event: 'consumer:group:join', listener: () => void): unknown;
  /** The client emits a rejoin it gave up on; an EventEmitter throws an 'error' nobody listens to. */
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** Joins the group again (the group rebalances): used when a subscribed topic gained partitions. */
  joinGroup(options: ClientOptions): Promise<unknown>;
  close(force?: boolean): Promise<void>;
}

export interface PlatformaticProducerLike {
  send(options: { messages: PlatformaticOutgoing[]; acks: number }): Promise<unknown>;
  metadata(options: { topics: string[] }): Promise<{ topics: Map<string, { partitionsCount: number }> }>;
  close(): Promise<void>;
}

interface PlatformaticOutgoing {
  topic: string;
  key?: Buffer;
  value?: Buffer;
  headers: Map<Buffer, Buffer>;
  partition?: number;
  timestamp?: bigint;
}

/**
 * The options the client's constructors and methods take: its own types (`ConsumerOptions`
 * requires `clientId`, `bootstrapBrokers` and `groupId`, `ConsumeOptions` requires `topics`),
 * which the runtime cannot name without importing the optional client. `any`, not
 * `Record<string, unknown>`: a constructor's parameter is compared the other way round, and
 * an overloaded method's against each overload, so the real classes, whose options types are
 * narrower, were not a `new (options: Record<string, unknown>) => ...` and every service's
 * type-check refused `platformaticPort({ Consumer, Producer }, ...)`. The instances are still
 * checked against the methods the adapter calls and what they return.
 */
type ClientOptions = any;

/** The client's classes, as `import { Consumer, Producer } from '@platformatic/kafka'` gives them (the client stays optional). */
export interface PlatformaticKafkaLike {
  readonly Consumer: new (options: ClientOptions) => PlatformaticConsumerLike;
  readonly Producer: new (options: ClientOptions) => PlatformaticProducerLike;
}

export interface PlatformaticPortOptions {
  /** Given to every client: `bootstrapBrokers`, `sasl`, `tls`, `clientId` (default `kafka-retry-topology`)... */
  readonly connection: Record<string, unknown>;
  /** Given to every consumer (for example `sessionTimeout`, `heartbeatInterval`). */
  readonly consumerConfig?: Record<string, unknown> | undefined;
  /**
   * Called when a handler threw (the record is handed again in `retryInMs`), the client
   * ended a stream (the adapter opens a new one in `retryInMs`) or gave up a rejoin. After
   * a rejoin given up the client sends no more heartbeats: the member is out of the group
   * (its partitions go to the others) and joins again only when a commit is refused for
   * its old generation or the stream ends and the adapter opens a new one; meanwhile its
   * stream may read its old partitions, which the new owners read too (at least once).
   * Written to stderr by default.
   */
  readonly onError?: ((error: unknown, retryInMs?: number) => void) | undefined;
  /** The Node version checked at construction (`process.version` by default). */
  readonly nodeVersion?: string | undefined;
}

/**
 * The main consumer fetches at most this much per partition (the client's default is its
 * whole 50 MB fetch; kafkajs's is 1 MiB). The client parses a whole fetch response and pushes
 * its records in one turn of the event loop, and a commit's answer is read only between such
 * turns: with 1 MiB a partition the main consumer's commits waited behind those turns far
 * longer than the broker took to answer, and the commit window filled behind them (the
 * measurements: docs/runtime.md, "A stream, not a run()", and docs/benchmarks.md).
 */
const DEFAULT_MAX_BYTES_PER_PARTITION = 256 * 1024;
/**
 * A main partition is fetched again while less than this many fetches of it are queued: about
 * 1 MiB a partition, so the next response is on its way while the handler works through the
 * queue. (With one fetch's worth, a partition became fetchable only once its first batch was
 * handed out, and waited for the stream's next fetch, one in flight per broker: the wrapped
 * consumer sat idle a third of the time.)
 */
const MAIN_PREFETCH_FETCHES = 4;
/**
 * The longest fetch wait when the runtime sets none (the client's default is 5 s). The
 * stream has one fetch in flight per broker, and a partition left out of it (its records
 * still queued: a fetch's worth) is fetched again only with the next: a partition whose queue drained while
 * the others idle waits out this long poll.
 */
const DEFAULT_MAX_WAIT_MS = 500;

/**
 * Adapts `@platformatic/kafka` (2.12, Node 22 or newer) to the runtime's port: manual
 * commits, acks=-1, idempotent producer. Its consumer is one stream over all assigned
 * partitions, without per-partition pause or seek: a fetch gate gives both (see
 * platformatic-fetch-gate.ts). It commits no metadata, so park-by-key is refused.
 */
export function platformaticPort(kafka: PlatformaticKafkaLike, options: PlatformaticPortOptions): KafkaPort {
  const refusal = platformaticNodeRefusal(options.nodeVersion ?? process.version);
  if (refusal) throw new ClientCannotCarryError(refusal);
  const connection = { clientId: 'kafka-retry-topology', ...options.connection };
  const onError =
    options.onError ??
    ((error: unknown, retryInMs?: number) =>
      process.stderr.write(`kafka-retry-topology: @platformatic/kafka consumer: ${error instanceof Error ? error.message : String(error)}${retryInMs === undefined ? '' : `; again in ${retryInMs} ms`}\n`));
  return {
    consumer(groupId, { coPartitioned = false, maxBytesPerPartition, maxWaitTimeInMs } = {}): ConsumerPort {
      if (coPartitioned) throw new ClientCannotCarryError(PLATFORMATIC_PARK_BY_KEY_UNSUPPORTED);
      const consumer = new kafka.Consumer({
        ...connection,
        ...options.consumerConfig,
        groupId,
        autocommit: false,
        maxBytesPerPartition: maxBytesPerPartition ?? DEFAULT_MAX_BYTES_PER_PARTITION,
        maxWaitTime: maxWaitTimeInMs ?? DEFAULT_MAX_WAIT_MS,
      });
      // A tier consumer's small fetches keep it near its head; the main consumer queues more (MAIN_PREFETCH_FETCHES).
      return streamConsumer(consumer, onError, maxBytesPerPartition ?? DEFAULT_MAX_BYTES_PER_PARTITION * MAIN_PREFETCH_FETCHES);
    },
    producer(): ProducerPort {
      const producer = new kafka.Producer({ ...connection, idempotent: true, acks: -1 });
      const sendBatch = async (records: { topic: string; messages: OutgoingMessage[] }[]) => {
        await checkPartitions(producer, records);
        await producer.send({ acks: -1, messages: records.flatMap(({ topic, messages }) => messages.map((m) => outgoing(topic, m))) });
      };
      return {
        connect: async () => undefined,
        disconnect: () => producer.close(),
        send: (record) => sendBatch([record]),
        sendBatch,
      };
    },
  };
}

/** One consumer: its stream, the fetch gate, the partition runs, and a new stream when the client ends one. */
function streamConsumer(consumer: PlatformaticConsumerLike, onError: (error: unknown, retryInMs?: number) => void, prefetchBytes: number): ConsumerPort {
  let topics: string[] = [];
  let stream: PlatformaticStreamLike | undefined;
  let disconnected = false;
  let restarts = 0;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  const listeners: (() => void)[] = [];
  // Partitions added to a subscribed topic are assigned only after a rejoin, which the client does not make for them.
  const watch = createPartitionCountWatch(() => {
    if (disconnected) return;
    consumer.joinGroup({}).catch((refused: unknown) => {
      if (!disconnected) onError(refused);
    });
  });
  // A topic created again: each of its partitions the stream reads is sought to its start, as the
  // Confluent adapter does, so a batch of it comes to be judged by its new id (a partition at the
  // new log's end, or one that read nothing under the old id, would deliver none to tell it: h147).
  const gate: FetchGate = createFetchGate(consumer, () => topics, (t) => watch.observe(t), (topic) => {
    if (stream === undefined) return;
    for (const key of [...stream.offsetsToFetch.keys()]) {
      const at = key.lastIndexOf(':');
      if (key.slice(0, at) === topic) seek(topic, Number(key.slice(at + 1)), 0n);
    }
  });
  const runs = createPartitionRuns({
    prefetchBytes,
    onFetchable: () => gate.wake(),
    onHandlerError: onError,
    onReposition: (topic, partition, offset) => {
      if (stream) gate.seek(stream, topic, partition, offset);
    },
  });
  gate.setPolicy((topic, partition) => runs.fetchable(topic, partition));

  /**
   * After a rebalance (or before a new stream) nothing fetched before is handed out, and the
   * runtime starts over. The stream's positions are dropped too: on a join the client takes
   * each partition's committed offset, but keeps the position it holds for one the group never
   * committed, past the records dropped here. Without one it falls back to the earliest, as
   * kafkajs and librdkafka read such a partition after a rebalance (at least once, none skipped).
   */
  function startOver(): void {
    gate.invalidateAll();
    stream?.offsetsToFetch.clear();
    runs.reset();
    for (const listener of listeners) listener();
  }
  consumer.on('consumer:group:join', startOver);
  consumer.on('error', (error) => {
    if (!disconnected) onError(error);
  });

  async function openStream(): Promise<void> {
    const opened = await consumer.consume({ topics, mode: 'committed', fallbackMode: 'earliest', autocommit: false });
    if (disconnected) {
      await opened.close();
      return;
    }
    stream = opened;
    // A record pushed after a handler paused or sought its partition (in the same response) is not delivered: it is read again (the gate puts the position back), or from the seek.
    // The record carries no topic id: the gate tells the one of the response being pushed (this listener runs inside the push).
    opened.on('data', (m) => {
      if (!gate.stale(opened, m.topic, m.partition, m.offset)) runs.deliver(m.topic, m.partition, portMessage(m), m.offset, gate.topicIdNow(m.topic));
    });
    opened.on('error', (error) => {
      if (stream !== opened || disconnected) return;
      stream = undefined;
      restartLater(error);
    });
    restarts = 0;
  }

  function restartLater(error: unknown): void {
    const delay = restartDelayMs(restarts++);
    onError(error, delay);
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (disconnected) return;
      startOver();
      openStream().catch((refused: unknown) => {
        if (!disconnected) restartLater(refused);
      });
    }, delay);
  }

  const seek = (topic: string, partition: number, offset: bigint) => {
    runs.seek(topic, partition, offset);
    if (stream) gate.seek(stream, topic, partition, offset);
  };

  return {
    connect: async () => undefined,
    disconnect: async () => {
      disconnected = true;
      if (restartTimer !== undefined) clearTimeout(restartTimer);
      runs.stop();
      gate.restore();
      await stream?.close().catch(() => undefined);
      await consumer.close(true);
    },
    subscribe: async (s) => void (topics = [...s.topics]),
    // As kafkajs's run(): a refused join (an ACL not yet propagated, a broker restarting) is reported and tried again, not thrown.
    run: async (run) => {
      runs.start(run);
      await openStream().catch((refused: unknown) => {
        if (!disconnected) restartLater(refused);
      });
    },
    pause: (t) => {
      for (const { topic, partitions } of t) {
        for (const partition of partitions) {
          gate.invalidate(topic, partition);
          runs.pause(topic, partition);
        }
      }
    },
    resume: (t) => {
      for (const { topic, partitions } of t) {
        for (const partition of partitions) {
          const from = runs.resume(topic, partition);
          if (from !== undefined && stream) gate.seek(stream, topic, partition, from);
        }
      }
      gate.wake();
    },
    seek: (s) => seek(s.topic, s.partition, BigInt(s.offset)),
    commitOffsets: async (offsets) => {
      if (offsets.some((o) => o.metadata !== undefined && o.metadata !== '')) throw new ClientCannotCarryError(PLATFORMATIC_COMMIT_METADATA_UNSUPPORTED);
      // -1: no leader epoch is claimed, so the broker does not check one (it accepts the offset as is).
      await consumer.commit({ offsets: offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: BigInt(o.offset), leaderEpoch: -1 })) });
    },
    committed: async (topic, partitions) => {
      const offsets = (await consumer.listCommittedOffsets({ topics: [{ topic, partitions }] })).get(topic) ?? [];
      return partitions.map((partition) => ({ partition, offset: (offsets[partition] ?? -1n).toString(), metadata: null }));
    },
    onRebalance: (listener) => void listeners.push(listener),
  };
}

function portMessage(m: PlatformaticMessageLike): PortMessage {
  // No prototype: a header named `__proto__` or `constructor` is a header like any other.
  const headers = headerMap<Buffer | Buffer[]>();
  for (const [rawName, value] of m.headerEntries) {
    const name = rawName.toString();
    const seen = headers[name];
    headers[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return { key: m.key ?? null, value: m.value ?? null, headers: headers as RawHeaders, offset: m.offset.toString(), timestamp: m.timestamp.toString() };
}

/** Headers as the client's default serializers take them: Buffer names, one entry per value (a Map keeps distinct Buffer keys apart). */
function outgoing(topic: string, m: OutgoingMessage): PlatformaticOutgoing {
  const headers = new Map<Buffer, Buffer>();
  for (const [name, raw] of Object.entries(m.headers)) {
    for (const value of Array.isArray(raw) ? raw : [raw]) headers.set(Buffer.from(name), Buffer.isBuffer(value) ? value : Buffer.from(value));
  }
  return {
    topic,
    headers,
    ...(m.key !== null ? { key: m.key } : {}),
    ...(m.value !== null ? { value: m.value } : {}),
    ...(m.partition !== undefined ? { partition: m.partition } : {}),
    ...(m.timestamp !== undefined ? { timestamp: BigInt(m.timestamp) } : {}),
  };
}

/**
 * The client writes a record for partition p of a topic with fewer partitions to
 * p modulo their number (its producer normalizes the partition): that record would
 * leave its key's partition. Refused here, as a missing partition is on kafkajs.
 */
async function checkPartitions(producer: PlatformaticProducerLike, records: { topic: string; messages: OutgoingMessage[] }[]): Promise<void> {
  const wanted = records.filter((r) => r.messages.some((m) => m.partition !== undefined));
  if (wanted.length === 0) return;
  const metadata = await producer.metadata({ topics: [...new Set(wanted.map((r) => r.topic))] });
  for (const { topic, messages } of wanted) {
    const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
    for (const { partition } of messages) if (partition !== undefined && partition >= count) throw new UnknownPartitionError(topic, partition);
  }
}
