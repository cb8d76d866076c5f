import { KrtError } from '../krt-error';
import type { OffsetCommit } from '../port';
import { nativeReadSlots } from './native-read-slots';
import type { ReadSlots } from './native-read-slots';

/** What a commit needs of a Confluent consumer: its KafkaJS API's commit and committed offsets. */
export interface CommittingConsumerLike {
  commitOffsets(o: OffsetCommit[]): Promise<void>;
  committed(partitions: { topic: string; partition: number }[], timeoutMs: number): Promise<{ topic: string; partition: number; offset: string | null; metadata?: string | null }[]>;
}

/** How long the group coordinator may take to show a commit; past it the commit counts as refused and goes out again. */
export const COMMIT_CONFIRM_TIMEOUT_MS = 10_000;

/**
 * The Confluent client's commitOffsets() answers once librdkafka has queued the commit (its
 * native layer calls commitAsync), not once the group coordinator stored it: a commit lost
 * to a broker outage was taken as done, never sent again, and the records behind it ran
 * again after a restart, while the commit window let the consumer take more. A commit is
 * done only when the group's committed offsets, read through the same consumer (after the
 * commit, from the same coordinator), show it; otherwise it is refused, and the committer
 * keeps it for its next commit.
 */
export async function commitConfirmed(consumer: CommittingConsumerLike, offsets: OffsetCommit[], timeoutMs = COMMIT_CONFIRM_TIMEOUT_MS, slots: ReadSlots = nativeReadSlots): Promise<void> {
  await consumer.commitOffsets(offsets);
  const shown = await readUntilShown(consumer, offsets, Date.now() + timeoutMs, Date.now() + Math.min(timeoutMs, READ_AGAIN_FOR_MS), slots);
  for (const o of offsets) {
    const stored = storedOf(shown, o);
    if (stored === undefined || !shows(stored, o)) {
      const error = new KrtError(`the group coordinator does not show the commit of ${o.topic}-${o.partition} at offset ${o.offset} (it shows ${stored?.offset ?? 'none'}); it goes out again`);
      // Shown otherwise by the coordinator all along: taken as not stored (answeredNo).
      Object.assign(error, { notStored: stored !== undefined });
      throw refusedTwice(consumer, stored, o) ? Object.assign(error, { code: 'OFFSET_METADATA_TOO_LARGE', guessed: true }) : error;
    }
    suspectsOf(consumer).delete(`${o.topic}\u0000${o.partition}`);
  }
}

/** Between reads of a commit not shown yet. */
const READ_AGAIN_MS = 50;
/**
 * How long a commit not shown is read again: the read that overtook the queued commit is a
 * matter of milliseconds, while a commit the coordinator refused (a member fenced after an
 * outage) never shows, and reading it for the whole timeout held the commit window full for
 * 10 s a commit after an outage (seen on the broker: the consumer took minutes to recover).
 */
const READ_AGAIN_FOR_MS = 1_000;

/**
 * The group's committed offsets, read again for up to READ_AGAIN_FOR_MS until they show every
 * commit asked for (each read within the deadline, in its turn for the pool): the commit was only queued when commitOffsets() answered, so a read sent
 * at once can reach the coordinator before it (seen on the broker: an older offset shown, the
 * commit taken as refused, and up to a commit window of records run again with no rebalance).
 */
async function readUntilShown(consumer: CommittingConsumerLike, offsets: OffsetCommit[], deadline: number, readAgainUntil: number, slots: ReadSlots): Promise<CommittedLike[]> {
  const partitions = offsets.map(({ topic, partition }) => ({ topic, partition }));
  for (;;) {
    // Each read holds a libuv pool thread until answered (up to the deadline in an outage):
    // it takes its turn with the process's readers (native-read-slots.ts), timed from its turn.
    const shown = await slots.run(() => consumer.committed(partitions, Math.max(1, deadline - Date.now())));
    const all = offsets.every((o) => {
      const stored = storedOf(shown, o);
      return stored !== undefined && shows(stored, o);
    });
    if (all || Date.now() + READ_AGAIN_MS >= Math.min(deadline, readAgainUntil)) return shown;
    await new Promise((resolve) => setTimeout(resolve, READ_AGAIN_MS));
  }
}

type CommittedLike = Awaited<ReturnType<CommittingConsumerLike['committed']>>[number];
const storedOf = (shown: CommittedLike[], o: OffsetCommit) => shown.find((s) => s.topic === o.topic && s.partition === o.partition);

/** Per consumer and partition: the metadata size of a commit not shown once (a suspect of being too large). */
const suspects = new WeakMap<CommittingConsumerLike, Map<string, number>>();
function suspectsOf(consumer: CommittingConsumerLike): Map<string, number> {
  let known = suspects.get(consumer);
  if (known === undefined) suspects.set(consumer, (known = new Map()));
  return known;
}

/**
 * A commit lost to an outage looks like one refused as too large the first time (a park-by-key
 * state usually grows between two commits). Taken for too large only when the same partition's
 * commit is not shown a second time in a row with at least as much metadata (park-by-key sends
 * the same state again after a failure), the coordinator answering both times.
 */
function refusedTwice(consumer: CommittingConsumerLike, stored: { offset: string | null; metadata?: string | null } | undefined, asked: OffsetCommit): boolean {
  if (!mayBeTooLarge(stored, asked)) return false;
  const key = `${asked.topic}\u0000${asked.partition}`;
  const bytes = Buffer.byteLength(withoutNul(asked.metadata));
  const before = suspectsOf(consumer).get(key);
  suspectsOf(consumer).set(key, bytes);
  return before !== undefined && bytes >= before;
}

/**
 * The broker's refusal never reaches this client (its commit is asynchronous), so a commit
 * refused for metadata past `offset.metadata.max.bytes` looks like any other not shown. Taken
 * for one when it carried more metadata than the commit the coordinator keeps, twice in a row
 * (refusedTwice): park-by-key then lowers its state budget under it instead of sending the
 * same state for ever. Mistaken, the budget comes down and is raised again after
 * BUDGET_RETRY_AFTER_COMMITS accepted commits.
 */
function mayBeTooLarge(stored: { offset: string | null; metadata?: string | null } | undefined, asked: OffsetCommit): boolean {
  // Nothing stored at all (a partition's first commit lost, twice, to an outage), or a commit
  // without metadata (an operator's reset of the offsets: park-by-key's state lost, its next
  // commit the first with a state): no stored metadata to be larger than, so no guess; a guess
  // there would take the budget below one hold.
  if (stored === undefined || (stored.offset !== null && stored.offset.startsWith('-')) || withoutNul(stored.metadata) === '') return false;
  return asked.metadata !== undefined && Buffer.byteLength(withoutNul(asked.metadata)) > Buffer.byteLength(withoutNul(stored.metadata));
}

/** The client keeps metadata as a C string: trailing NULs say nothing. */
const withoutNul = (metadata: string | null | undefined) => (metadata ?? '').replace(/\u0000+$/, '');

/**
 * Whether the stored commit is the one asked for: its offset, and its metadata when one was
 * sent (park-by-key's state may change at an unchanged offset). A higher offset is a later
 * commit of the group (another member's, after a rebalance) that passed it.
 */
function shows(stored: { offset: string | null; metadata?: string | null }, asked: OffsetCommit): boolean {
  // The client reads a stored offset 0 back as null (its KafkaJS layer converts with
  // `offset ? String(offset) : null`): null with the very metadata asked for is that commit.
  if (stored.offset === null) return asked.offset === '0' && asked.metadata !== undefined && withoutNul(asked.metadata) !== '' && withoutNul(stored.metadata) === withoutNul(asked.metadata);
  const storedAt = BigInt(stored.offset);
  const askedAt = BigInt(asked.offset);
  if (storedAt !== askedAt) return storedAt > askedAt;
  return asked.metadata === undefined || withoutNul(stored.metadata) === withoutNul(asked.metadata);
}
