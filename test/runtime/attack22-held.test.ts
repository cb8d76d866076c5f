import { attackWorld, consumer, crashAfterCopyOfParked } from './attack21-world';

/**
 * Attack 22: scenarios tried against fdf18ff (the copy of a parked record waits behind it) that held.
 */
describe('attack 22: what held', () => {
  /**
   * k's a (0) holds k in the 10m tier, b (1) parks; b's drained run fails and its 1m copy is
   * written, the process dies before that state is committed. The next process runs under a
   * broker metadata limit lowered under the stored state (kafkajs); retention deletes 0..1 the
   * moment the first commit is refused (the copy of b is then a turn waiting behind b, or read
   * after): b still succeeds (its copy, or b run again), never skipped unrun.
   */
  for (const limit of [40, 44]) {
    it(`a copy of a parked record, retention during a refused commit under a limit of ${limit}: b still succeeds`, async () => {
      const w = attackWorld({ reaction: 'kafkajs' });
      await crashAfterCopyOfParked(w, () => w.produce('j', 'c'));
      w.advanceBy(5 * 60_000);
      let deleted = false;
      w.onEvent((e) => {
        if (deleted || e.type !== 'parking-budget-lowered') return;
        deleted = true;
        w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2);
      });
      w.broker.metadataMaxBytes = limit;
      await w.start();
      await w.runFor(3 * 3_600_000);
      expect(w.succeeded()).toContain('k:b');
      expect(w.succeeded()).toContain('k:a');
    }, 60_000);
  }

  /** The same crash, then a rebalance while b's copy waits its turn (turns are per generation): b's copy is read again and judged; b succeeds once. */
  it('a rebalance while the copy of a parked record waits: read again, judged stale once b ran again', async () => {
    const w = attackWorld({ reaction: 'kafkajs' });
    w.fails.set('k:a', 2);
    w.fails.set('k:b', 1);
    w.produce('k', 'a');
    w.produce('k', 'b');
    w.crashAt((offsets) => w.runs.includes('k:b@0 FAIL') && offsets.some((o) => w.isStateCommit(o)));
    await w.start();
    await w.runFor(30 * 60_000, () => w.faulty.crashes > 0);
    w.advanceBy(5 * 60_000);
    w.fails.set('k:b', 0);
    let rebalanced = false;
    w.onEvent((e) => {
      if (rebalanced || e.type !== 'parked' || e.record.topic !== consumer.tiers[0]!.topic) return;
      rebalanced = true;
      setImmediate(() => w.broker.rebalance(consumer.groups.main));
    });
    const runsBefore = w.runs.length;
    await w.start();
    await w.runFor(3 * 3_600_000);
    expect(rebalanced).toBe(true);
    expect(w.runs.slice(runsBefore).filter((r) => r.startsWith('k:b'))).toEqual(['k:b@0 ok']);
    expect(Number(w.committed(consumer.tiers[0]!.topic))).toBe(w.broker.records(consumer.tiers[0]!.topic, 0).length);
  }, 60_000);
});
