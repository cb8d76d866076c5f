import { attackWorld, consumer } from './attack21-world';
import type { LogStart } from './attack21-world';
import { mainRecord, parkingWorld, tierRecord } from './key-parking-world';

/**
 * Attack 21 (retention deletes parked records): scenarios tried that held. Each passes today;
 * each would fail if the give-up lost a record still in the log, stopped a key or the
 * partition, or broke its key's order beyond docs/runtime.md.
 */

/** k's a fails once (k held), k's b parks behind it; the consumer stops cleanly with b parked (offsets 0, 1; then `more`). */
async function parkedThenStopped(w: ReturnType<typeof attackWorld>, more: (() => void)[] = [], readThrough = 2) {
  w.fails.set('k:a', 1);
  w.produce('k', 'a');
  w.produce('k', 'b');
  for (const produce of more) produce();
  const retrying = await w.start();
  await w.runFor(10_000, () => w.parkState().parked.size >= 1 && w.parkState().position >= BigInt(readThrough));
  await retrying.stop();
}

describe('attack 21 held: retention deleting parked records', () => {
  it('control of the refused-read finding: with the log start read, the quiet partition gives b up, its commit moves on and a replay of k runs', async () => {
    const w = attackWorld();
    await parkedThenStopped(w);
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2);
    const retrying = await w.start();
    await w.runFor(5 * 60_000);
    w.replay('k', 'z', 0);
    await w.runFor(3_600_000);
    await retrying.stop();
    expect(w.succeeded()).toEqual(new Set(['k:a', 'k:z']));
    expect(w.committed()).toBe(2);
  });

  it.each<[string, LogStart]>([
    ['no log-start read at all', 'absent'],
    ['a refused log-start read', 'throws'],
    ['a log start that says 0', { lie: () => 0 }],
  ])('%s: a record past the deleted ones gives b up only after a seek of its own, and k goes on in order', async (_name, logStart) => {
    const w = attackWorld({ logStart });
    await parkedThenStopped(w);
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2);
    w.produce('k', 'c'); // offset 2
    w.produce('x', 'd'); // offset 3
    const retrying = await w.start();
    await w.runFor(3_600_000);
    await retrying.stop();
    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['1']]);
    // Sought to b twice: the load's re-read from the commit, and the gap's confirmation.
    expect(w.seeks.filter((s) => s === '0@1').length).toBeGreaterThanOrEqual(2);
    expect(w.runs.filter((r) => r.endsWith('ok'))).toEqual(expect.arrayContaining(['k:a@1 ok', 'k:c@0 ok', 'x:d@0 ok']));
    expect(w.runs.indexOf('k:c@0 ok')).toBeGreaterThan(w.runs.indexOf('k:a@1 ok'));
    expect(w.committed()).toBe(4);
    expect(w.parkState().parked.size).toBe(0);
  });

  it('a rebalance between the gap and its confirmation seek gives up nothing still in the log, and b is given up once it is gone', async () => {
    const w = attackWorld({ logStart: 'absent' });
    await parkedThenStopped(w);
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2);
    w.produce('k', 'c');
    w.produce('x', 'd');
    const retrying = await w.start();
    // The load seeks to 1, the gap (a record at 2) seeks to 1 again: rebalance right then.
    await w.runFor(3_600_000, () => w.seeks.filter((s) => s === '0@1').length >= 2);
    w.broker.rebalance(consumer.groups.main);
    await w.runFor(3_600_000);
    await retrying.stop();
    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['1']]);
    expect(w.succeeded()).toEqual(new Set(['k:a', 'k:c', 'x:d']));
    expect(w.committed()).toBe(4);
  });

  it('retention partway through the parked records: the deleted one is given up, the one still in the log runs, after its key\'s hold', async () => {
    const w = attackWorld();
    w.fails.set('k:a', 1);
    w.produce('k', 'a'); // 0: k held
    w.produce('k', 'b'); // 1: parked
    w.produce('x', 'c'); // 2
    w.produce('k', 'e'); // 3: parked
    const retrying0 = await w.start();
    await w.runFor(10_000, () => w.parkState().parked.size === 2);
    await retrying0.stop();
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2); // b gone, e still there
    const retrying = await w.start();
    await w.runFor(3_600_000);
    await retrying.stop();
    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['1']]);
    expect(w.runs.indexOf('k:e@0 ok')).toBeGreaterThan(w.runs.indexOf('k:a@1 ok'));
    expect(w.succeeded()).toEqual(new Set(['k:a', 'x:c', 'k:e']));
    expect(w.committed()).toBe(4);
  });

  it('two partitions: retention on one gives up nothing of the other', async () => {
    const w = attackWorld();
    w.fails.set('k:a', 1);
    w.fails.set('m:a', 1);
    w.produce('k', 'a', 0);
    w.produce('k', 'b', 0);
    w.produce('m', 'a', 1);
    w.produce('m', 'b', 1);
    const first = await w.start();
    await w.runFor(10_000, () => w.parkState(0).parked.size === 1 && w.parkState(1).parked.size === 1);
    await first.stop();
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2);
    const retrying = await w.start();
    await w.runFor(3_600_000);
    await retrying.stop();
    expect(w.ofType('parked-records-deleted').map((e) => `${e.partition}:${e.offsets.join()}`)).toEqual(['0:1']);
    expect(w.succeeded()).toEqual(new Set(['k:a', 'm:a', 'm:b']));
    expect(w.runs.indexOf('m:b@0 ok')).toBeGreaterThan(w.runs.indexOf('m:a@1 ok'));
    expect(w.committed(consumer.mainTopic, 1)).toBe(2);
  });

  it('keyless records past the deleted ones run, and hold nothing', async () => {
    const w = attackWorld({ logStart: 'absent' });
    await parkedThenStopped(w);
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2);
    w.fails.set('null:n1', 1);
    w.produce(null, 'n1');
    w.produce(null, 'n2');
    w.produce('k', 'c');
    const retrying = await w.start();
    await w.runFor(3_600_000);
    await retrying.stop();
    expect(w.succeeded()).toEqual(new Set(['k:a', 'null:n1', 'null:n2', 'k:c']));
    expect(w.committed()).toBe(5);
  });

  it('a commit refused right after the give-up: given up again on the next load, nothing lost, nothing waits', async () => {
    const w = attackWorld({ logStart: 'absent' });
    await parkedThenStopped(w);
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2);
    w.produce('k', 'c');
    w.produce('x', 'd');
    let refused = false;
    w.onEvent((e) => {
      if (e.type === 'parked-records-deleted' && !refused) {
        refused = true;
        w.broker.refuseCommits(consumer.groups.main, 1);
      }
    });
    const retrying = await w.start();
    await w.runFor(3_600_000);
    await retrying.stop();
    expect(refused).toBe(true);
    expect(w.succeeded()).toEqual(new Set(['k:a', 'k:c', 'x:d']));
    expect(w.committed()).toBe(4);
    expect(w.parkState().parked.size).toBe(0);
  });

  it('retention past the position (records never read are Kafka\'s loss): the parked ones are given up at the load, the first record left runs', async () => {
    const w = attackWorld();
    await parkedThenStopped(w, [() => w.produce('x', 'c'), () => w.produce('y', 'd')], 4);
    // The consumer stopped having read through offset 3; two more come while it is down, retention takes through 4.
    w.produce('x', 'e'); // 4
    w.produce('k', 'f'); // 5
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 5);
    const retrying = await w.start();
    await w.runFor(3_600_000);
    await retrying.stop();
    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['1']]);
    expect(w.succeeded()).toEqual(new Set(['k:a', 'x:c', 'y:d', 'k:f']));
    expect(w.committed()).toBe(6);
  });

  it('parking budget full (the over-budget seek to the oldest missing record) while retention deletes part of the parked records: those given up, the others run in order, nothing paused', async () => {
    const w = attackWorld();
    w.fails.set('k:a', 1);
    w.produce('k', 'a');
    for (let i = 1; i <= 8; i++) w.produce('k', `p${i}`);
    const first = await w.start({ parkingBudgetBytes: 85 });
    await w.runFor(10_000, () => w.ofType('parking-full').length > 0);
    await first.stop();
    expect(w.ofType('parking-full').length).toBeGreaterThan(0);
    const parked = [...w.parkState().parked.keys()].map(Number).sort((a, b) => a - b);
    expect(parked.length).toBeGreaterThanOrEqual(2);
    // Retention takes the oldest two parked records; the rest, and the records never read, stay.
    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, parked[1]! + 1);
    w.produce('x', 'z');
    const retrying = await w.start({ parkingBudgetBytes: 85 });
    await w.runFor(6 * 3_600_000);
    await retrying.stop();
    expect(w.ofType('parked-records-deleted').flatMap((e) => e.offsets)).toEqual([String(parked[0]), String(parked[1])]);
    const kRuns = w.runs.filter((r) => r.startsWith('k:p') && r.endsWith('ok')).map((r) => Number(r.slice(3, r.indexOf('@'))));
    expect(kRuns).toEqual(Array.from({ length: 8 - parked[1]! }, (_, i) => parked[1]! + 1 + i));
    expect(w.succeeded()).toContain('x:z');
    expect(w.parkState().parked.size).toBe(0);
    expect(w.broker.pausedPartitions(consumer.groups.main)).toEqual([]);
    expect(w.committed()).toBe(w.broker.records(consumer.mainTopic, 0).length);
  });
});

describe('attack 21 held: the gap and its confirmation, unit level (key-parking-world: seeks are recorded, records handed by the test)', () => {
  /** k@0 goes to a tier (k held), k@1 parks, x@2 and y@3 run; then a rebalance forgets it all: the state is read again from the commit. */
  async function reloaded() {
    const w = parkingWorld({ outcomes: { 'k:a': 'tier' } });
    await w.parking.onMainRecord(mainRecord(0, 'k', 'a'));
    await w.parking.onMainRecord(mainRecord(1, 'k', 'b'));
    await w.parking.onMainRecord(mainRecord(2, 'x', 'c'));
    await w.parking.onMainRecord(mainRecord(3, 'y', 'd'));
    expect([...w.state().parked.keys()]).toEqual([1n]);
    w.parking.forget();
    return w;
  }

  it('one record fetched before the load\'s seek, delivered after it, gives up nothing: the confirmation seek reads b, which then runs after its key\'s hold', async () => {
    const w = await reloaded();
    await w.parking.onMainRecord(mainRecord(2, 'x', 'c')); // loads, seeks to 1: taken again
    await w.parking.onMainRecord(mainRecord(3, 'y', 'd')); // fetched before that seek: a gap where b is
    expect(w.ofType('parked-records-deleted')).toEqual([]);
    expect(w.seeks.map((s) => s.offset)).toEqual(['1', '1']);
    await w.parking.onMainRecord(mainRecord(1, 'k', 'b')); // the seek reads b: parked again, in memory
    await w.runTier(tierRecord(0, 'k', 0));
    expect(w.ofType('parked-records-deleted')).toEqual([]);
    expect(w.handled.slice(-2)).toEqual(['tier k@0', 'k:b']);
  });

  it('a gap where the parked record is gone (compaction, log start unknown): the confirmation seek passes it again, and it is given up once', async () => {
    const w = await reloaded();
    await w.parking.onMainRecord(mainRecord(2, 'x', 'c')); // loads, seeks to 1
    await w.parking.onMainRecord(mainRecord(2, 'x', 'c')); // read from 1: b compacted away
    await w.parking.onMainRecord(mainRecord(2, 'x', 'c')); // the confirmation seek reads past it again
    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['1']]);
    expect(w.state().parked.size).toBe(0);
  });
});
