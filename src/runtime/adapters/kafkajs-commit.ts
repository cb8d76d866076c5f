import { CLIENT_STOPPED, markWorthWaitingOut } from '../commit-patience';
import { someCause } from '../error-causes';
import { KrtError } from '../krt-error';
import type { OffsetCommit } from '../port';

/** What a confirmed commit needs of a kafkajs consumer: its commit, and its instrumentation event of a commit sent. */
export interface KafkaJsCommittingLike {
  commitOffsets(o: OffsetCommit[]): Promise<void>;
  on(event: string, listener: (event: { payload: CommitOffsetsPayload }) => void): unknown;
  events: { COMMIT_OFFSETS: string };
}

/** kafkajs's COMMIT_OFFSETS payload: what the group coordinator answered for (offsets as kafkajs's Long). */
export interface CommitOffsetsPayload {
  readonly topics?: readonly { readonly topic: string; readonly partitions: readonly { readonly partition: number; readonly offset: { toString(): string } | string }[] }[];
}

/**
 * kafkajs's `commitOffsets()` resolves without committing anything when its runner is not
 * running (runner.js: `if (!this.running) return`): called while a crash stops the consumer,
 * or when a commit retried through a broker outage fails after the runner stopped. Seen on the
 * broker: a commit sent as the broker was killed resolved 11 s later, during the outage, and
 * nothing was stored; taken as acknowledged, it made the group's empty commit after the outage
 * look like a new log, and every record the member had finished ran again (#28 finding 2).
 *
 * A commit is done only when kafkajs reports it answered: its COMMIT_OFFSETS event, which it
 * emits once the coordinator accepted the commit, naming each partition and offset asked
 * for. Otherwise it is refused, and the committer keeps it for its next commit.
 */
export function confirmedCommits(consumer: KafkaJsCommittingLike): (offsets: OffsetCommit[]) => Promise<void> {
  /** Per commit under way: the partitions at the offsets it asked for that kafkajs has not reported committed yet. */
  const waiting = new Set<Set<string>>();
  consumer.on(consumer.events.COMMIT_OFFSETS, ({ payload }) => {
    for (const { topic, partitions } of payload.topics ?? []) {
      for (const { partition, offset } of partitions) for (const unreported of waiting) unreported.delete(commitKey(topic, partition, String(offset)));
    }
  });
  return async (offsets) => {
    const unreported = new Set(offsets.map((o) => commitKey(o.topic, o.partition, o.offset)));
    waiting.add(unreported);
    try {
      await consumer.commitOffsets(offsets);
    } catch (error) {
      throw kafkajsCoordinatorAway(error) ? markWorthWaitingOut(error) : error;
    } finally {
      waiting.delete(unreported);
    }
    if (unreported.size > 0) {
      const missing = offsets.filter((o) => unreported.has(commitKey(o.topic, o.partition, o.offset)));
      const error = new KrtError(`kafkajs did not commit ${missing.map((o) => `${o.topic}-${o.partition} at offset ${o.offset}`).join(', ')}: its consumer was not running (stopped by a crash or an outage); the commit goes out again`);
      // Not worth waiting out: kafkajs restarts its consumer once the callback it runs returns.
      throw Object.assign(error, { type: CLIENT_STOPPED });
    }
  };
}

const commitKey = (topic: string, partition: number, offset: string) => `${topic}\u0000${partition}\u0000${offset}`;

/** kafkajs's errors for a connection to the coordinator that failed or timed out. */
const CONNECTION_FAILED = new Set(['KafkaJSConnectionError', 'KafkaJSConnectionClosedError', 'KafkaJSRequestTimeoutError']);
/**
 * The refusals of a coordinator that is loading or has no leader for a while, or a request that
 * timed out. Not NOT_COORDINATOR_FOR_GROUP: kafkajs keeps the coordinator its generation found
 * and asks it again, so a moved coordinator is found only by a rejoin (its `isRebalancing`),
 * which waits for the callback (attack 41).
 */
const COORDINATOR_AWAY = new Set(['GROUP_LOAD_IN_PROGRESS', 'GROUP_COORDINATOR_NOT_AVAILABLE', 'REQUEST_TIMED_OUT', 'NETWORK_EXCEPTION']);

/** Whether kafkajs accepts a commit it refused so if it is sent again shortly, also inside its own retry error. */
export function kafkajsCoordinatorAway(error: unknown): boolean {
  return someCause(error, (e) => CONNECTION_FAILED.has(String((e as { name?: unknown }).name)) || COORDINATOR_AWAY.has(String((e as { type?: unknown }).type)));
}
