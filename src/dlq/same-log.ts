import { setTimeout as delay } from 'node:timers/promises';
import { DlqError } from './dlq-error';
import type { KafkaAdmin } from './group-commits';
import { retryingRetriable } from './retriable';
import { topicIdOf } from './topic-id';

/**
 * Refuses when the DLQ topic is no longer the log a session read: deleted and created again
 * under its name (kafkajs 2.2.4 reads no topic ids). Within one log a partition's end and its
 * log start never move back, and no partition goes away; a log whose end or start is below
 * what the session read at open, or that lost a partition, is another. A handled state
 * committed there would count the new topic's records at those offsets as handled: never
 * listed, never replayed, and the DLQ alerts silent about them.
 *
 * Where the session read the topic's id at open (`topicId`: an admin that reports ids,
 * topic-id.ts), another id now says it outright, whatever the offsets. Without ids, a new
 * topic that already holds as many records as the old one had when the session opened is not
 * seen here (telling it would take reading a record at every step): a replay step is seconds,
 * a topic created again starts empty.
 */
export async function checkSameLog(admin: KafkaAdmin, topic: string, read: { ends: ReadonlyMap<number, bigint>; starts: ReadonlyMap<number, bigint>; topicId?: string }): Promise<void> {
  const now = new Map((await retryingRetriable(() => admin.fetchTopicOffsets(topic))).map((p) => [p.partition, p]));
  const id = read.topicId === undefined ? undefined : await idNow(admin, topic);
  if (id !== undefined && id !== read.topicId) throw otherLog(topic, `topic id is ${id}, not the ${read.topicId} it read`);
  for (const [partition, end] of read.ends) {
    const p = now.get(partition);
    const moved = p === undefined ? 'is gone' : BigInt(p.high) < end ? `ends at offset ${p.high}, below the ${end} it read` : BigInt(p.low) < (read.starts.get(partition) ?? 0n) ? `starts at offset ${p.low}, below the ${read.starts.get(partition)} it read` : undefined;
    if (moved !== undefined) throw otherLog(topic, `partition ${partition} ${moved}`);
  }
}

/** How many times a check reads the id before it gives up (each read a new connection of a second client, where ids are read). */
const ID_READ_ATTEMPTS = 4;

/**
 * The topic's id, read again on any failure, a few times: where ids are read each read is a
 * new connection of the Confluent client (src/connection/topic-ids.ts), whose errors kafkajs's
 * retries never see, and a check that fails between a step's audit and its commit leaves the
 * step published but not committed (the next run publishes it again). A read that keeps
 * failing still fails the check: once read, the id is what tells a topic made again.
 */
async function idNow(admin: KafkaAdmin, topic: string): Promise<string | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await topicIdOf(admin, topic);
    } catch (error) {
      if (attempt >= ID_READ_ATTEMPTS) throw error;
      await delay(250 * attempt);
    }
  }
}

function otherLog(topic: string, moved: string): DlqError {
  return new DlqError(
    `${topic} is not the topic this session read: its ${moved}, so it was deleted and created again since. Nothing more is recorded as handled (records of the old topic already published stay published); open a new session`,
  );
}
