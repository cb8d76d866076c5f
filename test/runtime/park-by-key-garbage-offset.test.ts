import { HEADERS } from '../../src/naming/headers';
import { consumer, tier1m, world } from './park-by-key-world';

/*
 * Attack on park-by-key's hold check with garbage headers (DESIGN.md: garbage in the retry
 * headers must never crash a consumer or loop a record). A tier record whose
 * x-original-offset is missing or unreadable (decodeRetryHeaders reads it as absent) counts
 * as its key's current retry whenever the key is held, by whatever record
 * (src/runtime/key-parking.ts, onTierRecord: `holder !== undefined && (original === undefined
 * || original === holder)`). It runs, and its success releases the hold of the record that
 * really is in retry; when that record's tier copy comes due it is judged a stale copy and
 * committed without running: the record never succeeds and is not in the DLQ.
 */
describe('a tier record with an unreadable x-original-offset while its key is held', () => {
  it('the record really in retry still runs when it comes due', async () => {
    const w = world();
    w.alwaysFail.add('k:a');
    w.produce('k', 'a'); // fails on the main topic and in the 1m tier: now in the 10m tier, k held at offset 0
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.length === 2 });
    w.alwaysFail.delete('k:a'); // the downstream is back: k:a succeeds when it comes due in the 10m tier
    expect(w.handled).toEqual(['k:a FAIL', 'k:a FAIL']);

    // A record in the tier without a readable original offset (hand-produced, another tool, a corrupted header), due now.
    w.broker.append(tier1m!.topic, {
      key: Buffer.from('k'),
      value: Buffer.from('garbage'),
      partition: 0,
      headers: { [HEADERS.attempt]: '2', [HEADERS.dueAt]: String(w.clock.now()), [HEADERS.originalTopic]: consumer.mainTopic, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: 'n/a' },
    });
    await w.broker.run();
    await retrying.stop();
    expect(w.handled).toContain('k:a');
  });

  it('a tier record with an unreadable original offset whose key is free runs (it is not skipped as a stale copy)', async () => {
    const w = world();
    const retrying = await w.start();
    w.broker.append(tier1m!.topic, {
      key: Buffer.from('j'),
      value: Buffer.from('garbage'),
      partition: 0,
      headers: { [HEADERS.attempt]: '2', [HEADERS.dueAt]: String(w.clock.now()), [HEADERS.originalTopic]: consumer.mainTopic, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: '-3' },
    });
    await w.broker.run();
    await retrying.stop();
    expect(w.handled).toEqual(['j:garbage']);
  });
});
