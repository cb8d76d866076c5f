import { commitConfirmed } from '../../src/runtime/adapters/confirmed-commit';
import type { CommittingConsumerLike } from '../../src/runtime/adapters/confirmed-commit';
import { refusedAsTooLarge } from '../../src/runtime/metadata-too-large';
import type { OffsetCommit } from '../../src/runtime/port';

/** How long a confirmation reads the group's commit here: the doubles answer at once, so a commit not shown by then never will be. */
const CONFIRM_WITHIN_MS = 100;

/**
 * Attack (s26, attack5) on the confirmed Confluent commit (adapters/confirmed-commit.ts).
 *
 * The Confluent client's commitOffsets() answers once librdkafka queued the commit (its native
 * KafkaConsumer::Commit calls commitAsync), so the broker's per-partition refusal never reaches
 * the caller. A broker whose offset.metadata.max.bytes is below what park-by-key's state took
 * (the default budget is 4,000 bytes; an operator may set the broker lower, see
 * key-parking.ts:361-368) refuses the commit with OFFSET_METADATA_TOO_LARGE (code 12) and keeps
 * the old one.
 */
const LIMIT_BYTES = 64;

function brokerKeepingAtMost(limit: number) {
  const group = new Map<string, { offset: string; metadata: string | null }>();
  const consumer: CommittingConsumerLike = {
    // As commitAsync: answers at once; the broker refuses what is too large, and nobody hears it.
    commitOffsets: async (offsets) => {
      for (const o of offsets) {
        if (Buffer.byteLength(o.metadata ?? '') > limit) continue;
        group.set(`${o.topic}/${o.partition}`, { offset: o.offset, metadata: o.metadata ?? null });
      }
    },
    committed: async (partitions) => partitions.map((p) => ({ ...p, offset: group.get(`${p.topic}/${p.partition}`)?.offset ?? '-1', metadata: group.get(`${p.topic}/${p.partition}`)?.metadata ?? null })),
  };
  return consumer;
}

const parked = (offset: number, bytes: number): OffsetCommit => ({ topic: 'orders', partition: 0, offset: String(offset), metadata: `krt-parked/1 ${'k'.repeat(bytes)}` });

describe('a park-by-key commit larger than the broker keeps, through the Confluent client (attack5)', () => {
  // Found by attack (s26, attack5), fixed (the refusal is taken for too large when the commit carried more metadata than the stored one); was (adapters/confirmed-commit.ts:26-28): the refusal is a plain Error ("does not show
  // the commit ... it goes out again"), so key-parking.ts:364 (refusedAsTooLarge) never lowers
  // the budget: the operation fails, runs again with the same state, and is refused again at
  // every try; the park-by-key partition never commits past it (stuck, and every record since
  // runs again after a restart). On kafkajs and @platformatic/kafka the broker's code 12
  // reaches key-parking and the budget comes down.
  // Class: confirming by reading back turns every broker refusal into "lost, send again", so a
  // refusal that must change what is sent loops. Fix: take the commit's own answer (librdkafka's
  // offset_commit_cb, or a synchronous commit, carries the per-partition error) and raise it
  // with its code; the read-back stays for commits answered without an error.
  it('is refused as too large once not shown twice, so park-by-key lowers its budget instead of sending the same state forever', async () => {
    const consumer = brokerKeepingAtMost(LIMIT_BYTES);
    await commitConfirmed(consumer, [parked(8, 10)], CONFIRM_WITHIN_MS);
    // Not shown once: it could be a commit lost to an outage; it goes out again.
    const first = await commitConfirmed(consumer, [parked(9, 200)], CONFIRM_WITHIN_MS).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusedAsTooLarge(first)).toBe(false);
    // The same state not shown again, the coordinator answering: too large.
    const refusal = await commitConfirmed(consumer, [parked(9, 200)], CONFIRM_WITHIN_MS).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeDefined();
    expect(refusedAsTooLarge(refusal)).toBe(true);
  });
});
