import fc from 'fast-check';
import { PartitionProgress } from '../../src/runtime/partition-progress';
import type { PendingPublish } from '../../src/runtime/partition-progress';

const RUNS = { numRuns: Number(process.env.KRT_PROPERTY_RUNS ?? 200) };

/**
 * A partition's life: records taken in offset order with gaps (compaction, transaction
 * markers), each a success or a publish, and acknowledgements arriving in any order
 * between them. `ackPicks` chooses which unacknowledged publish is acknowledged next.
 */
const life = fc.record({
  start: fc.nat({ max: 1_000_000 }),
  records: fc.array(fc.record({ gap: fc.nat({ max: 3 }), fails: fc.boolean(), acksAfter: fc.nat({ max: 3 }) }), { minLength: 1, maxLength: 60 }),
  ackPicks: fc.array(fc.nat(), { maxLength: 200 }),
});

describe('the progress of a partition with publishes in flight', () => {
  it('never lets the committed offset pass an unacknowledged publish, and reaches the end once every publish is acknowledged', () => {
    fc.assert(
      fc.property(life, ({ start, records, ackPicks }) => {
        const progress = new PartitionProgress('t', 0);
        const unacked: PendingPublish[] = [];
        let picks = 0;
        let committed = -1n;
        let offset = BigInt(start) - 1n;
        const commit = () => {
          const c = progress.committable();
          if (c < 0n) return;
          // What a commit now would say: every record below it is done.
          for (const u of unacked) expect(c).toBeLessThanOrEqual(u.offset);
          expect(c).toBeGreaterThanOrEqual(committed);
          committed = c;
        };
        const ackOne = () => {
          const [acked] = unacked.splice((ackPicks[picks++] ?? 0) % unacked.length, 1);
          progress.acknowledged(acked!);
        };
        for (const r of records) {
          offset += 1n + BigInt(r.gap);
          if (r.fails) unacked.push(progress.publishing(offset));
          else progress.finish(offset);
          commit();
          for (let k = 0; k < r.acksAfter && unacked.length > 0; k++) {
            ackOne();
            commit();
          }
        }
        while (unacked.length > 0) {
          ackOne();
          commit();
        }
        expect(progress.committable()).toBe(offset + 1n);
      }),
      RUNS,
    );
  });

  it('has nothing to commit before a record is finished', () => {
    const progress = new PartitionProgress('t', 0);
    expect(progress.committable()).toBe(-1n);
    const publish = progress.publishing(40n);
    expect(progress.committable()).toBe(-1n);
    progress.finish(41n);
    expect(progress.committable()).toBe(-1n);
    progress.acknowledged(publish);
    expect(progress.committable()).toBe(42n);
  });

  it('counts offsets past 2^53 exactly (Kafka offsets are 64-bit)', () => {
    const progress = new PartitionProgress('t', 0);
    const far = 2n ** 62n;
    progress.finish(far);
    const publish = progress.publishing(far + 1n);
    progress.finish(far + 2n);
    expect(progress.committable()).toBe(far + 1n);
    progress.acknowledged(publish);
    expect(progress.committable()).toBe(far + 3n);
  });

  it('wakes a partition waiting for room when a publish is acknowledged', async () => {
    const progress = new PartitionProgress('t', 0);
    const publish = progress.publishing(0n);
    let woke = false;
    const waiting = progress.waitForAcknowledgement().then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    progress.acknowledged(publish);
    await waiting;
    expect(woke).toBe(true);
  });

  it('takes the first batch of a partition it never saw as it comes: nothing to resume, nothing dropped', () => {
    const progress = new PartitionProgress('t', 0);
    expect(progress.dropped).toBe(false);
    expect(progress.mustResume(0n)).toBe(false);
  });

  it('lets a partition with no publish in flight go on at once instead of waiting for an acknowledgement', async () => {
    const progress = new PartitionProgress('t', 0);
    progress.finish(0n);
    let woke = false;
    void progress.waitForAcknowledgement().then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(true);
  });

  it('never commits past a publish still in flight when the partition resumes anywhere after a rebalance or a seek', () => {
    // The client may resume a partition at any offset: back at the committed one (kafkajs),
    // or past records it handed over (the Confluent client seeks to the last resolved one).
    const step = fc.oneof(
      fc.record({ kind: fc.constant('take' as const), gap: fc.nat({ max: 2 }), fails: fc.boolean() }),
      fc.record({ kind: fc.constant('ack' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('resume' as const), back: fc.integer({ min: -3, max: 6 }), rebalance: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 80 }), (steps) => {
        const progress = new PartitionProgress('t', 0);
        /** Every publish not acknowledged and not abandoned: the records not yet in their tier. */
        let live: PendingPublish[] = [];
        /** Publishes a revocation ended: their records must be read again before any later one. */
        let givenUp: PendingPublish[] = [];
        let offset = 99n;
        for (const s of steps) {
          if (s.kind === 'take') {
            offset += 1n + BigInt(s.gap);
            if (s.fails) live.push(progress.publishing(offset));
            else progress.finish(offset);
          } else if (s.kind === 'ack' && live.length > 0) {
            const [acked] = live.splice(s.pick % live.length, 1);
            progress.acknowledged(acked!);
          } else if (s.kind === 'resume') {
            if (s.rebalance) {
              progress.revoke();
              for (const p of live) expect(p.abandoned).toBe(true);
              givenUp = [...givenUp, ...live];
              live = [];
            }
            let at = offset + 1n - BigInt(s.back);
            if (at < 100n) at = 100n;
            const oldestGivenUp = givenUp.reduce<bigint | undefined>((min, p) => (min === undefined || p.offset < min ? p.offset : min), undefined);
            const again = progress.mustResume(at) ? progress.resume(at) : undefined;
            if (oldestGivenUp !== undefined && oldestGivenUp < at) {
              // Nothing resumes: the partition is read again from the oldest record whose publish was given up.
              expect(again).toBe(oldestGivenUp);
              at = oldestGivenUp;
              expect(progress.resume(at)).toBeUndefined();
            }
            // The records from `at` on come again: their old publishes are abandoned, the rest still count.
            for (const p of live) expect(p.abandoned).toBe(p.offset >= at);
            live = live.filter((p) => !p.abandoned);
            givenUp = givenUp.filter((p) => p.offset < at);
            offset = at - 1n;
          }
          const c = progress.committable();
          if (c >= 0n) for (const p of [...live, ...givenUp]) expect(c).toBeLessThanOrEqual(p.offset);
          expect(progress.inFlight).toBe(live.length + givenUp.length);
        }
      }),
      RUNS,
    );
  });

  it('abandons the publishes of records taken again, and keeps those of records the client resumed past', () => {
    const progress = new PartitionProgress('t', 0);
    const early = progress.publishing(1n);
    progress.finish(2n);
    const late = progress.publishing(3n);
    expect(progress.resume(3n)).toBeUndefined();
    expect(late.abandoned).toBe(true);
    expect(early.abandoned).toBe(false);
    progress.finish(3n);
    progress.finish(4n);
    expect(progress.committable()).toBe(-1n);
    progress.acknowledged(late);
    expect(progress.committable()).toBe(-1n);
    progress.acknowledged(early);
    expect(progress.committable()).toBe(5n);
  });

  it('ends the publishes of a revoked partition, and has it read again from the first of their records if it comes back past them', () => {
    const progress = new PartitionProgress('t', 0);
    progress.finish(1n);
    const failed = progress.publishing(2n);
    progress.finish(3n);
    progress.revoke();
    expect(failed.abandoned).toBe(true);
    expect(progress.committable()).toBe(2n);
    // The Confluent client resumes at the last resolved offset, past the record: read it again.
    expect(progress.resume(4n)).toBe(2n);
    expect(progress.resume(2n)).toBeUndefined();
    expect(progress.inFlight).toBe(0);
  });
});
