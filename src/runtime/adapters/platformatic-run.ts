import { backoffMs } from '../backoff';
import type { EachBatchPayload, EachMessagePayload, PortMessage, RunOptions } from '../port';

/**
 * The records of one stream, queued per partition and handed to the runtime the way
 * kafkajs's `run()` does: one record (or batch) of a partition at a time, several
 * partitions side by side, a record whose handler threw handed again after a backoff.
 * A partition is fetched again while less than `prefetchBytes` of it is queued (the fetch
 * gate asks `fetchable`): its next response is on the way while the handler works through
 * the last, and the queue holds at most about two fetches of each partition. (Fetched only
 * once its queue was empty, the consumer waited for a fetch round trip after every response:
 * @platformatic/kafka wrapped ran at a third of its rate with a window of 50,000 records.)
 * Each record keeps the id of the topic it was fetched from, and a payload holds records of
 * one id only: a batch ends where the id changes (a topic deleted and created again).
 */
export interface PartitionRuns {
  /**
   * A record the stream delivered from a response fetched since the partition's last pause,
   * resume, seek or reset; `offset` is its offset, `topicId` the id of the topic it was
   * fetched from (Kafka's spelling), where known.
   */
  deliver(topic: string, partition: number, message: PortMessage, offset: bigint, topicId?: string): void;
  fetchable(topic: string, partition: number): boolean;
  pause(topic: string, partition: number): void;
  /**
   * Resumes; returns where the partition must be read from again (its first record not
   * handed out), if known now. With a batch from before the pause still in hand it is
   * known when the handler returns, and given then to `onReposition`.
   */
  resume(topic: string, partition: number): bigint | undefined;
  /** Drops what is queued; the next record handed out is the one at `offset`. */
  seek(topic: string, partition: number, offset: bigint): void;
  /** After a rebalance or a new stream: every partition starts over from what the stream reads next. */
  reset(): void;
  start(run: RunOptions): void;
  stop(): void;
}

export interface PartitionRunsOptions {
  /** A partition with less than this many bytes (keys and values) queued may be fetched: one fetch's worth. */
  readonly prefetchBytes: number;
  /** A queue was drained or a partition unpaused: a held fetch may go out. */
  readonly onFetchable: () => void;
  /** The handler threw; the record is handed again in `retryInMs`. */
  readonly onHandlerError: (error: unknown, retryInMs: number) => void;
  /** A partition resumed while a batch from before its pause was in hand: now known, the stream must read it from `offset`. */
  readonly onReposition: (topic: string, partition: number, offset: bigint) => void;
}

/** Most records of one eachBatch call; the rest of the queue comes in the next. */
const MAX_BATCH = 500;
/**
 * Records handed out before the next hand-out waits for a turn of the event loop. Handlers
 * that resolve at once chain one hand-out to the next in microtasks, which run before any
 * I/O: without a turn between them the whole queue (a megabyte a partition) was handled
 * before a commit's answer or the next fetch response could be read.
 */
const RECORDS_PER_TURN = MAX_BATCH;
/** Backoff before a record whose handler threw is handed again: 100 ms, doubling, at most 10 s. */
const HANDED_AGAIN = { backoffMs: 100, maxBackoffMs: 10_000, jitter: 0 } as const;

/** What a record weighs in the queue: its key and value (headers are small beside them). */
const bytesOf = (m: PortMessage) => (m.key?.length ?? 0) + (m.value?.length ?? 0);
const bytesOfAll = (messages: readonly PortMessage[]) => messages.reduce((sum, m) => sum + bytesOf(m), 0);

class Partition {
  paused = false;
  busy = false;
  /** A handler threw: nothing is handed out until the retry timer fires. */
  retrying: ReturnType<typeof setTimeout> | undefined;
  failures = 0;
  queue: PortMessage[] = [];
  /** The topic id of each record of `queue`, index for index (undefined where unknown). */
  ids: (string | undefined)[] = [];
  /** The bytes of keys and values in `queue`. */
  queuedBytes = 0;
  /** The offset after the last record queued or handed out: older records are repeats. */
  next: bigint | undefined;
  /** The topic id of the last record queued that had one: `next` is an offset of that log. */
  lastId: string | undefined;
  /** Moves at every pause, resume, seek and reset: a batch in hand from before is stale. */
  epoch = 0;
  /**
   * Paused while a batch was in hand: where the partition resumes depends on what its
   * handler takes, so it is not fetched until the handler returns (a seek or reset settles it).
   */
  awaitingBatch = false;
  constructor(readonly topic: string, readonly partition: number) {}
  /** Drops what is queued. */
  clear(): void {
    this.queue = [];
    this.ids = [];
    this.queuedBytes = 0;
  }
}

export function createPartitionRuns(options: PartitionRunsOptions): PartitionRuns {
  const partitions = new Map<string, Partition>();
  /** Partitions with records to hand out, in the order they became ready (round robin). */
  const ready = new Set<Partition>();
  let run: RunOptions | undefined;
  let running = 0;
  let stopped = false;
  let handedThisTurn = 0;
  let nextTurn: ReturnType<typeof setImmediate> | undefined;

  const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`;
  /** The last partition looked up: a response's records come a partition at a time, so most lookups need no key. */
  let last: Partition | undefined;
  function partitionOf(topic: string, partition: number): Partition {
    if (last !== undefined && last.partition === partition && last.topic === topic) return last;
    const key = keyOf(topic, partition);
    let p = partitions.get(key);
    if (p === undefined) partitions.set(key, (p = new Partition(topic, partition)));
    return (last = p);
  }

  function markReady(p: Partition): void {
    if (!p.paused && !p.busy && p.retrying === undefined && p.queue.length > 0) ready.add(p);
  }

  function schedule(): void {
    if (run === undefined || stopped) return;
    const limit = Math.max(1, run.partitionsConsumedConcurrently ?? 1);
    for (const p of ready) {
      if (running >= limit) return;
      ready.delete(p);
      if (p.paused || p.busy || p.retrying !== undefined || p.queue.length === 0) continue;
      void handOut(p, run);
    }
  }

  async function handOut(p: Partition, r: RunOptions): Promise<void> {
    p.busy = true;
    running++;
    const epoch = p.epoch;
    const wasFetchable = p.queuedBytes < options.prefetchBytes;
    const topicId = p.ids[0];
    const count = 'eachMessage' in r ? 1 : sameIdRun(p.ids, MAX_BATCH);
    const messages = p.queue.splice(0, count);
    p.ids.splice(0, count);
    p.queuedBytes -= bytesOfAll(messages);
    if (!wasFetchable && p.queuedBytes < options.prefetchBytes) options.onFetchable();
    let resolved: bigint | undefined;
    let failure: { error: unknown } | undefined;
    try {
      if ('eachMessage' in r) {
        const payload: EachMessagePayload = { topic: p.topic, partition: p.partition, message: messages[0]!, heartbeat: heartbeatNotNeeded, ...(topicId !== undefined ? { topicId } : {}) };
        await r.eachMessage(payload);
        resolved = BigInt(messages[0]!.offset);
      } else {
        const payload: EachBatchPayload = {
          topic: p.topic,
          partition: p.partition,
          messages,
          resolveOffset: (offset) => void (resolved = BigInt(offset)),
          heartbeat: heartbeatNotNeeded,
          isStale: () => stopped || p.epoch !== epoch,
          ...(topicId !== undefined ? { topicId } : {}),
        };
        await r.eachBatch(payload);
      }
      p.failures = 0;
    } catch (error) {
      failure = { error };
    } finally {
      p.busy = false;
      running--;
    }
    const left = messages.filter((m) => resolved === undefined || BigInt(m.offset) > resolved);
    // Paused while the batch was in hand, and neither sought nor reset since: the partition is read again from its first record not taken.
    if (p.awaitingBatch) {
      p.awaitingBatch = false;
      if (left.length > 0 && (p.next === undefined || BigInt(left[0]!.offset) < p.next)) p.next = BigInt(left[0]!.offset);
      if (!p.paused && p.next !== undefined && !stopped) options.onReposition(p.topic, p.partition, p.next);
      options.onFetchable();
    }
    // Records of the batch not taken are handed again, before those fetched since.
    if (p.epoch === epoch && !stopped) {
      p.queue.unshift(...left);
      p.ids.unshift(...left.map(() => topicId));
      p.queuedBytes += bytesOfAll(left);
      if (failure !== undefined && left.length > 0) {
        const retryInMs = backoffMs(++p.failures, HANDED_AGAIN);
        options.onHandlerError(failure.error, retryInMs);
        p.retrying = setTimeout(() => {
          p.retrying = undefined;
          markReady(p);
          schedule();
        }, retryInMs);
      }
    }
    markReady(p);
    handedThisTurn += messages.length;
    if (handedThisTurn < RECORDS_PER_TURN) schedule();
    else scheduleNextTurn();
  }

  /** Hands out more once the event loop has read what arrived meanwhile. */
  function scheduleNextTurn(): void {
    if (nextTurn !== undefined) return;
    nextTurn = setImmediate(() => {
      nextTurn = undefined;
      handedThisTurn = 0;
      schedule();
    });
  }

  function clearRetry(p: Partition): void {
    if (p.retrying !== undefined) clearTimeout(p.retrying);
    p.retrying = undefined;
  }

  return {
    deliver(topic, partition, message, offset, topicId) {
      const p = partitionOf(topic, partition);
      // Paused, or waiting on a batch in hand: what the partition reads next is decided elsewhere, so the record does not move `next`.
      if (p.paused || p.awaitingBatch) return;
      // A record of another id is of another log (the topic created again, read from its start): its offsets are no repeats of the old log's.
      if (topicId !== undefined && p.lastId !== undefined && topicId !== p.lastId) p.next = undefined;
      if (p.next !== undefined && offset < p.next) return;
      if (topicId !== undefined) p.lastId = topicId;
      p.next = offset + 1n;
      p.queue.push(message);
      p.ids.push(topicId);
      p.queuedBytes += bytesOf(message);
      markReady(p);
      schedule();
    },
    fetchable(topic, partition) {
      const p = partitions.get(keyOf(topic, partition));
      return p === undefined || (!p.paused && !p.awaitingBatch && p.queuedBytes < options.prefetchBytes);
    },
    pause(topic, partition) {
      const p = partitionOf(topic, partition);
      if (p.paused) return;
      p.paused = true;
      p.epoch++;
      if (p.busy) p.awaitingBatch = true;
      // What was queued is read again after the resume, from the first record not handed out.
      if (p.queue.length > 0) p.next = BigInt(p.queue[0]!.offset);
      p.clear();
      ready.delete(p);
    },
    resume(topic, partition) {
      const p = partitionOf(topic, partition);
      if (!p.paused) return undefined;
      p.paused = false;
      p.epoch++;
      options.onFetchable();
      // A batch from before the pause still in hand: its handler's return says where to read from.
      return p.awaitingBatch ? undefined : p.next;
    },
    seek(topic, partition, offset) {
      const p = partitionOf(topic, partition);
      p.epoch++;
      p.awaitingBatch = false;
      p.clear();
      p.next = offset;
      clearRetry(p);
      ready.delete(p);
      options.onFetchable();
    },
    reset() {
      for (const p of partitions.values()) {
        p.epoch++;
        p.paused = false;
        p.awaitingBatch = false;
        p.clear();
        p.next = undefined;
        clearRetry(p);
      }
      ready.clear();
      options.onFetchable();
    },
    start(r) {
      run = r;
      schedule();
    },
    stop() {
      stopped = true;
      if (nextTurn !== undefined) clearImmediate(nextTurn);
      for (const p of partitions.values()) clearRetry(p);
      ready.clear();
    },
  };
}

/** How many records from the head of a queue have the first one's topic id (at most `max`): one payload's worth. */
function sameIdRun(ids: readonly (string | undefined)[], max: number): number {
  const first = ids[0];
  const end = Math.min(ids.length, max);
  let n = 1;
  while (n < end && ids[n] === first) n++;
  return Math.min(n, ids.length);
}

/** The client heartbeats on its own timer, whatever the handler does. */
const heartbeatNotNeeded = async (): Promise<void> => undefined;
