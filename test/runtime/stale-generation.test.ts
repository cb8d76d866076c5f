import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * Work started before a rebalance and finished after it belongs to the generation it began
 * in: the partition may now be another member's, which reads it again from its commit (or
 * this member's again, reading it anew). Its completion must not move the next generation's
 * commit (key parking's tier commits: key-parking.test.ts).
 */
describe('a completion from an earlier generation', () => {
  function setup() {
    const clock = new VirtualClock(0);
    const broker = new MemoryBroker(clock);
    broker.createTopic('t.retry.1m', 1);
    const consumer = broker.port().consumer('g.retry');
    const committer = createOffsetCommitter(() => consumer, clock, { intervalMs: 100, maxRecords: 500 }, () => {});
    return { broker, clock, committer, committed: () => broker.committedOffset('g.retry', 't.retry.1m', 0) };
  }

  it('a tier record marked done after a rebalance that began before it is not committed by the next generation', async () => {
    const s = setup();
    const startedIn = s.committer.generation;
    s.committer.forget(); // the rebalance, while the record was in the handler
    await s.committer.mark({ topic: 't.retry.1m', partition: 0, offset: '6' }, startedIn);
    await s.committer.flush();
    expect(s.committed()).toBeUndefined();
  });

  it('a tier record begun and marked in the same generation is committed as ever', async () => {
    const s = setup();
    s.committer.forget();
    const startedIn = s.committer.generation;
    await s.committer.mark({ topic: 't.retry.1m', partition: 0, offset: '6' }, startedIn);
    await s.committer.flush();
    expect(s.committed()).toBe(6);
  });
});
