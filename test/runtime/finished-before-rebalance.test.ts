import { Registry } from 'prom-client';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/** No in-place retries: a failure goes straight to its tier. */
const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 } });
const START = 1_000_000;

/**
 * A broker outage longer than the group session (#28 finding 2): the records a member
 * finished were not committed yet, the member rejoins as a new one, and the partition
 * comes back to it at the old committed offset. What it finished must not run again.
 */
function setup() {
  const clock = new VirtualClock(START);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  const runs: string[] = [];
  const retrying = createRetryingConsumer(consumer, {
    kafka: broker.port(),
    clock,
    registry: new Registry(),
    random: () => 0.5,
    // A commit window far longer than the test: nothing is committed before the rebalance.
    commit: { intervalMs: 60_000, maxRecords: 10_000 },
    handler: async (record) => {
      const value = valueOf(record);
      runs.push(`${record.topic === consumer.mainTopic ? 'main' : 'tier'}:${value}`);
      if (value.startsWith('fail') && record.topic === consumer.mainTopic) throw httpError(503);
    },
  });
  const produce = (value: string) => broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from(value), partition: 0 });
  return { clock, broker, runs, retrying, produce };
}

describe('records a member finished before a rebalance', () => {
  it('do not run again when the partition comes back to it at an older committed offset, and are committed', async () => {
    const s = setup();
    ['a', 'b', 'fail-c', 'd'].forEach(s.produce);
    await s.retrying.start();
    // Until d ran and c is in its tier, before the commit timer.
    await s.broker.run({ stopWhen: () => s.runs.length === 4 && s.broker.records(consumer.tiers[0]!.topic, 0).length === 1 });
    expect(s.runs.filter((r) => r.startsWith('main:'))).toEqual(['main:a', 'main:b', 'main:fail-c', 'main:d']);
    expect(s.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBeUndefined();

    s.broker.rebalance(consumer.groups.main); // read again from the committed offset: none, so from the start
    s.produce('e');
    await s.broker.run({ stopWhen: () => s.runs.includes('main:e') });
    await s.retrying.stop();
    expect(s.runs.filter((r) => r.startsWith('main:'))).toEqual(['main:a', 'main:b', 'main:fail-c', 'main:d', 'main:e']);
    expect(s.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0)).toBe(5);
  });

  it('in a tier do not run again when the tier partition comes back at an older committed offset', async () => {
    const s = setup();
    s.produce('fail-a');
    await s.retrying.start();
    await s.broker.run({ stopWhen: () => s.runs.includes('tier:fail-a') });
    expect(s.broker.committedOffset(consumer.groups.retry, consumer.tiers[0]!.topic, 0)).toBeUndefined();

    s.broker.rebalance(consumer.groups.retry);
    await s.broker.run({ stopWhen: () => s.clock.now() > START + 200_000 });
    await s.retrying.stop();
    expect(s.runs).toEqual(['main:fail-a', 'tier:fail-a']);
    expect(s.broker.committedOffset(consumer.groups.retry, consumer.tiers[0]!.topic, 0)).toBe(1);
  });
});
