import { attackWorld, consumer, crashAfterCopyOfParked } from './attack21-world';

/**
 * The copy of a parked record, from a run whose state never got committed, read while the record
 * is still parked: the class of attack 21's finding, read in the other order. The record may run
 * again (the copy is then a duplicate) or be deleted by retention first (the copy is then all
 * that is left of it), so the copy is neither run nor skipped at once: it waits right behind its
 * record and is judged when its turn comes.
 *
 * Scenario (as attack 21's): k's record a (offset 0) holds k in the 10m tier; b (offset 1) parks
 * behind it. a's 10m copy succeeds, the drain runs b, which fails: b's copy goes to the 1m tier,
 * and the process dies before the state that says so is committed. The next process loads k held
 * at 0 and b parked.
 */
describe('park-by-key: the copy of a parked record read before its record', () => {
  async function crashedAfterCopyOfB(alsoProduce?: (w: ReturnType<typeof attackWorld>) => void) {
    const w = attackWorld({ reaction: 'confluent' });
    await crashAfterCopyOfParked(w, () => alsoProduce?.(w));
    return w;
  }
  type Seen = { type: string; record?: { topic: string; message: { value: Buffer | null } } };
  const ofCopyOfB = (e: Seen) => e.record?.topic === consumer.tiers[0]!.topic && e.record.message.value?.toString() === 'b';
  const isCopyOfB = (e: Seen) => e.type === 'parked' && ofCopyOfB(e);

  it('runs the copy in its record\'s place when retention deletes the record after the copy was read', async () => {
    const w = await crashedAfterCopyOfB();
    w.advanceBy(5 * 60_000);
    // Retention takes the main records the moment b's copy is judged (taken to wait, or skipped): b cannot be read again.
    let deleted = false;
    w.onEvent((e) => {
      if (deleted || !ofCopyOfB(e) || !['parked', 'stale-tier-record'].includes(e.type)) return;
      deleted = true;
      w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2);
    });
    const runsBefore = w.runs.length;
    await w.start();
    await w.runFor(3 * 3_600_000);

    expect(deleted).toBe(true);
    expect(w.ofType('parked-records-deleted').map((e) => e.offsets)).toEqual([['1']]);
    expect(w.ofType('stale-tier-record')).toEqual([]);
    // b's copy ran (in the 1m tier, where it succeeds), after a's retry ended: in its record's place.
    expect(w.runs.slice(runsBefore)).toEqual(['k:a@2 ok', 'k:b@1 ok']);
  });

  it('skips the copy as stale once its record ran again (no record runs twice for it)', async () => {
    const w = await crashedAfterCopyOfB();
    w.advanceBy(5 * 60_000);
    w.fails.set('k:b', 0); // b succeeds when it runs again from the main topic
    const runsBefore = w.runs.length;
    await w.start();
    await w.runFor(3 * 3_600_000);

    expect(w.ofType('parked').filter(isCopyOfB)).toHaveLength(1);
    expect(w.runs.slice(runsBefore)).toEqual(['k:a@2 ok', 'k:b@0 ok']);
    expect(w.ofType('stale-tier-record').map((e) => `${e.record.topic}:${e.record.message.value?.toString()}`)).toEqual([`${consumer.tiers[0]!.topic}:b`]);
    // Nothing waits: every tier partition is committed past the copy.
    expect(Number(w.committed(consumer.tiers[0]!.topic))).toBe(w.broker.records(consumer.tiers[0]!.topic, 0).length);
  });

  it('judges the copy stale in its record\'s place, the key\'s next parked record right behind it', async () => {
    // c (offset 2) parks behind b: the copy's place (behind b, offset 2) is c's.
    const w = await crashedAfterCopyOfB((world) => world.produce('k', 'c'));
    w.advanceBy(5 * 60_000);
    w.fails.set('k:b', 0);
    const runsBefore = w.runs.length;
    await w.start();
    await w.runFor(3 * 3_600_000);

    expect(w.runs.slice(runsBefore)).toEqual(['k:a@2 ok', 'k:b@0 ok', 'k:c@0 ok']);
    expect(w.ofType('stale-tier-record').map((e) => `${e.record.topic}:${e.record.message.value?.toString()}`)).toEqual([`${consumer.tiers[0]!.topic}:b`]);
  });
});
