import { PARK_STATE_HEADER } from '../../src/naming/headers';
import { consumer, T0, world } from './park-by-key-world';

/**
 * Found by session 37's review of the retry ids (b8cd49b): a LOST record. A main record arriving
 * with an x-park-state value of its own (headers an upstream service copied from a tier record)
 * under a state without an id: its copy kept that value, whose retry id made it no match for its
 * own hold, and it was skipped as stale. Fixed: a main record's copy never keeps the record's own
 * x-park-state (destination-record.ts).
 */
jest.setTimeout(60_000);

/**
 * A main record that arrives carrying an x-park-state value with a retry id (headers copied from
 * a tier/DLQ record by an upstream service or a hand replay), in a partition whose state has no
 * id (the budget too small for the id and one hold): copyIdFor gives undefined, the copy keeps
 * the record's own value, and its retry id makes it no match for its own hold.
 */
describe('park-by-key retry ids (session 37 review): a main record carrying x-park-state with a retry id, state without an id', () => {
  for (const budget of [45, undefined]) {
    it(`runs its retry (parkingBudgetBytes ${budget ?? 'default'})`, async () => {
      const w = world();
      w.broker.throwReaction = 'kafkajs';
      w.failOnce.add('K:m');
      w.broker.append(consumer.mainTopic, { key: Buffer.from('K'), value: Buffer.from('m'), partition: 0, headers: { [PARK_STATE_HEADER]: 'abcdefgh.abcdef' } });
      const retrying = await w.start(budget === undefined ? {} : { parkingBudgetBytes: budget });
      await w.broker.run({ until: T0 + 3 * 3_600_000 });
      await retrying.stop();
      const copy = w.broker.records(consumer.tiers[0]!.topic, 0)[0];
      expect(copy?.headers[PARK_STATE_HEADER]?.toString() ?? '').not.toContain('.abcdef'); // the record's own value is not the copy's
      expect(w.handled).toEqual(['K:m FAIL', 'K:m']);
    });
  }
});
