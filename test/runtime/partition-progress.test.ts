import fc from 'fast-check';
import { PartitionProgress } from '../../src/runtime/partition-progress';

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
        const unacked: number[] = [];
        let picks = 0;
        let committed = -1;
        let offset = start - 1;
        const commit = () => {
          const c = progress.committable();
          if (c < 0) return;
          // What a commit now would say: every record below it is done.
          for (const u of unacked) expect(c).toBeLessThanOrEqual(u);
          expect(c).toBeGreaterThanOrEqual(committed);
          committed = c;
        };
        const ackOne = () => {
          const [acked] = unacked.splice((ackPicks[picks++] ?? 0) % unacked.length, 1);
          progress.acknowledged(acked!);
        };
        for (const r of records) {
          offset += 1 + r.gap;
          if (r.fails) {
            progress.publishing(offset);
            unacked.push(offset);
          } else progress.finish(offset);
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
    progress.publishing(40);
    expect(progress.committable()).toBe(-1);
    progress.finish(41);
    expect(progress.committable()).toBe(-1);
    progress.acknowledged(40);
    expect(progress.committable()).toBe(42);
  });

  it('wakes a partition waiting for room when a publish is acknowledged', async () => {
    const progress = new PartitionProgress('t', 0);
    progress.publishing(0);
    let woke = false;
    const waiting = progress.waitForAcknowledgement().then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    progress.acknowledged(0);
    await waiting;
    expect(woke).toBe(true);
  });
});
