import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort, OffsetCommit } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { httpError, valueOf } from './harness';
import { consumer, T0 } from './park-by-key-world';

/**
 * Found by attack (attack9). A park-by-key state stored while the group coordinator kept more
 * commit metadata than it keeps now can never be committed again: every operation of the
 * partition needs a commit of a state about as large as the stored one (a release shrinks it
 * by one entry at a time), each is refused, the operation fails, the state is read again from
 * the stored (too large) commit and the same record runs again. The partition is stuck for
 * good and its handler runs the same record without end (duplicates without bound).
 *
 * Scenario (kafkajs: the broker names the refusal OFFSET_METADATA_TOO_LARGE): during an
 * outage of a downstream, ten keys fail into the 1m tier: p's stored state holds ten keys
 * (~190 bytes). The broker's `offset.metadata.max.bytes` is then lowered to 120 (a rolling
 * config change; or the coordinator moves to a broker configured lower). The downstream is
 * back: z:0 (a free key) comes, and a minute on the ten retries come due and succeed.
 *
 * Seen: z:0 runs once; its commit is refused, `parking-budget-lowered`, p is read again and is
 * now at the budget (`parking-full`, paused). A minute on key-0:0's retry succeeds, its release
 * commit (nine keys, still over 120 bytes) is refused, the operation fails, the retry is read
 * again and runs again: 190 times in this test's 3,000 steps, without end; key-1..9's retries
 * never run, p's main records never resume. The hold expiry cannot end it either: every reload takes the
 * stored holds as new (heldSince = now).
 *
 * Code: src/runtime/key-parking.ts commitState (lowers the budget, rethrows) + locked()
 * (a failed operation drops the state) + load() (reads the stored state again, as large); no
 * path sheds holds to fit a budget below the stored state: overBudget() only stops new main
 * records, mayHold()/roomToHold() only refuse new holds, releases commit one key at a time.
 * On the Confluent client it is worse: a commit with less metadata than the stored one is
 * never even guessed too large (confirmed-commit.ts mayBeTooLarge: `asked > stored`), so the
 * budget is never lowered at all.
 *
 * Class: a durable state whose every successor is refused: progress needs a commit the broker
 * can keep, and the state machine has no step that gets there from a stored state over it.
 *
 * Fix I'd make: when the budget is below the stored state (a refusal of a commit no larger
 * than the last accepted one, or budget < stored), shrink in one commit: release the holds
 * that do not fit (as `parking-hold-skipped` does at the empty state: mark lostBefore past
 * them, so their tier copies run unjudged) or run the parked records of the oldest holds,
 * with an event saying the order of those keys is given up; and on the Confluent client,
 * guess "too large" also when the stored commit is larger than the limit the budget implies
 * (a commit not shown twice with the same metadata, whatever the stored one's size).
 */
function brokerWithMetadataMax(startBytes: number) {
  const clock = new VirtualClock(T0);
  const broker = new MemoryBroker(clock);
  broker.throwReaction = 'kafkajs';
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  const limit = { bytes: startBytes };
  const port = broker.port();
  const kafka: KafkaPort = {
    producer: () => port.producer(),
    consumer: (groupId, options) => {
      const c = port.consumer(groupId, options);
      const commitOffsets = c.commitOffsets.bind(c);
      c.commitOffsets = async (offsets: OffsetCommit[]) => {
        const largest = Math.max(0, ...offsets.map((o) => Buffer.byteLength(o.metadata ?? '')));
        if (largest > limit.bytes) {
          throw Object.assign(new Error('The metadata field of the offset request was too large'), { name: 'KafkaJSProtocolError', type: 'OFFSET_METADATA_TOO_LARGE', code: 12, retriable: false });
        }
        return commitOffsets(offsets);
      };
      return c;
    },
  };
  return { clock, broker, kafka, limit };
}

describe('a park-by-key state stored before the broker\'s metadata limit was lowered under it', () => {
  it.failing('does not leave the partition stuck, running the same records without end', async () => {
    const w = brokerWithMetadataMax(4096);
    const events: RetryEvent[] = [];
    const handled: string[] = [];
    let downstreamDown = true;
    const retrying = createRetryingConsumer(consumer, {
      kafka: w.kafka,
      clock: w.clock,
      random: () => 0.5,
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        const label = `${record.message.key?.toString()}:${valueOf(record)}`;
        if (downstreamDown) {
          handled.push(`${label} FAIL`);
          throw httpError(503);
        }
        handled.push(label);
      },
    });
    const keys = Array.from({ length: 10 }, (_, i) => `key-${i}`);
    for (const k of keys) w.broker.append(consumer.mainTopic, { key: Buffer.from(k), value: Buffer.from('0'), partition: 0 });
    await retrying.start();
    await w.broker.run({ stopWhen: () => handled.length === keys.length });
    const stored = Buffer.byteLength(w.broker.committedMetadata(consumer.groups.main, consumer.mainTopic, 0) ?? '');
    expect(stored).toBeGreaterThan(150); // ten keys held

    w.limit.bytes = 120; // the coordinator now keeps at most 120 bytes of metadata
    downstreamDown = false;
    w.broker.append(consumer.mainTopic, { key: Buffer.from('z'), value: Buffer.from('0'), partition: 0 });
    await w.broker.run({ until: T0 + 5 * 60_000, maxSteps: 3_000, stopWhen: () => handled.length > 200 }).catch(() => undefined);
    await retrying.stop().catch(() => undefined);

    // Seen: z:0 once (its commit refused; read again, p is at the lowered budget and pauses), then
    // key-0:0's retry 190 times and counting, key-1..9 never: the stored state never changes.
    const runs = (label: string) => handled.filter((h) => h === label).length;
    expect(runs('key-0:0')).toBeLessThanOrEqual(2);
    expect(keys.every((k) => runs(`${k}:0`) >= 1)).toBe(true);
    expect(runs('z:0')).toBeGreaterThanOrEqual(1);
  });
});
