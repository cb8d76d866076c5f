import { PARK_STATE_HEADER } from '../../src/naming/headers';
import { consumer, T0, world } from './park-by-key-world';

/**
 * Found by session 37's review of the retry ids (b8cd49b): a LOST record. A replay's copy whose
 * x-park-state arrives damaged read as carrying no retry id and was skipped as stale. Fixed: an
 * unreadable value proves nothing; the offset alone decides, as before retry ids (sameRetry).
 */
jest.setTimeout(60_000);

describe('park-by-key retry ids (session 37 review): a replay chain copy with an unreadable x-park-state', () => {
  it('runs (an unreadable value is no proof of a stale copy)', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    const tier10m = consumer.tiers[1]!.topic;
    const append = w.broker.append.bind(w.broker);
    w.broker.append = (topic, message) => {
      const value = message.headers?.[PARK_STATE_HEADER];
      if (topic === tier10m && typeof value === 'string') message = { ...message, headers: { ...message.headers, [PARK_STATE_HEADER]: `${value}X` } };
      return append(topic, message);
    };
    w.produce('j', 'z');
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.includes('j:z') });
    w.failOnce.add('k:r');
    w.replay('k', 'r', 0, 7);
    await w.broker.run({ until: T0 + 3 * 3_600_000 });
    await retrying.stop();

    expect(w.handled).toContain('k:r');
  });
});
