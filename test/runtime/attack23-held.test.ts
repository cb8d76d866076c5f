import { attackWorld, consumer, crashAfterCopyOfParked } from './attack21-world';

/**
 * Attack 23: scenarios tried against 7caca14 that held.
 *
 * Attack 21's scenario (k's b given up under k's hold at 0, b's copy read after the give-up)
 * on kafkajs, with the broker's metadata limit lowered (36..50 bytes) before the restart. No
 * shed happens here: kafkajs answers the fetch below the log start with a commit of -2, the
 * state reads as lost at the log start, and b's copy runs unjudged; b and c succeed. (The shed
 * of a marked hold itself was not reached in the time; shedToFit keeps the mark on kept holds.)
 */
describe('attack 23: what held', () => {
  for (const limit of [36, 40, 44, 50]) {
    it(`a marked hold through a shed under a limit of ${limit}: b's copy still runs`, async () => {
      const w = attackWorld({ reaction: 'kafkajs' });
      await crashAfterCopyOfParked(w, () => w.produce('j', 'c'));
      w.advanceBy(5 * 60_000);
      w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2);
      w.broker.metadataMaxBytes = limit;
      await w.start();
      await w.runFor(3 * 3_600_000);
      expect(w.ofType('park-state-shed')).toEqual([]);
      expect(w.succeeded()).toContain('k:b');
      expect(w.succeeded()).toContain('j:c');
    }, 60_000);
  }
});
