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
        let committed = -1;
        let offset = start - 1;
        const commit = () => {
          const c = progress.committable();
          if (c < 0) return;
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
          offset += 1 + r.gap;
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
        expect(progress.committable()).toBe(offset + 1);
      }),
      RUNS,
    );
  });

  it('has nothing to commit before a record is finished', () => {
    const progress = new PartitionProgress('t', 0);
    expect(progress.committable()).toBe(-1);
    const publish = progress.publishing(40);
    expect(progress.committable()).toBe(-1);
    progress.finish(41);
    expect(progress.committable()).toBe(-1);
    progress.acknowledged(publish);
    expect(progress.committable()).toBe(42);
  });

  it('wakes a partition waiting for room when a publish is acknowledged', async () => {
    const progress = new PartitionProgress('t', 0);
    const publish = progress.publishing(0);
    let woke = false;
    const waiting = progress.waitForAcknowledgement().then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    progress.acknowledged(publish);
    await waiting;
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
        /** Records handed to the partition since its last resume, and the lowest still undone from before. */
        let offset = 99;
        for (const s of steps) {
          if (s.kind === 'take') {
            offset += 1 + s.gap;
            if (s.fails) live.push(progress.publishing(offset));
            else progress.finish(offset);
          } else if (s.kind === 'ack' && live.length > 0) {
            const [acked] = live.splice(s.pick % live.length, 1);
            progress.acknowledged(acked!);
          } else if (s.kind === 'resume') {
            if (s.rebalance) progress.dropped = true;
            const at = Math.max(100, offset + 1 - s.back);
            if (progress.mustResume(at)) progress.resume(at);
            // The records from `at` on come again: their old publishes are abandoned, the rest still count.
            for (const p of live) expect(p.abandoned).toBe(p.offset >= at);
            live = live.filter((p) => !p.abandoned);
            offset = at - 1;
          }
          const c = progress.committable();
          for (const p of live) if (c >= 0) expect(c).toBeLessThanOrEqual(p.offset);
          expect(progress.inFlight).toBe(live.length);
        }
      }),
      RUNS,
    );
  });

  it('abandons the publishes of records taken again, and keeps those of records the client resumed past', () => {
    const progress = new PartitionProgress('t', 0);
    const early = progress.publishing(1);
    progress.finish(2);
    const late = progress.publishing(3);
    progress.dropped = true;
    progress.resume(3);
    expect(late.abandoned).toBe(true);
    expect(early.abandoned).toBe(false);
    progress.finish(3);
    progress.finish(4);
    expect(progress.committable()).toBe(-1);
    progress.acknowledged(late);
    expect(progress.committable()).toBe(-1);
    progress.acknowledged(early);
    expect(progress.committable()).toBe(5);
  });
});
