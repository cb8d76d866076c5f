import { KafkaJSProtocolError } from 'kafkajs';
import { COMMIT_PATIENCE_MS, markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { consumer, hookConsumers, timedOn, world } from './park-by-key-world';

jest.setTimeout(60_000);

/** A coordinator loading its offsets, as the kafkajs adapter marks it: worth waiting out. */
const loading = () => markWorthWaitingOut(new KafkaJSProtocolError({ message: 'The coordinator is loading offsets', type: 'GROUP_LOAD_IN_PROGRESS', code: 14, retriable: true } as unknown as string));

/**
 * A coordinator that flaps: each commit of the main state is refused for its first 20 s, then
 * accepted. The release of a key whose records are parked runs them and commits after each, so
 * one callback commits several times; waited out commit by commit, it would hold the partition
 * 20 s per parked record (the Confluent client drops a member whose callback passes its poll
 * interval, five minutes).
 */
describe('park-by-key, a release that drains parked records while every state commit is refused for 20 s at first', () => {
  it('waits one commit patience in all per operation, not one per commit', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs';
    let flapping = false;
    const firstRefused = new Map<string, number>();
    let longest = 0;
    hookConsumers(w, {
      commit: (offsets) => {
        const main = offsets.find((o) => o.topic === consumer.mainTopic);
        if (flapping && main !== undefined) {
          const key = `${main.partition}@${main.offset}/${main.metadata ?? ''}`;
          const since = firstRefused.get(key) ?? w.clock.now();
          firstRefused.set(key, since);
          if (w.clock.now() < since + 20_000) throw loading();
        }
      },
      message: timedOn(w.clock, (ms) => (longest = Math.max(longest, ms))),
    });
    w.failOnce.add('k:a');
    for (const value of ['a', 'b', 'c', 'd', 'e']) w.produce('k', value);
    const retrying = await w.start();
    // k:a failed into the 1m tier; k:b..k:e park behind it.
    await w.broker.run({ stopWhen: () => w.events.filter((e) => e.type === 'parked').length === 4 });
    flapping = true;
    await w.broker.run({ stopWhen: () => w.handled.includes('k:e') });
    await retrying.stop();
    // Every record ran, in order (the release's run of the parked records; a failed operation runs them again).
    const firstRuns = w.handled.filter((h, i) => !h.endsWith('FAIL') && w.handled.indexOf(h) === i);
    expect(firstRuns).toEqual(['k:a', 'k:b', 'k:c', 'k:d', 'k:e']);
    // One patience and the wait that would have passed it, not 20 s per commit of the drain (about 100 s).
    expect(longest).toBeLessThanOrEqual(COMMIT_PATIENCE_MS + 5_000);
    expect(longest).toBeGreaterThan(20_000); // the refusals were waited out at all
  });
});
