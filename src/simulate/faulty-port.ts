import { markWorthWaitingOut } from '../runtime/commit-patience';
import type { ConsumerPort, EachBatchPayload, EachMessagePayload, KafkaPort, OffsetCommit, ProducerPort, RunOptions, TopicPartitionOffset } from '../runtime/port';

/** The port operations a fault can hit. `deliver`: the client fails to hand over a fetched record or batch. */
export const PORT_OPERATIONS = ['send', 'commit', 'committed', 'seek', 'pause', 'resume', 'deliver', 'heartbeat'] as const;
export type PortOperation = (typeof PORT_OPERATIONS)[number];

/**
 * One transient fault: the `at`-th call (from 0) of `operation` that matches `when`, and
 * the `times - 1` matching calls after it, fail. A failing call has no effect.
 */
export interface Fault {
  readonly operation: PortOperation;
  readonly at: number;
  readonly times: number;
  /**
   * Refused with a non-retriable error (an ACL re-applied, OFFSET_METADATA_TOO_LARGE):
   * kafkajs stops a consumer such an error reaches. Not for `deliver`: a client that fails
   * its own fetch so is restarted by the kafkajs adapter, not by the runtime.
   */
  readonly nonRetriable?: boolean;
  /** Only calls whose commit offsets match count (a commit that releases a key, say); every call by default. */
  readonly when?: (offsets: readonly OffsetCommit[]) => boolean;
  /**
   * For `seek`: the call returns as if done and does nothing. The Confluent client runs a seek
   * later, in its own loop, and only logs what librdkafka refuses (a partition whose fetcher is
   * stopping or not started, as in a rebalance), so the caller is never told.
   */
  readonly dropped?: boolean;
  /**
   * For `seek`, with `dropped`: the seek meets a rebalance. The Confluent client runs it when the
   * partition is no longer assigned, keeps it (its `#pendingSeeks`) and applies it at the
   * partition's next assignment, in place of the group's commit; the group rebalances right after.
   */
  readonly keptUntilAssigned?: boolean;
}

/** A consumer that can keep a seek of a partition it does not hold for the partition's next assignment. */
export interface KeepsSeeks {
  keepSeekUntilAssigned(seek: TopicPartitionOffset): void;
}

const keepsSeeks = (consumer: ConsumerPort): consumer is ConsumerPort & KeepsSeeks => typeof (consumer as Partial<KeepsSeeks>).keepSeekUntilAssigned === 'function';

/** The error an injected fault throws: retriable, as a broker's transient refusal is, unless the fault says otherwise. */
export class InjectedFault extends Error {
  override name = 'KafkaJSConnectionError';
  readonly retriable: boolean;
  constructor(
    readonly operation: PortOperation,
    nonRetriable = false,
    /** Dropped without a word (Fault.dropped): the caller is not told. */
    readonly dropped = false,
    /** Dropped now and kept for the partition's next assignment, which a rebalance brings at once (Fault.keptUntilAssigned). */
    readonly keptUntilAssigned = false,
  ) {
    super(`injected fault: ${operation} failed`);
    if (nonRetriable) this.name = 'KafkaJSProtocolError';
    this.retriable = !nonRetriable;
    // A transient commit refusal is one the client cures by itself, as the adapters mark them (commit-patience.ts).
    if (operation === 'commit' && !nonRetriable) markWorthWaitingOut(this);
  }
}

/**
 * Events at a step of the whole run (every port call is a step): the group rebalances, the
 * process dies (a crash: nothing more of it reaches the broker; a new process starts from
 * the committed state), the group's committed state is lost (`onStateLost` says how), the
 * broker's `offset.metadata.max.bytes` is lowered (`onMetadataLimitLowered`), or retention
 * deletes records (`onRetention` says which).
 */
export interface StepEvent {
  readonly kind: 'rebalance' | 'crash' | 'state-lost' | 'metadata-limit-lowered' | 'retention';
  readonly at: number;
}

export interface FaultyPortOptions {
  readonly faults: readonly Fault[];
  readonly events?: readonly StepEvent[];
  /** Called at a rebalance step: the broker's group loses and regains its partitions. */
  readonly onRebalance?: () => void;
  /** Called at a state-lost step, between two steps as a rebalance is (park-by-key: its commit metadata is wiped). */
  readonly onStateLost?: () => void;
  /** Called at a metadata-limit-lowered step, between two steps as a rebalance is (a broker config changed under the group). */
  readonly onMetadataLimitLowered?: () => void;
  /** Called at a retention step, between two steps as a rebalance is (the broker deletes the oldest records of a log). */
  readonly onRetention?: () => void;
}

/**
 * A port wrapper that makes any operation fail transiently at any step, and crashes the
 * process at any step. `port()` gives the port of the current process; after `crash()` (or
 * a crash step) every later call of that process hangs (a send never lands, a commit never
 * lands) and its consumers are disconnected; `alive(process)` tells a handler of a dead
 * process to stop too.
 */
export class FaultyPort {
  /** Calls per operation so far, faults counted. */
  readonly calls = new Map<PortOperation, number>();
  private readonly matched = new Map<Fault, number>();
  private step = 0;
  private process = 0;
  private readonly consumers = new Map<number, ConsumerPort[]>();
  /** Faults injected so far, crashes, and rebalances. */
  injected = 0;
  crashes = 0;
  rebalances = 0;
  statesLost = 0;
  metadataLimitsLowered = 0;
  retentions = 0;
  private enabled = true;
  private crashPending = false;

  constructor(
    private readonly inner: KafkaPort,
    private readonly options: FaultyPortOptions,
  ) {}

  /** Steps so far (port calls while faults were on): the length of a run, to draw fault positions within. */
  get steps(): number {
    return this.step;
  }

  /** The number of the current process (0, then 1 after the first crash, ...). */
  get current(): number {
    return this.process;
  }

  alive(process: number): boolean {
    return process === this.process;
  }

  /** True once a crash step has killed the current process (cleared by `port()` of the next one). */
  get crashed(): boolean {
    return this.crashPending;
  }

  /** No more faults, rebalances or crashes from now on. */
  stopFaults(): void {
    this.enabled = false;
  }

  crash(): void {
    this.crashes++;
    this.crashPending = true;
    for (const consumer of this.consumers.get(this.process) ?? []) void consumer.disconnect();
    this.process++;
  }

  /** A port for a new process. */
  port(): KafkaPort {
    this.crashPending = false;
    const process = this.process;
    return {
      consumer: (groupId, consumerOptions) => {
        const consumer = this.inner.consumer(groupId, consumerOptions);
        this.consumers.set(process, [...(this.consumers.get(process) ?? []), consumer]);
        return this.wrapConsumer(consumer, process);
      },
      producer: () => this.wrapProducer(this.inner.producer(), process),
    };
  }

  /** Counts a call; runs step events; says whether the call fails. A dead process's calls never get here. */
  private fails(operation: PortOperation, offsets: readonly OffsetCommit[] = []): InjectedFault | undefined {
    this.calls.set(operation, (this.calls.get(operation) ?? 0) + 1);
    if (!this.enabled) return undefined;
    const step = this.step++;
    for (const event of this.options.events ?? []) {
      if (event.at !== step) continue;
      // A crash stops the process before this call; a rebalance reaches it between two of
      // its steps, as a client's group events do (never inside a synchronous run of calls).
      if (event.kind === 'crash') this.crash();
      else if (event.kind === 'state-lost') {
        this.statesLost++;
        queueMicrotask(() => this.options.onStateLost?.());
      } else if (event.kind === 'metadata-limit-lowered') {
        this.metadataLimitsLowered++;
        queueMicrotask(() => this.options.onMetadataLimitLowered?.());
      } else if (event.kind === 'retention') {
        this.retentions++;
        queueMicrotask(() => this.options.onRetention?.());
      } else {
        this.rebalances++;
        queueMicrotask(() => this.options.onRebalance?.());
      }
    }
    let fail: InjectedFault | undefined;
    for (const fault of this.options.faults) {
      if (fault.operation !== operation || (fault.when && !fault.when(offsets))) continue;
      const n = this.matched.get(fault) ?? 0;
      this.matched.set(fault, n + 1);
      if (n >= fault.at && n < fault.at + fault.times) fail ??= new InjectedFault(operation, fault.nonRetriable === true && operation !== 'deliver', fault.dropped === true && operation === 'seek', fault.dropped === true && fault.keptUntilAssigned === true && operation === 'seek');
    }
    if (fail) this.injected++;
    return fail;
  }

  private wrapProducer(producer: ProducerPort, process: number): ProducerPort {
    const guarded = async <T>(operation: PortOperation, work: () => Promise<T>): Promise<T> => {
      if (!this.alive(process)) return hang();
      const fail = this.fails(operation);
      if (!this.alive(process)) return hang();
      if (fail) throw fail;
      return work();
    };
    return {
      connect: () => producer.connect(),
      disconnect: () => producer.disconnect(),
      send: (record) => guarded('send', () => producer.send(record)),
      sendBatch: producer.sendBatch ? (records) => guarded('send', () => producer.sendBatch!(records)) : undefined,
    };
  }

  private wrapConsumer(consumer: ConsumerPort, process: number): ConsumerPort {
    const sync = (operation: PortOperation, work: () => void, keep?: () => void): void => {
      if (!this.alive(process)) return;
      const fail = this.fails(operation);
      if (!this.alive(process)) return;
      if (fail?.keptUntilAssigned && keep) {
        keep();
        this.rebalances++;
        queueMicrotask(() => this.options.onRebalance?.());
      }
      if (fail?.dropped) return;
      if (fail) throw fail;
      work();
    };
    const async = async <T>(operation: PortOperation, work: () => Promise<T>, offsets?: readonly OffsetCommit[]): Promise<T> => {
      if (!this.alive(process)) return hang();
      const fail = this.fails(operation, offsets);
      if (!this.alive(process)) return hang();
      if (fail) throw fail;
      return work();
    };
    const heartbeat = (beat: (() => Promise<void>) | undefined) => (beat ? () => async('heartbeat', beat) : undefined);
    /** The client hands a record or batch over; a fault here throws to the client, as a failed fetch would. */
    const delivered = async <P>(payload: P, work: (p: P) => Promise<void>): Promise<void> => {
      if (!this.alive(process)) return hang();
      const fail = this.fails('deliver');
      if (!this.alive(process)) return hang();
      if (fail) throw fail;
      return work(payload);
    };
    const run = (options: RunOptions): Promise<void> => {
      const concurrency = options.partitionsConsumedConcurrently === undefined ? {} : { partitionsConsumedConcurrently: options.partitionsConsumedConcurrently };
      if ('eachMessage' in options) {
        const { eachMessage } = options;
        return consumer.run({ ...concurrency, eachMessage: (p: EachMessagePayload) => delivered({ ...p, heartbeat: heartbeat(p.heartbeat) }, eachMessage) });
      }
      const { eachBatch } = options;
      return consumer.run({
        ...concurrency,
        eachBatch: (p: EachBatchPayload) =>
          delivered(p, (b) =>
            eachBatch({
              topic: b.topic,
              partition: b.partition,
              messages: b.messages,
              resolveOffset: (offset) => (this.alive(process) ? b.resolveOffset(offset) : undefined),
              heartbeat: heartbeat(() => b.heartbeat())!,
              isStale: () => !this.alive(process) || b.isStale(),
              ...(b.highWatermark === undefined ? {} : { highWatermark: b.highWatermark }),
              ...(b.topicId === undefined ? {} : { topicId: b.topicId }),
            }),
          ),
      });
    };
    return {
      connect: () => consumer.connect(),
      disconnect: () => (this.alive(process) ? consumer.disconnect() : Promise.resolve()),
      subscribe: (s) => consumer.subscribe(s),
      run,
      pause: (t) => sync('pause', () => consumer.pause(t)),
      resume: (t) => sync('resume', () => consumer.resume(t)),
      seek: (s) => sync('seek', () => consumer.seek(s), keepsSeeks(consumer) ? () => consumer.keepSeekUntilAssigned(s) : undefined),
      commitOffsets: (offsets) => async('commit', () => consumer.commitOffsets(offsets), offsets),
      committed: (topic, partitions) => async('committed', () => consumer.committed(topic, partitions)),
      // Fails as a read of the group's offsets does: both go through the same admin client.
      ...(consumer.logStartOffsets ? { logStartOffsets: (topic: string, partitions: number[]) => async('committed', () => consumer.logStartOffsets!(topic, partitions)) } : {}),
      onRebalance: (listener) => consumer.onRebalance(() => (this.alive(process) ? listener() : undefined)),
    };
  }
}

/** What a dead process's call does: nothing, ever. */
function hang<T>(): Promise<T> {
  return new Promise<T>(() => {});
}
